/**
 * The one commit a save's chunk changes make: rows written and rows removed together (store.ts
 * `commit`), so that a save cut short leaves either all of them or none.
 */
import type * as lancedb from '@lancedb/lancedb';
import { crashPoint } from '../files/crashPoints.js';
import { sqlIn, sqlString, toRow, type ChunkRecord } from './storeRows.js';

export interface ChunkRemoval {
  sessionId: string;
  chunkIds?: readonly string[];
  /** Every other chunk of the session goes. */
  allOthers?: boolean;
  /**
   * The caller read, under the write lock, that no stored chunk has any of these ids (new chunks of
   * new messages). They are then appended instead of merged: a merge joins the new rows with the
   * chunk ids of the whole table, a read that grows with the store (on a bucket, a request per
   * fragment and more), where an append reads nothing. Such a call is not idempotent: the caller runs
   * it once, after reading the session's chunks again.
   */
  absent?: boolean;
}

/** Writes `upserts` (new ids inserted, existing ids replaced) and deletes the removed ids, in one commit. */
export async function commitChunkRows(chunks: lancedb.Table, upserts: readonly ChunkRecord[], remove: ChunkRemoval): Promise<void> {
  const removeIds = remove.chunkIds ?? [];
  if (upserts.length === 0) {
    if (remove.allOthers) await chunks.delete(`session_id = ${sqlString(remove.sessionId)}`);
    else if (removeIds.length > 0) await chunks.delete(sqlIn('chunk_id', removeIds));
    return;
  }
  crashPoint('commit');
  if (remove.absent && removeIds.length === 0 && !remove.allOthers) {
    await chunks.add(upserts.map(toRow));
  } else {
    let builder = chunks.mergeInsert('chunk_id').whenMatchedUpdateAll().whenNotMatchedInsertAll();
    if (remove.allOthers) builder = builder.whenNotMatchedBySourceDelete({ where: `session_id = ${sqlString(remove.sessionId)}` });
    else if (removeIds.length > 0) builder = builder.whenNotMatchedBySourceDelete({ where: sqlIn('chunk_id', removeIds) });
    await builder.execute(upserts.map(toRow));
  }
  crashPoint('committed');
}
