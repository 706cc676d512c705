/**
 * A search's hits as the store reads them: the columns a hit is read with, the hit a row makes, and
 * the order hits rank in. Shared by the searches of the chunks table (storeSearch.ts) and of the rows
 * held outside its indexes (recentRows.ts).
 */
import { listOf, PART_COLUMN, vectorOf, type Row, type VectorHit } from './storeRows.js';

/** What a hit is read with: its place in its session (with `part` where the table has it), its text and its vector. */
export function hitColumns(hasPart: boolean): string[] {
  return ['chunk_id', 'session_id', 'seq', ...(hasPart ? [PART_COLUMN] : []), 'text', 'text_hash', 'msg_ids', 'vector'];
}

export function hitOf(r: Row, distance: number): VectorHit {
  return {
    chunkId: String(r.chunk_id),
    sessionId: String(r.session_id),
    text: String(r.text),
    textHash: String(r.text_hash),
    msgIds: listOf(r.msg_ids),
    distance,
    seq: Number(r.seq),
    part: r[PART_COLUMN] == null ? -1 : Number(r[PART_COLUMN]),
    vector: vectorOf(r.vector),
  };
}

/**
 * Best first, and hits of equal distance or score (copies of one text, chunks that match a query
 * alike) by chunk id: LanceDB returns ties in the order it meets the rows, which a compaction or a
 * copy of the store changes, and the same store must rank the same way wherever it is.
 */
export function inStableOrder(hits: VectorHit[]): VectorHit[] {
  return hits.sort((a, b) => a.distance - b.distance || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
}
