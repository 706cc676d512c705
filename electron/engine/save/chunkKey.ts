/**
 * The text a chunk's vector is embedded from: its key. For most chunks it is the chunk's text. In a
 * chat between named people (lines that begin "Caroline: "), each line in the Latin script keeps for
 * its key only the sentences that state something: greetings, thanks and reactions ("Hey Mel!",
 * "Thanks, Caroline!", "Wow, that's awesome!") and questions ("How have you been?") are left out, so
 * the vector is the one of what was told, not of the small talk around it. A line that states nothing
 * is left out of the key; a chunk that states nothing keys by its whole text. The chunk's shown and
 * indexed text is its own: the key only moves its vector. One key a chunk, so a save embeds as many
 * texts as before.
 *
 * A chunk of role lines ("user: ", "assistant: ") keys by its text: there a question is the user's
 * request, what the answer is about. A key is a function of the chunk's text alone, so a copy of the
 * text in another session keeps the vector stored with the first.
 */
import { mayBeEnglish } from '../search/textLanguage.js';
import { segmentLine, type ChunkSegment } from './chunker.js';

/** Words of small talk: a short sentence of these alone (and names) states nothing. */
const SMALL_TALK = new Set(
  (
    "hey hi hello hiya yo howdy morning evening good great thanks thank thx you so much very really wow whoa cool awesome nice " +
    "amazing wonderful fantastic lovely sweet congrats congratulations bye goodbye take care see ya later soon yeah yes yep " +
    "no nope oh ah aw aww ok okay sure to hear that thats that's it it's its sounds sound lol haha hahaha totally glad love " +
    "absolutely definitely appreciate for the man buddy dude friend my your too as well same here me alright all right " +
    "indeed exactly true agreed omg gosh incredible stunning beautiful gorgeous fun what a an is was " +
    "how how's have been doing are going what's up things everything lately"
  ).split(/\s+/),
);
/** At most this many words: a longer sentence says something even when it opens with thanks. */
const SMALL_TALK_MAX_WORDS = 8;

const SENTENCE = /[^.!?\n]+(?:[.!?]+|\n+|$)\s*/g;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}']*/gu;

/** Whether a sentence is small talk: a few words, each a word of small talk or a name ("Thanks, Mel!"). */
export function isSmallTalk(sentence: string): boolean {
  const words = sentence.match(WORD) ?? [];
  if (words.length === 0) return true;
  if (words.length > SMALL_TALK_MAX_WORDS) return false;
  // A name is a capitalised word after the first, not "I".
  return words.every((w, i) => SMALL_TALK.has(w.toLowerCase()) || (i > 0 && w !== 'I' && /^\p{Lu}/u.test(w)));
}

/** The sentences of a named line that state something, or null when none does. */
export function statedPart(text: string): string | null {
  if (!mayBeEnglish(text)) return text;
  const stated = (text.match(SENTENCE) ?? [text]).filter((s) => !isSmallTalk(s) && !/\?\s*$/.test(s));
  const out = stated.join('').trim();
  return out.length > 0 ? out : null;
}

/** The key of a chunk of these segments, whose text is `text` (see above). */
export function chunkKey(segments: readonly ChunkSegment[], text: string): string {
  if (!segments.some((s) => s.speaker)) return text;
  const lines: string[] = [];
  for (const s of segments) {
    const stated = s.speaker ? statedPart(s.text) : s.text;
    if (stated !== null) lines.push(segmentLine({ ...s, text: stated }));
  }
  return lines.length > 0 ? lines.join('\n') : text;
}

/** The keys of a plan's chunks by their text hash. */
export function keysByTextHash(plan: ReadonlyArray<{ textHash: string; text: string; segments: readonly ChunkSegment[] }>): Map<string, string> {
  const keys = new Map<string, string>();
  for (const c of plan) if (!keys.has(c.textHash)) keys.set(c.textHash, chunkKey(c.segments, c.text));
  return keys;
}
