/**
 * Marks the words of a search query in result text: case-insensitive for alphabetic scripts; for Chinese (and
 * other scripts written without spaces) the query's runs and their two-character pieces, since a semantic match
 * rarely repeats a whole Chinese phrase.
 */
import { Fragment, type ReactNode } from 'react';

const RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[\p{L}\p{N}_]+(?:['’-][\p{L}\p{N}_]+)*/gu;
const UNSPACED = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+$/u;

export function highlightTerms(query: string): string[] {
  const runs = query.match(RUNS) ?? [];
  const terms: string[] = [];
  for (const run of runs) {
    if (UNSPACED.test(run)) {
      terms.push(run);
      const chars = [...run];
      if (chars.length > 2) for (let i = 0; i + 2 <= chars.length; i++) terms.push(chars.slice(i, i + 2).join(''));
    } else if ([...run].length >= 2 || runs.length === 1) {
      terms.push(run);
    }
  }
  const unique = new Map<string, string>();
  for (const term of terms) unique.set(term.toLocaleLowerCase(), term);
  return [...unique.values()].sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface TextPart {
  text: string;
  match: boolean;
}

export function splitHighlights(text: string, terms: string[]): TextPart[] {
  if (terms.length === 0 || !text) return text ? [{ text, match: false }] : [];
  const pattern = new RegExp(terms.map(escapeRegExp).join('|'), 'giu');
  const parts: TextPart[] = [];
  let last = 0;
  for (const found of text.matchAll(pattern)) {
    const start = found.index ?? 0;
    if (found[0].length === 0) continue;
    if (start > last) parts.push({ text: text.slice(last, start), match: false });
    parts.push({ text: found[0], match: true });
    last = start + found[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), match: false });
  return parts;
}

/** About `length` characters of `text`: the window holding the most distinct query terms (the whole text when short). */
export function snippetAround(text: string, terms: string[], length = 360): string {
  if (text.length <= length) return text;
  const lower = text.toLocaleLowerCase();
  const matches: Array<{ index: number; term: string }> = [];
  for (const term of terms) {
    const needle = term.toLocaleLowerCase();
    for (let index = lower.indexOf(needle); index >= 0; index = lower.indexOf(needle, index + needle.length)) matches.push({ index, term: needle });
  }
  let best = { start: 0, score: -1 };
  for (const match of matches) {
    const start = Math.max(0, Math.min(match.index - Math.floor(length / 4), text.length - length));
    const score = new Set(matches.filter((other) => other.index >= start && other.index + other.term.length <= start + length).map((other) => other.term)).size;
    if (score > best.score) best = { start, score };
  }
  const { start } = best;
  const end = Math.min(text.length, start + length);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`;
}

export function Highlighted({ text, terms }: { text: string; terms: string[] }): ReactNode {
  return (
    <>
      {splitHighlights(text, terms).map((part, index) => (part.match ? <mark key={index}>{part.text}</mark> : <Fragment key={index}>{part.text}</Fragment>))}
    </>
  );
}
