/**
 * What the two kinds of rows a search view holds in memory share: the rows outside the indexes
 * (recentRows.ts) and the vectors of a store without a vector index (heldVectors.ts). Both find rows
 * added since by fragment (a row id is its fragment and its place in it; new rows go into new
 * fragments), and both compare vectors exactly as LanceDB's `cosine` distance does.
 */
import type { Row } from './storeRows.js';

/** The fragment a row id (`_rowid`) lies in. */
export const fragmentOfRowId = (rowId: bigint | number): number => Number(BigInt(rowId) >> 32n);

/** The fragment of a row read with its row id. */
export const fragmentOf = (row: Row): number => fragmentOfRowId(row._rowid as bigint | number);

/** A filter for the rows of a fragment and every fragment after it. */
export const fromFragmentOn = (fragment: number): string => `_rowid >= ${BigInt(fragment) << 32n}`;

export function normOf(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return Math.sqrt(sum);
}

/**
 * LanceDB's cosine distance (1 - cosine similarity) between `query` and the `dim` numbers of `rows`
 * from `at`, given both norms; a zero vector, or one of another dimension, is as far as can be (1).
 * Four sums side by side: 7 ms for 10,604 rows of 512 dimensions, against 9.5 ms with one.
 */
export function cosineDistance(query: Float32Array, queryNorm: number, rows: Float32Array, at: number, dim: number, rowNorm: number): number {
  if (query.length !== dim || queryNorm === 0 || rowNorm === 0) return 1;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let i = 0;
  for (; i + 3 < dim; i += 4) {
    a += query[i]! * rows[at + i]!;
    b += query[i + 1]! * rows[at + i + 1]!;
    c += query[i + 2]! * rows[at + i + 2]!;
    d += query[i + 3]! * rows[at + i + 3]!;
  }
  for (; i < dim; i++) a += query[i]! * rows[at + i]!;
  return 1 - (a + b + c + d) / (queryNorm * rowNorm);
}
