/**
 * The passage a question quotes, first. A person who pastes a line they remember ("Which LanceDB
 * index should I use for a million vectors? (turn 5)") wants that line, not the same question asked
 * at turn 19: both searches put near-identical passages close together, in an order that the one
 * number or name that tells them apart hardly moves. So the candidates are read for the question's
 * own words in its own order: a candidate that holds nearly all of them (QUOTED_SHARE), in pairs of
 * neighbours as the question has them, comes before every candidate that does not, and the one that
 * holds more of them before the one that holds fewer.
 *
 * No word lists and no language: words are the runs of letters and digits, and in scripts written
 * without spaces (Chinese, Japanese, Thai, ...: fullTextLayout.ts) each character is a word, as the
 * n-gram index reads them. Case and accents do not count.
 */
import { CJK_SCRIPTS } from '../store/fullTextLayout.js';

/** A question shorter than this many words is too short to quote a passage (it would be a few common words). */
export const MIN_QUOTE_WORDS = 5;

/**
 * Share of a question's words a candidate must hold, each beside the same neighbour as in the question,
 * to quote it: a slip of one word in a quoted sentence still quotes it, a question that shares a
 * common opening with a passage ("What did I say about ...") does not.
 */
export const QUOTED_SHARE = 0.85;

/** The longest question read for a quote, in words (a pasted page is read by its start). */
const MAX_QUOTE_WORDS = 256;

const CJK = CJK_SCRIPTS.map((s) => `\\p{scx=${s}}`).join('');
const WORD = new RegExp(`[${CJK}]|(?:(?![${CJK}])[\\p{L}\\p{N}])+`, 'gu');

/** The words of a text in their order, lower-cased with accents folded; a character each in scripts without spaces. */
export function passageWords(text: string): string[] {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').normalize('NFC').toLowerCase().match(WORD) ?? [];
}

/**
 * How a question reads candidates for a quote: `shareOf(text)` is the share (0-1) of the question's
 * words that the text holds beside a neighbour they have in the question. Null for a question too
 * short to quote anything.
 */
export function quoteReader(question: string): { shareOf: (text: string) => number } | null {
  const words = passageWords(question).slice(0, MAX_QUOTE_WORDS);
  if (words.length < MIN_QUOTE_WORDS) return null;
  const idOf = new Map<string, number>();
  for (const word of words) if (!idOf.has(word)) idOf.set(word, idOf.size);
  const ids = words.map((word) => idOf.get(word)!);
  const span = idOf.size;
  // Each pair of neighbours of the question, as a number, with the places of the question it is at.
  const pairs = new Map<number, number[]>();
  for (let i = 0; i + 1 < ids.length; i++) {
    const key = ids[i]! * span + ids[i + 1]!;
    const places = pairs.get(key);
    if (places) places.push(i);
    else pairs.set(key, [i]);
  }
  return {
    shareOf(text: string): number {
      const covered = new Uint8Array(ids.length);
      let previous = -1;
      for (const word of passageWords(text)) {
        const id = idOf.get(word) ?? -1;
        if (previous >= 0 && id >= 0) {
          for (const place of pairs.get(previous * span + id) ?? []) covered[place] = covered[place + 1] = 1;
        }
        previous = id;
      }
      let count = 0;
      for (const c of covered) count += c;
      return count / ids.length;
    },
  };
}

/**
 * The candidates (best first) with those that quote the question first, the one that holds more of
 * its words before the one that holds fewer, each else in its place. A quoting candidate scores at
 * least what the best candidate that does not quote it scores, so that scores still fall down the list.
 */
export function quotedFirst<T extends { hit: { text: string }; score: number }>(question: string, ranked: readonly T[]): T[] {
  const reader = quoteReader(question);
  if (!reader) return [...ranked];
  const quoted: Array<{ entry: T; share: number }> = [];
  const rest: T[] = [];
  for (const entry of ranked) {
    const share = reader.shareOf(entry.hit.text);
    if (share >= QUOTED_SHARE) quoted.push({ entry, share });
    else rest.push(entry);
  }
  if (quoted.length === 0) return [...ranked];
  // Stable: candidates that quote alike keep the order of their scores.
  quoted.sort((a, b) => b.share - a.share);
  const first: T[] = [];
  let floor = rest.length > 0 ? rest[0]!.score : 0;
  for (let i = quoted.length - 1; i >= 0; i--) {
    const { entry } = quoted[i]!;
    first.unshift(entry.score >= floor ? entry : { ...entry, score: floor });
    floor = Math.max(floor, entry.score);
  }
  return [...first, ...rest];
}
