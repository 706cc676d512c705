/**
 * What a question is about, for the searches: a question to a memory often names the conversations
 * themselves ("across our sessions", "in our previous chat", "throughout our discussions"). Those
 * words say where to look, which is everywhere the search looks anyway, and they pull both searches
 * toward whatever talks about conversations and sessions rather than toward the topic asked about.
 * These are English words: a question in another script is left whole (textLanguage.ts).
 */
import { mayBeEnglish } from './textLanguage.js';

const TALK_REFERENCE =
  /\b(?:across|throughout|during|in|over|from|through)\s+(?:all\s+)?(?:of\s+)?(?:our|my|the|these|those)\s+(?:previous\s+|past\s+|earlier\s+|recent\s+|different\s+)?(?:conversations?|sessions?|chats?|discussions?|talks?)\b/gi;

/** The question less the words that refer to the conversations themselves (the question itself when nothing else is left). */
export function topicOf(question: string): string {
  if (!mayBeEnglish(question)) return question;
  const topic = question.replace(TALK_REFERENCE, ' ').replace(/\s+([?.!,;:])/g, '$1').replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(topic) ? topic : question;
}

/**
 * The names an English question holds: capitalised words (Caroline, Caroline's) that do not begin a
 * sentence; months and weekdays are capitalised too but name a time, and are no names. None in a
 * question in another script (textLanguage.ts).
 */
export function namesIn(topic: string): string[] {
  if (!mayBeEnglish(topic)) return [];
  const names = new Set<string>();
  for (const match of topic.matchAll(NAME)) {
    const name = match[1]!;
    if (!SENTENCE_START.test(topic.slice(0, match.index)) && !TIME_NAME.test(name)) names.add(name);
  }
  return [...names];
}

/** The topic less the names given (and their possessive "'s"); the topic itself when nothing else is left. */
export function withoutNames(topic: string, names: readonly string[]): string {
  if (names.length === 0) return topic;
  const out = topic.replace(NAME, (word: string, name: string, at: number) => (names.includes(name) && !SENTENCE_START.test(topic.slice(0, at)) ? ' ' : word));
  const tidy = out.replace(/\s+([?.!,;:])/g, '$1').replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(tidy) ? tidy : topic;
}

const NAME = /\b([A-Z][a-z]+)(?:['\u2019]s)?\b/g;
/** Text before a word that starts a sentence: nothing, or an end of sentence (and an opening quote or bracket). */
const SENTENCE_START = /(?:^|[.?!:;]\s*)["'\u201c\u2018(]?\s*$/;
const TIME_NAME = /^(?:January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$/;
