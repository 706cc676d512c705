/**
 * The store's file-level upkeep, on its LanceDB tables: rewriting every row (forgetting, redacting),
 * building the vector index, rolling back to the newest readable version (repair).
 */
import * as lancedb from '@lancedb/lancedb';
import { crashPoint } from '../files/crashPoints.js';
import path from 'node:path';
import { connectStore, isRemoteStore } from './connect.js';
import { HEAD_COLUMNS } from './storeRows.js';
import { CHUNKS_TABLE, SESSIONS_TABLE } from './storeSchema.js';
import { sweepUnreferencedFiles } from './storeSweep.js';

/**
 * Rewrites every row into new files and drops every older version and unreferenced file, so that
 * deleted or replaced text is in no file: LanceDB marks deleted rows in a deletion file and keeps
 * their bytes in the data file. The chunks are rewritten by compaction, which keeps the vector index
 * valid (it remaps the rows it moves): an update of every row would drop the index, and rebuilding it
 * takes minutes in a large store. Compaction rewrites a file once over 10% of its rows are deleted,
 * so one row in eight of every file is first moved (updated in place, in one commit) to push each
 * file past that line; the moved rows join the index at the optimize. Text indexes are brought up to
 * date by the same optimize. Call with the write lock held; safe to repeat after a crash.
 */
export async function rewriteEveryRow(chunks: lancedb.Table, sessions: lancedb.Table): Promise<void> {
  crashPoint('purge');
  // `_rowid` is the row's address (fragment << 32 | offset): `% 8` takes one row in eight of every file.
  if ((await chunks.countRows()) > 0) await chunks.update({ where: '_rowid % 8 = 0', valuesSql: { chunk_id: 'chunk_id' } });
  // A small table without a vector index: every row is simply written again.
  if ((await sessions.countRows()) > 0) await sessions.update({ where: 'true', valuesSql: { session_id: 'session_id' } });
  crashPoint('purge-rewritten');
  // Old versions' files go now. Files no version ever referenced are left alone (deleteUnverified
  // false): they can be a vector index that maintenance is building outside the write lock.
  const now = new Date();
  await chunks.optimize({ cleanupOlderThan: now, deleteUnverified: false });
  await sessions.optimize({ cleanupOlderThan: now, deleteUnverified: false });
}

/**
 * Builds the IVF-PQ (cosine) vector index on its own connection; returns the version it was committed
 * in. This takes minutes at 200k chunks, so on a folder it runs WITHOUT the write lock (on a shared
 * store the caller holds the write lease, maintenance.ts): saves go on meanwhile, and LanceDB commits
 * the index beside them (rows they add are searched by a flat scan until the next optimize folds them
 * in). A compaction committed meanwhile makes the index commit fail with a retryable conflict and
 * nothing else changes; the caller tries again later.
 */
export async function buildVectorIndexAt(uri: string, dim: number): Promise<number> {
  // Its own connection: a build holds its table handle for its whole run, and saves must not wait on it.
  const db = await connectStore(uri, { readConsistencyInterval: 0 });
  try {
    const table = await db.openTable(CHUNKS_TABLE);
    try {
      const rows = await table.countRows();
      await table.createIndex('vector', {
        config: lancedb.Index.ivfPq({ distanceType: 'cosine', numPartitions: Math.max(16, Math.round(Math.sqrt(rows))), numSubVectors: Math.max(1, Math.floor(dim / 16)) }),
      });
      return await table.version();
    } finally {
      table.close();
    }
  } finally {
    db.close();
  }
}

/**
 * Rolls the chunks table back to its newest version that can be read whole, as a new version, and
 * drops the versions (and with them the damaged files) that led past it. Every version is a whole
 * commit (chunks with their messages), so that state is consistent; what later commits added is gone
 * and comes back when those sessions are saved again. Returns the version restored, or null when none
 * can be read (the table is left as it is).
 */
export async function rollBackToNewestReadable(chunks: lancedb.Table): Promise<number | null> {
  const latest = await chunks.version();
  try {
    for (let version = latest - 1; version >= 1; version--) {
      try {
        await chunks.checkout(version);
        for await (const batch of chunks.query().select([...HEAD_COLUMNS, 'owned', 'text', 'vector'])) void batch;
      } catch {
        continue;
      }
      await chunks.restore();
      await chunks.checkoutLatest();
      await chunks.optimize({ cleanupOlderThan: new Date(), deleteUnverified: true });
      return version;
    }
    return null;
  } finally {
    await chunks.checkoutLatest();
  }
}

/**
 * After rewriteEveryRow: the files no version references, which a killed commit left (storeSweep.ts),
 * on a folder; on object storage the old versions' files, and then what the read cache holds of them.
 */
export async function pruneOldFiles(uri: string, chunks: lancedb.Table, sessions: lancedb.Table, pruneReadCache: () => Promise<number>): Promise<void> {
  if (!isRemoteStore(uri)) {
    for (const table of [CHUNKS_TABLE, SESSIONS_TABLE]) await sweepUnreferencedFiles(path.join(uri, `${table}.lance`));
    return;
  }
  // On object storage the files of every older version went with rewriteEveryRow. Files no version
  // ever referenced are left to LanceDB's own bound (`deleteUnverified: false`: removed once a week
  // old): they can be a vector index or a commit that a machine paused past its lease is still
  // writing, which would commit a version naming files removed under it. A commit killed mid-write
  // can so leave its objects (and its text) for up to that week.
  for (const table of [chunks, sessions]) await table.optimize({ cleanupOlderThan: new Date(), deleteUnverified: false });
  // The read cache may hold the removed files (and their text).
  await pruneReadCache();
}
