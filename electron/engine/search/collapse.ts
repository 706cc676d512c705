/**
 * Each memory once in search results: a hit whose text is identical to a better hit's (same text
 * hash), or nearly identical by its words as well as its vector, is folded into that hit as one of its
 * `alsoIn` copies instead of taking a place of its own. The list is filled with distinct results up to
 * the limit; copies found further down still join the result they copy.
 *
 * A close vector alone does not make a copy: with a small model, two short chunks that differ in
 * exactly the detail a question asks for ("the sprint ends March 29" / "... April 12") can be at
 * cosine 0.97 or more. A hit that says something the result does not (a number it lacks, or more than
 * a slip of other words) is a result of its own.
 */
import type { AlsoIn } from '../../../shared/domain.js';

/** Cosine similarity from which two chunk vectors can be the same memory (their words must agree too). */
export const NEAR_DUPLICATE_SIMILARITY = 0.97;

/** Share of distinct words two texts must have in common (Jaccard) to be the same memory. */
export const NEAR_DUPLICATE_WORDS = 0.9;

export interface CollapsibleHit {
  chunkId: string;
  sessionId: string;
  textHash: string;
  /** The chunk's text: needed to fold anything but identical texts. */
  text?: string;
  vector?: Float32Array;
}

export interface Collapsed<T> {
  hit: T;
  score: number;
  alsoIn: AlsoIn[];
}

/** Cosine similarity of two vectors (the store's vectors are unit length, but this does not rely on it). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The distinct words of a text, lower-cased with accents folded (punctuation, case and spacing do not count). */
export function wordSet(text: string): Set<string> {
  const folded = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  return new Set(folded.match(/[\p{L}\p{N}]+/gu) ?? []);
}

const HAS_DIGIT = /\p{N}/u;

/**
 * Whether `copy` says nothing that `kept` does not: nearly the same words (Jaccard at least
 * `NEAR_DUPLICATE_WORDS`), and no number of its own (a different date, amount or version is a
 * different fact however few characters it takes).
 */
export function sameWords(kept: Set<string>, copy: Set<string>): boolean {
  if (kept.size === 0 || copy.size === 0) return false;
  let shared = 0;
  for (const word of copy) {
    if (kept.has(word)) shared++;
    else if (HAS_DIGIT.test(word)) return false;
  }
  for (const word of kept) if (!copy.has(word) && HAS_DIGIT.test(word)) return false;
  return shared / (kept.size + copy.size - shared) >= NEAR_DUPLICATE_WORDS;
}

/** `ranked` best first; returns at most `limit` distinct results, best first, each with its copies. */
export function collapseDuplicates<T extends CollapsibleHit>(ranked: ReadonlyArray<{ hit: T; score: number }>, limit: number, threshold = NEAR_DUPLICATE_SIMILARITY): Array<Collapsed<T>> {
  const kept: Array<Collapsed<T> & { words?: Set<string> }> = [];
  const byTextHash = new Map<string, Collapsed<T>>();
  const wordsOf = (k: { hit: T; words?: Set<string> }) => (k.words ??= wordSet(k.hit.text ?? ''));
  for (const { hit, score } of ranked) {
    let same = byTextHash.get(hit.textHash);
    if (!same && hit.vector && hit.vector.length > 0 && hit.text) {
      const entry = { hit } as { hit: T; words?: Set<string> };
      same = kept.find((k) => k.hit.text && k.hit.vector && k.hit.vector.length === hit.vector!.length && cosine(k.hit.vector, hit.vector!) >= threshold && sameWords(wordsOf(k), wordsOf(entry)));
    }
    if (same) {
      if (same.hit.chunkId !== hit.chunkId) same.alsoIn.push({ sessionId: hit.sessionId, chunkId: hit.chunkId });
      continue;
    }
    if (kept.length >= limit) continue;
    const result = { hit, score, alsoIn: [] };
    kept.push(result);
    byTextHash.set(hit.textHash, result);
  }
  return kept;
}
