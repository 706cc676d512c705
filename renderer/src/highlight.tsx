/**
 * Marks the words a search matched in result text. Alphabetic scripts match by whole word: a text word is marked
 * when its stem (Porter stemmer) equals the stem of a query word, case-insensitively, so "trains" marks "train"
 * and "is" never marks the inside of "assistant". English stop words ("is", "the", "on") are not marked unless the query
 * holds nothing else. Chinese and other scripts written without spaces have no word boundaries in the text, so the
 * query's runs and their two-character pieces are marked wherever they occur, since a semantic match rarely
 * repeats a whole Chinese phrase.
 */
import { Fragment, type ReactNode } from 'react';
import { stemmer } from 'stemmer';
import { eng } from 'stopword';

const UNSPACED_CHARS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
/** A run of unspaced script, or a word (letters and digits, with inner apostrophes). */
const TOKENS = new RegExp(`[${UNSPACED_CHARS}]+|[\\p{L}\\p{N}_]+(?:['’][\\p{L}\\p{N}_]+)*`, 'gu');
const UNSPACED = new RegExp(`^[${UNSPACED_CHARS}]+$`, 'u');
const STOP_WORDS = new Set(eng.map((word) => word.toLocaleLowerCase()));

/** What a query marks: word keys (stems) and unspaced-script pieces (longest first). */
export interface Highlighter {
  words: Set<string>;
  pieces: string[];
}

/** The comparison key of a word: lower case, a trailing possessive dropped, stemmed. */
export function wordKey(word: string): string {
  const lower = word.toLocaleLowerCase().replace(/['’]s$/u, '');
  return /^[a-z]+$/.test(lower) ? stemmer(lower) : lower;
}

export function highlightTerms(query: string): Highlighter {
  const tokens = query.match(TOKENS) ?? [];
  const pieces = new Set<string>();
  const words = tokens.filter((token) => !UNSPACED.test(token));
  for (const run of tokens.filter((token) => UNSPACED.test(token))) {
    pieces.add(run);
    const chars = [...run];
    if (chars.length > 2) for (let i = 0; i + 2 <= chars.length; i++) pieces.add(chars.slice(i, i + 2).join(''));
  }
  const meaningful = words.filter((word) => !STOP_WORDS.has(word.toLocaleLowerCase()) && ([...word].length >= 2 || tokens.length === 1));
  const chosen = meaningful.length > 0 || pieces.size > 0 ? meaningful : words;
  return { words: new Set(chosen.map(wordKey)), pieces: [...pieces].sort((a, b) => b.length - a.length) };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface TextPart {
  text: string;
  match: boolean;
}

/** Where `highlighter` matches in `text`: start, end and the matched key, in text order. */
function matchesIn(text: string, highlighter: Highlighter): Array<{ start: number; end: number; key: string }> {
  const pieces = highlighter.pieces.length > 0 ? new RegExp(highlighter.pieces.map(escapeRegExp).join('|'), 'gu') : null;
  const found: Array<{ start: number; end: number; key: string }> = [];
  for (const token of text.matchAll(TOKENS)) {
    const start = token.index ?? 0;
    if (UNSPACED.test(token[0])) {
      if (!pieces) continue;
      for (const piece of token[0].matchAll(pieces)) {
        const at = start + (piece.index ?? 0);
        found.push({ start: at, end: at + piece[0].length, key: piece[0] });
      }
    } else {
      const key = wordKey(token[0]);
      if (highlighter.words.has(key)) found.push({ start, end: start + token[0].length, key });
    }
  }
  return found;
}

export function splitHighlights(text: string, highlighter: Highlighter): TextPart[] {
  if (!text) return [];
  const parts: TextPart[] = [];
  let last = 0;
  for (const { start, end } of matchesIn(text, highlighter)) {
    if (start > last) parts.push({ text: text.slice(last, start), match: false });
    parts.push({ text: text.slice(start, end), match: true });
    last = end;
  }
  if (last < text.length) parts.push({ text: text.slice(last), match: false });
  return parts;
}

/** About `length` characters of `text`: the window holding the most distinct matched words (the whole text when short). */
export function snippetAround(text: string, highlighter: Highlighter, length = 360): string {
  if (text.length <= length) return text;
  const matches = matchesIn(text, highlighter);
  let best = { start: 0, score: -1 };
  for (const match of matches) {
    const start = Math.max(0, Math.min(match.start - Math.floor(length / 4), text.length - length));
    const score = new Set(matches.filter((other) => other.start >= start && other.end <= start + length).map((other) => other.key)).size;
    if (score > best.score) best = { start, score };
  }
  const { start } = best;
  const end = Math.min(text.length, start + length);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`;
}

export function Highlighted({ text, terms }: { text: string; terms: Highlighter }): ReactNode {
  return (
    <>
      {splitHighlights(text, terms).map((part, index) => (part.match ? <mark key={index}>{part.text}</mark> : <Fragment key={index}>{part.text}</Fragment>))}
    </>
  );
}
