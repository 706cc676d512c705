/**
 * The question's own words, among the first candidates. Both searches rank whole chunks: a turn whose
 * reply talks around the topic can outrank the turn one line of which says just what was asked
 * ("When did Caroline go to the LGBTQ support group?" / "I went to the LGBTQ support group
 * yesterday"). So the first CANDIDATES candidates are read again for the question's words: each line
 * of a candidate (a message, or a paragraph of a long one) is scored by the question's words it
 * holds, each weighed by how rare it is among those candidates (as BM25 weighs a word: "what" and
 * "did", or a word every candidate holds, count for little; the word that sets one apart counts for
 * much), and a candidate scores (1 + QUESTION_WORDS_WEIGHT x its best line's share of the question's
 * weight) times as much. A candidate is scored by its best line, not by all of its text, so that a long
 * chunk does not gain by holding the question's words scattered over several messages.
 *
 * Words are the quote reader's (quotedPassage.ts): runs of letters and digits, case and accents aside,
 * a character each in scripts without spaces; a word of the letters a-z alone is taken by its stem
 * (Porter's, the `stemmer` package: "went camping" holds "camp" of "camped"). The words of the role
 * lines ("user: ", "assistant: ") are not the text's.
 */
import { stemmer } from 'stemmer';
import { passageWords } from './quotedPassage.js';

/** How many of the first candidates are read for the question's words. */
export const CANDIDATES = 30;

/** How much more a candidate whose best line holds all the question's words scores (times 1 + this). */
export const QUESTION_WORDS_WEIGHT = 1;

const ROLE_LINE = /(^|\n)(?:user|assistant|system|tool): /g;
const ASCII_WORD = /^[a-z]+$/;
/** Text of ASCII characters alone has no accents to fold nor scripts without spaces: its words are read directly, as passageWords would read them. */
const ASCII_TEXT = /^[\x00-\x7f]*$/;
const ASCII_WORDS = /[a-z0-9]+/g;

/** The distinct words of a text, words of a-z alone by their stem. */
export function stemmedWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of passageWords(text)) out.add(ASCII_WORD.test(word) ? stemmer(word) : word);
  return out;
}

/**
 * Reads lines for the question's words: a word of a line is stemmed only when the question has a word of
 * its first letter (a Porter stem keeps its word's first letter), and each distinct word once.
 */
function questionWordReader(asked: ReadonlySet<string>): (line: string) => string[] {
  const firsts = new Set([...asked].map((word) => word[0]));
  const known = new Map<string, string | null>();
  const askedAs = (word: string): string | null => {
    let found = known.get(word);
    if (found === undefined) {
      const key = ASCII_WORD.test(word) ? stemmer(word) : word;
      found = asked.has(key) ? key : null;
      known.set(word, found);
    }
    return found;
  };
  return (line) => {
    const held = new Set<string>();
    for (const word of ASCII_TEXT.test(line) ? (line.toLowerCase().match(ASCII_WORDS) ?? []) : passageWords(line)) {
      if (!firsts.has(word[0])) continue;
      const key = askedAs(word);
      if (key !== null) held.add(key);
    }
    return [...held];
  };
}

/** The candidates, the first CANDIDATES of them favoured by the question's words their best line holds (see above). Best first again. */
export function favourQuestionWords<T extends { hit: { text: string }; score: number }>(question: string, fused: readonly T[]): T[] {
  const asked = stemmedWords(question);
  const head = fused.slice(0, CANDIDATES);
  if (asked.size === 0 || head.length < 2) return [...fused];
  const read = questionWordReader(asked);
  const lines = head.map(({ hit }) => hit.text.replace(ROLE_LINE, '$1').split(/\n+/).map(read));
  // In how many candidates each of the question's words is, and its weight (BM25's idf, never below 0).
  const holding = new Map<string, number>();
  for (const candidate of lines) for (const word of new Set(candidate.flat())) holding.set(word, (holding.get(word) ?? 0) + 1);
  const n = head.length;
  const weightOf = (word: string) => Math.log(1 + (n - (holding.get(word) ?? 0) + 0.5) / ((holding.get(word) ?? 0) + 0.5));
  let whole = 0;
  for (const word of asked) whole += weightOf(word);
  const share = lines.map((candidate) => Math.max(0, ...candidate.map((line) => line.reduce((sum, word) => sum + weightOf(word), 0))) / whole);
  return fused.map((entry, i) => (i < head.length ? { ...entry, score: entry.score * (1 + QUESTION_WORDS_WEIGHT * share[i]!) } : entry)).sort((a, b) => b.score - a.score);
}
