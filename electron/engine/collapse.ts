/**
 * Each memory once in search results: a hit whose text is identical to a better hit's (same text
 * hash), or nearly identical (cosine similarity of their vectors at least the threshold), is folded
 * into that hit as one of its `alsoIn` copies instead of taking a place of its own. The list is filled
 * with distinct results up to the limit; copies found further down still join the result they copy.
 */
import type { AlsoIn } from '../../shared/domain.js';

/** Cosine similarity from which two chunk texts count as the same memory. */
export const NEAR_DUPLICATE_SIMILARITY = 0.97;

export interface CollapsibleHit {
  chunkId: string;
  sessionId: string;
  textHash: string;
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

/** `ranked` best first; returns at most `limit` distinct results, best first, each with its copies. */
export function collapseDuplicates<T extends CollapsibleHit>(ranked: ReadonlyArray<{ hit: T; score: number }>, limit: number, threshold = NEAR_DUPLICATE_SIMILARITY): Array<Collapsed<T>> {
  const kept: Array<Collapsed<T>> = [];
  const byTextHash = new Map<string, Collapsed<T>>();
  for (const { hit, score } of ranked) {
    const same =
      byTextHash.get(hit.textHash) ??
      (hit.vector && hit.vector.length > 0 ? kept.find((k) => k.hit.vector && k.hit.vector.length === hit.vector!.length && cosine(k.hit.vector, hit.vector!) >= threshold) : undefined);
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
