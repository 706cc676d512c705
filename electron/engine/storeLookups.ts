/**
 * Lookups across sessions on the chunks table: which other chunks hold a text, which lie nearest a
 * vector. They serve the near-duplicate check of every save (nearDuplicates.ts) and the dry runs of
 * an import preview, so they read only the columns they need.
 */
import type * as lancedb from '@lancedb/lancedb';
import { sqlIn, sqlString, type Row } from './storeRows.js';

export interface ChunkLocation {
  chunkId: string;
  sessionId: string;
  textHash: string;
}

export interface Neighbour {
  chunkId: string;
  sessionId: string;
  /** Cosine distance (1 - similarity). */
  distance: number;
}

/** Query vectors per LanceDB search. */
const QUERY_BATCH = 256;

/** The chunks of sessions other than `sessionId` that hold one of these texts (by hash). */
export async function chunksWithTextHashes(chunks: lancedb.Table, textHashes: readonly string[], sessionId: string): Promise<ChunkLocation[]> {
  const found: ChunkLocation[] = [];
  for (let i = 0; i < textHashes.length; i += 500) {
    const rows = (await chunks
      .query()
      .where(`${sqlIn('text_hash', textHashes.slice(i, i + 500))} AND session_id != ${sqlString(sessionId)}`)
      .select(['chunk_id', 'session_id', 'text_hash'])
      .toArray()) as Row[];
    for (const row of rows) found.push({ chunkId: String(row.chunk_id), sessionId: String(row.session_id), textHash: String(row.text_hash) });
  }
  return found;
}

/**
 * For each vector, at most `k` chunks of other sessions than `sessionId` whose cosine distance is at
 * most `maxDistance`, nearest first. Many vectors go into one search (`addQueryVector`). Without a
 * vector index the flat scan skips the session's own rows (a prefilter); with one, the index is
 * searched first and the session's rows are dropped after, since filtering every row before an
 * index search costs several times the search itself (measured at 100k rows).
 */
export async function nearestInOtherSessions(chunks: lancedb.Table, indexed: boolean, vectors: readonly Float32Array[], sessionId: string, maxDistance: number, k: number): Promise<Neighbour[][]> {
  const results = vectors.map(() => [] as Neighbour[]);
  for (let start = 0; start < vectors.length; start += QUERY_BATCH) {
    const batch = vectors.slice(start, start + QUERY_BATCH);
    let query = chunks.vectorSearch(Array.from(batch[0]!));
    for (const vector of batch.slice(1)) query = query.addQueryVector(Array.from(vector));
    query = query.distanceType('cosine').distanceRange(undefined, maxDistance).where(`session_id != ${sqlString(sessionId)}`).select(['chunk_id', 'session_id', '_distance']);
    // A near duplicate lies in its copy's partition or the next: a few probes find it, and the
    // candidates' exact distances are computed again from their full vectors.
    query = indexed ? query.nprobes(4).refineFactor(2).limit(k + 2).postfilter() : query.limit(k);
    const rows = (await query.toArray()) as Row[];
    for (const row of rows) {
      // A search for one vector has no query_index column.
      const list = results[start + (batch.length === 1 ? 0 : Number(row.query_index))]!;
      list.push({ chunkId: String(row.chunk_id), sessionId: String(row.session_id), distance: Number(row._distance) });
    }
  }
  for (const list of results) {
    list.sort((a, b) => a.distance - b.distance);
    list.length = Math.min(list.length, k);
  }
  return results;
}

/** Which of these text hashes some stored chunk has. */
export async function storedTextHashes(chunks: lancedb.Table, textHashes: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < textHashes.length; i += 500) {
    const rows = (await chunks.query().where(sqlIn('text_hash', textHashes.slice(i, i + 500))).select(['text_hash']).toArray()) as Row[];
    for (const row of rows) found.add(String(row.text_hash));
  }
  return found;
}

/** The text and session of these chunks (those still stored). */
export async function chunkTexts(chunks: lancedb.Table, chunkIds: readonly string[]): Promise<Map<string, { sessionId: string; text: string }>> {
  const found = new Map<string, { sessionId: string; text: string }>();
  for (let i = 0; i < chunkIds.length; i += 500) {
    const rows = (await chunks.query().where(sqlIn('chunk_id', chunkIds.slice(i, i + 500))).select(['chunk_id', 'session_id', 'text']).toArray()) as Row[];
    for (const row of rows) found.set(String(row.chunk_id), { sessionId: String(row.session_id), text: String(row.text) });
  }
  return found;
}
