/**
 * Lookups across sessions on the chunks table: which other chunks hold a text, which lie nearest a
 * vector. They serve the near-duplicate check of every save (nearDuplicates.ts) and the dry runs of
 * an import preview, so they read only the columns they need.
 */
import type * as lancedb from '@lancedb/lancedb';
import { cosine } from './collapse.js';
import { sqlIn, sqlString, vectorOf, type Row } from './storeRows.js';

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
 * most `maxDistance`, nearest first, with exact distances.
 *
 * With a vector index: one LanceDB search for many vectors (`addQueryVector`), 4 partitions probed
 * (a near copy lies in its original's partition or the next), the session's own rows dropped after
 * the search (filtering every row first costs several times the search), and the candidates'
 * distances computed here from their full vectors (LanceDB's distance range applies to the
 * index's approximate distances and lost true copies when tried).
 * Without one (a store under VECTOR_INDEX_MIN_ROWS, or one whose index is not built yet): the other
 * sessions' vectors are read once, in batches, and compared here. LanceDB's flat search re-reads the
 * table for every query vector (about 3 µs a row each time, measured), which for a save's hundreds of
 * new chunks costs far more than reading it once.
 */
export async function nearestInOtherSessions(chunks: lancedb.Table, indexed: string | null, vectors: readonly Float32Array[], sessionId: string, maxDistance: number, k: number): Promise<Neighbour[][]> {
  const results = vectors.map(() => [] as Neighbour[]);
  if (vectors.length === 0) return results;
  const others = `session_id != ${sqlString(sessionId)}`;
  if ((await chunks.countRows(others)) === 0) return results;
  const minSimilarity = 1 - maxDistance;
  /** Keeps a stored chunk for vector `at` when close enough (`who` names it, read only then). */
  const consider: Consider = (at, similarity, who) => {
    if (similarity < minSimilarity) return;
    const [chunkId, otherSession] = who();
    results[at]!.push({ chunkId, sessionId: otherSession, distance: Math.max(0, 1 - similarity) });
  };
  if (indexed !== null) {
    // Rows added since the index was last updated are not in it: LanceDB would scan them flat for
    // every query vector (12 ms a query with 2.5k such rows in a 100k store, measured). The index is
    // searched alone (`fastSearch`) and those rows, the newest by creation time, are compared here.
    // Statistics without the index's centroids (LanceDB warns that it includes them unless told).
    process.env.LANCE_INCLUDE_VECTOR_CENTROIDS ??= 'false';
    const unindexed = (await chunks.indexStats(indexed))?.numUnindexedRows ?? 0;
    for (let start = 0; start < vectors.length; start += QUERY_BATCH) {
      const batch = vectors.slice(start, start + QUERY_BATCH);
      let query = chunks.vectorSearch(Array.from(batch[0]!));
      for (const vector of batch.slice(1)) query = query.addQueryVector(Array.from(vector));
      const rows = (await query.distanceType('cosine').nprobes(4).limit(k + 2).fastSearch().postfilter().where(others).select(['chunk_id', 'session_id', 'vector', '_distance']).toArray()) as Row[];
      for (const row of rows) {
        // A search for one vector has no query_index column.
        const at = start + (batch.length === 1 ? 0 : Number(row.query_index));
        consider(at, cosine(vectors[at]!, vectorOf(row.vector)), () => [String(row.chunk_id), String(row.session_id)]);
      }
    }
    if (unindexed > 0) await scanRows(chunks, `${others} AND created_at >= ${await newestCreatedAt(chunks, unindexed)}`, vectors, consider);
  } else {
    await scanRows(chunks, others, vectors, consider);
  }
  // A row can come from both the index and the newest rows: each once, nearest first.
  return results.map((list) => [...new Map(list.sort((a, b) => a.distance - b.distance).map((n) => [n.chunkId, n] as const)).values()].slice(0, k));
}

/** Compares every row matching `filter` with every vector, reading the rows once, in batches. */
type Consider = (at: number, similarity: number, who: () => [chunkId: string, sessionId: string]) => void;

async function scanRows(chunks: lancedb.Table, filter: string, vectors: readonly Float32Array[], consider: Consider): Promise<void> {
  const norms = vectors.map(norm);
  for await (const batch of chunks.query().where(filter).select(['chunk_id', 'session_id', 'vector'])) {
    const ids = batch.getChild('chunk_id')!;
    const sessions = batch.getChild('session_id')!;
    const column = batch.getChild('vector')!;
    for (let row = 0; row < batch.numRows; row++) {
      const stored = vectorOf(column.get(row));
      const storedNorm = norm(stored);
      if (storedNorm === 0) continue;
      const who = (): [string, string] => [String(ids.get(row)), String(sessions.get(row))];
      for (let q = 0; q < vectors.length; q++) consider(q, dot(vectors[q]!, stored) / (norms[q]! * storedNorm || 1), who);
    }
  }
}

/** The creation time from which the `count` newest rows were written. */
async function newestCreatedAt(chunks: lancedb.Table, count: number): Promise<number> {
  const times: number[] = [];
  for await (const batch of chunks.query().select(['created_at'])) {
    const column = batch.getChild('created_at')!;
    for (let row = 0; row < batch.numRows; row++) times.push(Number(column.get(row)));
  }
  times.sort((a, b) => b - a);
  return times[Math.min(count, times.length) - 1] ?? 0;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum0 = 0;
  let sum1 = 0;
  let sum2 = 0;
  let sum3 = 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  for (; i + 3 < n; i += 4) {
    sum0 += a[i]! * b[i]!;
    sum1 += a[i + 1]! * b[i + 1]!;
    sum2 += a[i + 2]! * b[i + 2]!;
    sum3 += a[i + 3]! * b[i + 3]!;
  }
  for (; i < n; i++) sum0 += a[i]! * b[i]!;
  return sum0 + sum1 + sum2 + sum3;
}

const norm = (v: Float32Array): number => Math.sqrt(dot(v, v));

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
