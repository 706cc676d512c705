/**
 * The LanceDB layer: the source of truth for everything saved.
 *
 * One row per chunk. A chunk row also carries the full record of each message whose first part it
 * holds (`owned`), so that a message and the chunk it lives in are written in the same commit:
 * a save cut short at any point leaves either both or neither.
 *
 * The tables and their columns are in storeSchema.ts, the row mapping in storeRows.ts, the sessions
 * table in storeSessions.ts, the read cache of a store on S3 in storeReadCache.ts, the
 * full-text layout in fullTextLayout.ts, lookups in storeLookups.ts, searches in storeSearch.ts and searchView.ts.
 */
import type * as lancedb from '@lancedb/lancedb';
import { crashPoint } from '../files/crashPoints.js';
import { ensureLanceThreads } from './connect.js';
import type { ObjectCacheEndpoint } from './objectCacheEndpoint.js';
import { StoreReadCache, type ReadCacheOptions } from './storeReadCache.js';
import { FTS_LAYOUT } from './fullTextLayout.js';
import { damagedDataFiles } from './storeDamage.js';
import { headColumns, headOf, readRows, rowsOf, inChunkOrder, PART_COLUMN, recordOf, sqlIn, sqlString, type ChunkHead, type ChunkRecord, type OwnedMessage, type SessionMeta, type StoreModelInfo } from './storeRows.js';
import { openStoreTables, readStoreModel } from './storeCreation.js';
import { ChunkIndexes } from './storeIndexes.js';
import { commitChunkRows, type ChunkRemoval } from './storeCommit.js';
import { sessionMeta, sessionMetas, upsertSession } from './storeSessions.js';
import { addPartColumn, upgradeLayout } from './storeUpgrade.js';
import { buildVectorIndexAt, pruneOldFiles, rewriteEveryRow, rollBackToNewestReadable } from './storeUpkeep.js';
import { chunksWithTextHashes, chunkTexts, ownedMessages, sessionVectors, storedTextHashes, vectorsByChunkId, vectorsByTextHash, type ChunkLocation } from './storeLookups.js';
import { SearchView, type SearchReads } from './searchView.js';
import { retryTransient } from './transient.js';

export { CJK_COLUMN, cjkText } from './fullTextLayout.js';
export { inChunkOrder, sqlString } from './storeRows.js';
export type { ChunkHead, ChunkRecord, OwnedKey, OwnedMessage, SessionMeta, StoreModelInfo, VectorHit } from './storeRows.js';
export { CHUNKS_TABLE } from './storeSchema.js';
export type { ChunkLocation } from './storeLookups.js';
export type { SearchReads } from './searchView.js';

export interface StoreOpenOptions {
  vectorIndexMinRows?: number;
  /** Takes the write lock while the store's tables are created (returns its release). */
  lockForCreation?: () => Promise<() => Promise<void>>;
  /**
   * Where searches keep the store's immutable objects on this machine's disk, and how many bytes at
   * most (objectCache.ts): used for a store on S3 (`s3://`, `s3+ddb://`); none, or 0 bytes: no cache.
   */
  readCache?: ReadCacheOptions;
}

/** Below this many chunks a flat vector scan is fast enough (and exact). */
export const VECTOR_INDEX_MIN_ROWS = 10_000;

/**
 * How long compaction keeps old versions: a reader in another process (the app, `watch`, an MCP
 * server) may still be reading one; an hour is far longer than any read takes.
 */
export const VERSION_RETENTION_MS = 60 * 60_000;

export class ChunkStore {
  private constructor(
    readonly db: lancedb.Connection,
    private chunks: lancedb.Table,
    private readonly sessions: lancedb.Table,
    readonly model: StoreModelInfo,
    readonly uri: string,
    private readonly meta: lancedb.Table,
    private ftsLayout: string | null,
    private readonly vectorIndexMinRows: number,
    private readonly cache: StoreReadCache,
  ) {}

  /**
   * Opens (or creates) the store at a LanceDB URI. The store remembers the model its vectors came
   * from; opening it with another model is refused, since vectors of two models cannot be compared.
   */
  static async open(uri: string, wanted: StoreModelInfo | ((stored: StoreModelInfo | null) => Promise<StoreModelInfo>), options: StoreOpenOptions = {}): Promise<ChunkStore> {
    ensureLanceThreads();
    // Another machine committing to a shared store at this moment can fail the opening once; it is tried again.
    const t = await retryTransient(() => openStoreTables(uri, wanted, options.lockForCreation));
    return new ChunkStore(t.db, t.chunks, t.sessions, t.model, uri, t.meta, t.ftsLayout, options.vectorIndexMinRows ?? VECTOR_INDEX_MIN_ROWS, new StoreReadCache(uri, options.readCache));
  }

  /** The model recorded in a store, without opening it for writing. */
  static async readModel(uri: string): Promise<StoreModelInfo | null> {
    ensureLanceThreads();
    return retryTransient(() => readStoreModel(uri));
  }

  close(): void {
    this.view?.close();
    this.cache.close();
    this.meta.close();
    this.chunks.close();
    this.sessions.close();
    this.db.close();
  }

  async version(): Promise<number> {
    return this.chunks.version();
  }

  /**
   * Every chunk of one session (no text, no vector), through the session_id index. `withMessages`:
   * each head also keeps the messages its chunk holds, unparsed (`messagesOf` reads them), so that a
   * save that rebuilds or reopens chunks does not read the same rows again (on a bucket, a request
   * per file and column, for each commit since the last compaction).
   */
  async sessionHeads(sessionId: string, withMessages = false): Promise<ChunkHead[]> {
    const rows = await readRows(this.chunks.query().where(`session_id = ${sqlString(sessionId)}`).select([...(await this.headColumns()), ...(withMessages ? ['owned'] : [])]));
    return inChunkOrder(rows.map((row) => (withMessages ? { ...headOf(row), ownedJson: String(row.owned) } : headOf(row))));
  }

  /**
   * The full messages kept in these chunks of a session: from the heads when they were read with
   * them (sessionHeads), else read from the store.
   */
  messagesOf(sessionId: string, heads: readonly ChunkHead[], chunkIds: readonly string[]): Promise<Map<string, OwnedMessage>> {
    const byId = new Map(heads.map((h) => [h.chunkId, h]));
    if (!chunkIds.every((id) => byId.get(id)?.ownedJson !== undefined)) return this.ownedMessages(sessionId, chunkIds);
    const found = new Map<string, OwnedMessage>();
    for (const id of chunkIds) for (const m of JSON.parse(byId.get(id)!.ownedJson!) as OwnedMessage[]) found.set(m.msgId, m);
    return Promise.resolve(found);
  }

  /** Full chunks of one session, in order. */
  async sessionChunks(sessionId: string, withVectors = false): Promise<ChunkRecord[]> {
    const columns = [...(await this.headColumns()), 'owned', 'text', ...(withVectors ? ['vector'] : [])];
    const rows = await readRows(this.chunks.query().where(`session_id = ${sqlString(sessionId)}`).select(columns));
    return inChunkOrder(rows.map((row) => recordOf(row, withVectors)));
  }

  private async headColumns(): Promise<string[]> {
    this.hasPart ??= (await this.chunks.schema()).fields.some((f) => f.name === PART_COLUMN);
    return headColumns(this.hasPart);
  }

  /** The full messages kept in these chunks of a session (for rebuilding chunks around an edit). */
  ownedMessages(sessionId: string, chunkIds: readonly string[]): Promise<Map<string, OwnedMessage>> {
    return ownedMessages(this.chunks, sessionId, chunkIds);
  }

  /**
   * Vectors already stored for these text hashes, in any session (or in `sessionId` only): a text is
   * embedded once per store, and a store holds one model's vectors, so the text hash is the key.
   */
  async vectorsByTextHash(textHashes: readonly string[], sessionId?: string): Promise<Map<string, Float32Array>> {
    if (sessionId !== undefined) return vectorsByTextHash(this.chunks, textHashes, sessionId);
    return this.throughReadCache((table) => vectorsByTextHash(table, textHashes));
  }

  /** The chunks of sessions other than `sessionId` that hold one of these texts (by hash), through the read cache (throughReadCache). */
  chunksWithTextHashes(textHashes: readonly string[], sessionId: string): Promise<ChunkLocation[]> {
    return this.throughReadCache((table) => chunksWithTextHashes(table, textHashes, sessionId));
  }

  /**
   * A lookup of stored rows by an index (text hashes, chunk ids) for a save, at the newest version.
   * On a store with a read cache, through the searches' handle: the index pages and the rows it reads
   * come from this machine's disk once read, however large the store. The store's own handle reads
   * the rows from the bucket at every save, and the index pages in every process (its index cache
   * starts empty): a lookup of n keys reads up to n pages of the index, which has more pages as the
   * store grows. Elsewhere, or when that fails, by the store's own handle.
   */
  private async throughReadCache<T>(read: (table: lancedb.Table) => Promise<T>): Promise<T> {
    if (await this.readCache().catch(() => null)) {
      try {
        return await this.searchView().lookup(read);
      } catch {
        // Read by the store's own handle below.
      }
    }
    return read(this.chunks);
  }

  /** The vectors of these sessions' chunks, or of all chunks when `sessionIds` is null, streamed (storeLookups.ts). */
  sessionVectors(sessionIds: readonly string[] | null): AsyncGenerator<{ chunkId: string; sessionId: string; vector: Float32Array }> {
    return sessionVectors(this.chunks, sessionIds);
  }

  /** Which of these text hashes some stored chunk has (a dry run's count of embeddings, without reading vectors). */
  storedTextHashes(textHashes: readonly string[]): Promise<Set<string>> {
    return storedTextHashes(this.chunks, textHashes);
  }

  /** The text and session of these chunks (those still stored). */
  chunkTexts(chunkIds: readonly string[]): Promise<Map<string, { sessionId: string; text: string }>> {
    return chunkTexts(this.chunks, chunkIds);
  }

  async chunk(chunkId: string): Promise<ChunkRecord | null> {
    const rows = await readRows(this.chunks.query().where(`chunk_id = ${sqlString(chunkId)}`).select([...(await this.headColumns()), 'owned', 'text', 'vector']).limit(1));
    const row = rows[0];
    return row ? recordOf(row, true) : null;
  }

  /**
   * Writes chunks and removes others in ONE commit (storeCommit.ts): new ids are inserted, existing
   * ids replaced, and the ids in `remove` deleted. Re-running the same call is harmless (idempotent),
   * except with `absent` (see ChunkRemoval).
   */
  async commit(upserts: readonly ChunkRecord[], remove: ChunkRemoval): Promise<void> {
    if (upserts.length === 0 && (remove.chunkIds ?? []).length === 0 && !remove.allOthers) return;
    if (upserts.length > 0) {
      // Rows carry the part column: a table from before it gets it first (the caller holds the write lock).
      if (this.hasPart !== true && (await addPartColumn(this.chunks))) this.indexes.forget();
      this.hasPart = true;
    }
    await commitChunkRows(this.chunks, upserts, remove);
    if (upserts.length > 0) await this.ensureIndexes();
  }

  upsertSession(meta: SessionMeta): Promise<void> {
    return upsertSession(this.sessions, meta);
  }

  sessionMetas(): Promise<Map<string, SessionMeta>> {
    return sessionMetas(this.sessions);
  }

  sessionMeta(sessionId: string): Promise<SessionMeta | null> {
    return sessionMeta(this.sessions, sessionId);
  }

  /** Streams the heads of every chunk (no text, no vector, no message content): for verify and record rebuilds. */
  async *allHeads(): AsyncGenerator<ChunkHead[]> {
    for await (const batch of this.chunks.query().select(await this.headColumns())) {
      const rows = rowsOf(batch);
      yield rows.map(headOf);
    }
  }

  /** The heads of the chunks a filter selects (no text, no vector). */
  async headsWhere(filter: string): Promise<ChunkHead[]> {
    const rows = await readRows(this.chunks.query().where(filter).select(await this.headColumns()));
    return rows.map(headOf);
  }

  async countChunks(filter?: string): Promise<number> {
    return this.chunks.countRows(filter);
  }

  /**
   * Runs a search's reads (nearest vectors, full text, ...) at one version of the store, the newest
   * when it began, on a handle of their own (searchView.ts).
   */
  searching<T>(search: (reads: SearchReads) => Promise<T>): Promise<T> {
    return this.searchView().run(search);
  }

  private searchView(): SearchView {
    this.view ??= new SearchView(this.uri, () => this.chunks.version(), (column) => this.indexes.has(column), async () => this.ftsLayout === FTS_LAYOUT && (await this.indexes.has('text')), () => this.readCache());
    return this.view;
  }

  private view: SearchView | null = null;

  /** The searches' read cache (storeReadCache.ts), started at the first search; null when the store has none. */
  readCache(): Promise<ObjectCacheEndpoint | null> {
    return this.cache.start();
  }

  /** Holds back the read cache's reading ahead (a save is coming) until the function returned is called. */
  holdReadAhead(): () => void {
    return this.cache.gate.hold();
  }

  /** Drops from the read cache every object the store no longer has (storeReadCache.ts); returns how many went. */
  pruneReadCache(): Promise<number> {
    return this.cache.prune();
  }

  /** After a write: the searches' view reads the rows outside the indexes at the newest version in the background (searchView.ts). */
  prepareSearch(): void {
    void this.view?.prepare().catch(() => {});
  }

  /** The vectors of these chunks (a save's near-duplicate candidates), through the read cache (throughReadCache). */
  vectorsByChunkId(chunkIds: readonly string[]): Promise<Map<string, Float32Array>> {
    return this.throughReadCache((table) => vectorsByChunkId(table, chunkIds));
  }

  private readonly indexes = new ChunkIndexes(() => this.chunks);
  /** Set once `upgrade()` found (or made) the current layout; a rollback clears it. */
  private upToDate = false;
  /** Whether the chunks table has the `part` column (a store not yet upgraded, or rolled back, has not); null: not looked yet. */
  private hasPart: boolean | null = null;

  /** Makes the indexes the store's layout needs that it lacks (storeIndexes.ts). */
  ensureIndexes(): Promise<void> {
    return this.indexes.ensure(this.ftsLayout);
  }

  /**
   * Brings a store written by an earlier version to the current layout. Call with the write lock
   * held, before writing. Every step can be repeated, and the layout is recorded only after the
   * last one, so a process killed half-way leaves a store that the next call finishes.
   */
  async upgrade(): Promise<void> {
    if (this.upToDate) return;
    await upgradeLayout(this.chunks, this.sessions, this.meta, async () => {
      this.indexes.forget();
      this.ftsLayout = FTS_LAYOUT;
      await this.ensureIndexes();
    });
    this.ftsLayout = FTS_LAYOUT;
    this.upToDate = true;
    this.hasPart = true;
  }

  /**
   * Compacts small fragments, brings every index up to date (new rows join the existing indexes)
   * and drops versions older than VERSION_RETENTION_MS. Call with the write lock held.
   */
  async optimize(): Promise<void> {
    crashPoint('optimize');
    await this.chunks.optimize({ cleanupOlderThan: new Date(Date.now() - VERSION_RETENTION_MS) });
    await this.sessions.optimize({ cleanupOlderThan: new Date(Date.now() - VERSION_RETENTION_MS) });
  }

  /**
   * Removes the sessions' rows, then every copy of them in the store's files (rewriteAndPrune). Call
   * with the write lock held; safe to repeat after a crash.
   */
  async purgeSessions(sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length > 0) {
      await this.chunks.delete(sqlIn('session_id', sessionIds));
      await this.sessions.delete(sqlIn('session_id', sessionIds));
    }
    await this.rewriteAndPrune();
  }

  /**
   * Rewrites every row into new files and drops every older version (see storeUpkeep.ts), then the
   * files no version references, which a killed commit left (storeSweep.ts; local stores only).
   */
  async rewriteAndPrune(): Promise<void> {
    await rewriteEveryRow(this.chunks, this.sessions);
    this.indexes.forget();
    await this.ensureIndexes();
    await pruneOldFiles(this.uri, this.chunks, this.sessions, () => this.pruneReadCache());
  }

  /**
   * Moves every table to its newest version: a reader in another process that still looks at a
   * version whose files a writer has since compacted away reads again from the current one.
   */
  async refresh(): Promise<void> {
    await Promise.all([this.chunks.checkoutLatest(), this.sessions.checkoutLatest(), this.meta.checkoutLatest()]);
    this.indexes.forget();
  }

  /** True when the store is large enough for a vector index and has none yet. */
  vectorIndexDue(): Promise<boolean> {
    return this.indexes.vectorIndexDue(this.vectorIndexMinRows);
  }

  /**
   * Builds the vector index once the store is large enough for a flat scan to be slow
   * (buildVectorIndexAt, storeUpkeep.ts). Returns the store version the index was committed in, or
   * null when there was nothing to do.
   */
  async buildVectorIndex(): Promise<number | null> {
    if (!(await this.vectorIndexDue())) return null;
    try {
      return await buildVectorIndexAt(this.uri, this.model.dim);
    } finally {
      this.indexes.forget();
    }
  }

  /**
   * Data files of the chunks table that are truncated (no Lance footer) or referenced by the current
   * version but missing. Local stores only; a remote URI reports nothing here.
   */
  async damagedFiles(): Promise<string[]> {
    return damagedDataFiles(this.uri);
  }

  /**
   * Rolls the chunks table back to its newest version that can be read whole (rollBackToNewestReadable,
   * storeUpkeep.ts). Returns the version restored, or null when none can be read.
   */
  async restoreNewestReadable(): Promise<number | null> {
    const restored = await rollBackToNewestReadable(this.chunks);
    if (restored !== null) {
      this.upToDate = false;
      this.indexes.forget();
      this.hasPart = null;
    }
    return restored;
  }

  async stats(): Promise<{ chunks: number; version: number; fragments: number }> {
    const stats = await this.chunks.stats();
    return { chunks: stats.numRows, version: await this.chunks.version(), fragments: stats.fragmentStats.numFragments };
  }
}
