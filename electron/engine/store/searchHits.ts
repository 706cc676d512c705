/**
 * A search's hits as the store reads them: the columns a hit is read with, the hit a row makes, and
 * the order hits rank in. Shared by the searches of the chunks table (storeSearch.ts) and of the rows
 * held outside its indexes (recentRows.ts).
 */
import { listOf, PART_COLUMN, vectorOf, type Row, type VectorHit } from './storeRows.js';

/** What a hit is read with: its place in its session (with `part` where the table has it), its text and its vector. */
export function hitColumns(hasPart: boolean): string[] {
  return [...candidateColumns(hasPart), 'text', 'vector'];
}

export function hitOf(r: Row, distance: number): VectorHit {
  return { ...placeOf(r, distance), text: String(r.text), vector: vectorOf(r.vector) };
}

/** What a hit and a candidate both read of a row: everything but the text and the vector. */
function placeOf(r: Row, distance: number): Omit<VectorHit, 'text' | 'vector'> {
  return {
    chunkId: String(r.chunk_id),
    sessionId: String(r.session_id),
    textHash: String(r.text_hash),
    msgIds: listOf(r.msg_ids),
    distance,
    seq: Number(r.seq),
    part: r[PART_COLUMN] == null ? -1 : Number(r[PART_COLUMN]),
  };
}

/**
 * What a candidate of a search's two pools is read with (search.ts): all that ranks it before the
 * cut to the first texts of each pool and what the fusion weighs (its text hash, session and
 * messages), and its place in its session, but not its text nor its vector, the two long columns.
 * Each row read is a ranged read of each column; a pool is 160 rows or more, of which the first 40
 * texts and their copies are kept (byDistinctText), and those are completed (candidateTexts).
 */
export function candidateColumns(hasPart: boolean): string[] {
  return ['chunk_id', 'session_id', 'seq', ...(hasPart ? [PART_COLUMN] : []), 'text_hash', 'msg_ids'];
}

/**
 * A candidate of a search as its pool reads it: a hit without its text and vector, and the row that
 * holds them at the version searched. A row held in memory (recentRows.ts) gives its whole hit.
 */
export interface Candidate extends Omit<VectorHit, 'text' | 'vector'> {
  /** The row's id at the version the search holds (LanceDB's `_rowid`), to take its text and vector. */
  rowId?: bigint;
  /** The whole hit, when the row was at hand (held in memory). */
  hit?: VectorHit;
}

export function candidateOf(r: Row, distance: number): Candidate {
  return { ...placeOf(r, distance), rowId: BigInt(r._rowid as bigint | number) };
}

/** The candidate of a hit already read in full. */
export function candidateOfHit(hit: VectorHit): Candidate {
  const { text: _text, vector: _vector, ...place } = hit;
  return { ...place, hit };
}

/**
 * Best first, and hits of equal distance or score (copies of one text, chunks that match a query
 * alike) by chunk id: LanceDB returns ties in the order it meets the rows, which a compaction or a
 * copy of the store changes, and the same store must rank the same way wherever it is.
 */
export function inStableOrder<T extends { chunkId: string; distance: number }>(hits: T[]): T[] {
  return hits.sort((a, b) => a.distance - b.distance || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
}
