/**
 * The chunks table as searches read it: a handle of its own, held at one version, so that the
 * queries of one search (nearest vectors, full text, the vectors and requests of its results) read
 * one state of the store and none of them first asks which version is the newest. The store's own
 * handle asks that before every query (so that it sees other processes' writes); on object storage
 * each asking is a round trip (a DynamoDB query for `s3+ddb://`, a listing for `s3://`) in front of
 * the query's own reads.
 *
 * A search is run at the version held while the store is asked for its newest version at the same
 * time. When the store has moved on, the view moves to the newest version and the search runs again
 * there (its first run is dropped), so a search always sees every commit made before it began, as
 * before. A search that fails at the version held (its files compacted away by another machine)
 * is run again at the newest one the same way.
 */
import type * as lancedb from '@lancedb/lancedb';
import { connectStore, isRemoteStore } from './connect.js';
import type { ObjectCacheEndpoint } from './objectCacheEndpoint.js';
import { chunksAfter, chunksBefore, chunksBeside, messagesAround, vectorsByChunkId, type ChunkPlace, type MessagesAround } from './storeLookups.js';
import { HeldVectors } from './heldVectors.js';
import { recentRowsOf, type RecentRows } from './recentRows.js';
import { PART_COLUMN, type VectorHit } from './storeRows.js';
import { CHUNKS_TABLE } from './storeSchema.js';
import { candidateOfHit, type Candidate } from './searchHits.js';
import { candidateTexts, requiredWordsIn, textCandidatesIn, textSearchFavouringIn, textSearchIn, vectorCandidatesIn, vectorSearchIn, type SearchTable } from './storeSearch.js';

/** Session filters whose required-word hits a view keeps for its version (past it, it starts again). */
const REQUIRED_WORDS_KEPT = 16;

/** How long the in-memory texts of an earlier version's rows outside the indexes are kept for searches still reading them. */
const RECENT_RETIRED_MS = 30_000;

/** The reads of a search, all at one version of the chunks table. */
export interface SearchReads {
  /** Nearest chunks by cosine distance (storeSearch.ts). */
  vectorSearch(vector: Float32Array, limit: number, sessionId?: string, excludeChunkId?: string): Promise<VectorHit[]>;
  /** Full-text search, with each hit's vector (storeSearch.ts). */
  textSearch(text: string, limit: number, sessionId?: string): Promise<VectorHit[]>;
  /** vectorSearch's hits without their texts and vectors, which candidateTexts reads for those kept (storeSearch.ts). */
  vectorCandidates(vector: Float32Array, limit: number, sessionId?: string): Promise<Candidate[]>;
  /** textSearch's hits without their texts and vectors, which candidateTexts reads for those kept (storeSearch.ts). */
  textCandidates(text: string, limit: number, sessionId?: string): Promise<Candidate[]>;
  /** The whole hits of lists of candidates, in one read (storeSearch.ts). */
  candidateTexts(lists: ReadonlyArray<readonly Candidate[]>): Promise<VectorHit[][]>;
  /**
   * Full-text candidates for chunks that hold one of the `required` words, ranked by the words of
   * `text` too, with their vectors; none in a store whose text has no word index (storeSearch.ts).
   */
  textSearchFavouring(required: string, text: string, limit: number, sessionId?: string): Promise<VectorHit[]>;
  /**
   * The best `limit` chunks by the `required` words alone, with their vectors: the same for every
   * question, so read once per version of the store; none in a store whose text has no word index.
   */
  requiredWordHits(required: string, limit: number, sessionId?: string): Promise<VectorHit[]>;
  vectorsByChunkId(chunkIds: readonly string[]): Promise<Map<string, Float32Array>>;
  /** For each chunk place given, its first message and the messages just before and just after it in its session (storeLookups.ts). */
  messagesAround(places: ReadonlyArray<ChunkPlace>): Promise<MessagesAround[]>;
  /** For each chunk place given, the nearest chunk after it in its session that starts with another message (storeLookups.ts). */
  chunksAfter(places: ReadonlyArray<ChunkPlace>): Promise<Array<VectorHit | undefined>>;
  /** For each chunk place given, the nearest chunk before it in its session that holds another message (storeLookups.ts). */
  chunksBefore(places: ReadonlyArray<ChunkPlace>): Promise<Array<VectorHit | undefined>>;
  /** chunksAfter of the places `after` and chunksBefore of `before`, in one read (storeLookups.ts). */
  chunksBeside(after: ReadonlyArray<ChunkPlace>, before: ReadonlyArray<ChunkPlace>): Promise<{ after: Array<VectorHit | undefined>; before: Array<VectorHit | undefined> }>;
  /** How many rows outside the indexes the searches read from memory (recentRows.ts); 0 when none or when they read them in the table. */
  recentRows: number;
  /** How many vectors the nearest-vector candidates are compared with in memory (heldVectors.ts): every row of a store without a vector index; 0 when read in the table. */
  heldVectors: number;
}

export class SearchView {
  private table: Promise<lancedb.Table> | null = null;
  private part: { version: number; has: boolean } | null = null;
  private requiredWords: { version: number; hits: Map<string, Promise<VectorHit[]>> } | null = null;
  private recent: { version: number; rows: Promise<RecentRows | null> } | null = null;
  /** The rows outside the indexes at the last version that had any: the next version reads only what changed since. */
  private recentBefore: RecentRows | null = null;
  /** The vectors of a store without a vector index at a version (heldVectors.ts): `ready` once read. */
  private held: { version: number; read: Promise<void>; ready: HeldVectors | null } | null = null;
  /** Searches this view has served: the vectors are held from its second on. */
  private searches = 0;
  /** Those of the last version that had them: the next version reads only the rows added since. */
  private heldBefore: HeldVectors | null = null;
  private db: lancedb.Connection | null = null;
  private closed = false;

  constructor(
    private readonly uri: string,
    /** The store's newest version (asked of the store's own handle). */
    private readonly newestVersion: () => Promise<number>,
    /** Whether the chunks table has an index on a column (the store keeps the answer). */
    private readonly hasIndex: (column: string) => Promise<boolean>,
    /** Whether `text` has the word index (not the n-gram index of an older layout). */
    private readonly hasWordIndex: () => Promise<boolean>,
    /** The read cache the view's connection reads the store through (a store on S3 with a cache folder), or none. */
    private readonly readCache: () => Promise<ObjectCacheEndpoint | null> = async () => null,
  ) {
    this.remote = isRemoteStore(uri);
  }

  /** Whether the store is in a bucket, where each column a search reads costs requests. */
  private readonly remote: boolean;

  /** Runs `search` with reads at the store's newest version (see above). */
  async run<T>(search: (reads: SearchReads) => Promise<T>): Promise<T> {
    const newest = this.newestVersion();
    // Asked at once: a failed run is only known after the answer, and must not be left unhandled.
    newest.catch(() => {});
    const table = await this.open();
    const held = await table.version();
    const first = this.readsOf(table, held).then(search).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    if ((await newest) > held) {
      await table.checkoutLatest();
      return search(await this.readsOf(table, await table.version()));
    }
    const result = await first;
    if (!result.ok) throw result.error;
    return result.value;
  }

  /**
   * Runs a lookup that is not a search (a save's reuse of stored vectors) on the view's handle, at
   * the store's newest version, so that it reads the store's files through the read cache as the
   * searches do. The rows outside the indexes are not read for it.
   */
  async lookup<T>(read: (table: lancedb.Table) => Promise<T>): Promise<T> {
    const newest = this.newestVersion();
    newest.catch(() => {});
    const table = await this.open();
    if ((await newest) > (await table.version())) await table.checkoutLatest();
    return read(table);
  }

  /**
   * Moves to the newest version and reads its rows outside the indexes, ahead of the next search (a
   * save calls it). Nothing when no search has opened the view yet, or the view holds the newest.
   */
  async prepare(): Promise<void> {
    if (this.closed || !this.table) return;
    const table = await this.table;
    if ((await this.newestVersion()) <= (await table.version())) return;
    await table.checkoutLatest();
    const version = await table.version();
    const hasPart = await this.hasPartAt(table, version);
    await Promise.all([this.recentAt(table, version, hasPart), this.holding() ? this.readHeld(table, version, hasPart) : undefined]);
  }

  close(): void {
    this.closed = true;
    this.recentBefore?.close();
    this.recentBefore = null;
    this.recent = null;
    this.held = null;
    this.heldBefore = null;
    void this.table?.then((t) => t.close(), () => {});
    this.table = null;
    this.db?.close();
    this.db = null;
  }

  private open(): Promise<lancedb.Table> {
    if (this.closed) throw new Error('the store is closed');
    this.table ??= (async () => {
      this.part = null;
      this.requiredWords = null;
      this.recent = null;
      this.recentBefore?.close();
      this.recentBefore = null;
      this.held = null;
      this.heldBefore = null;
      // No read consistency interval: the handle stays at the version it holds until moved on (run()).
      const cache = await this.readCache();
      this.db = await connectStore(this.uri, {}, cache ? (options) => cache.storageOptions(options) : undefined);
      return this.db.openTable(CHUNKS_TABLE);
    })();
    this.table.catch(() => (this.table = null));
    return this.table;
  }

  /** Whether the table has the `part` column at the version held (asked again when the view moves on). */
  private async hasPartAt(table: lancedb.Table, version: number): Promise<boolean> {
    if (this.part?.version !== version) this.part = { version, has: (await table.schema()).fields.some((f) => f.name === PART_COLUMN) };
    return this.part.has;
  }

  /**
   * The chunks that hold the required words alone (the standing wishes' second query) at a version:
   * the same for every request until the store moves on, so read once per version (and session
   * filter), and given to each search as copies.
   */
  private async requiredWordsAt(chunks: SearchTable, version: number, required: string, limit: number, sessionId: string | undefined): Promise<VectorHit[]> {
    if (this.requiredWords?.version !== version || this.requiredWords.hits.size >= REQUIRED_WORDS_KEPT) this.requiredWords = { version, hits: new Map() };
    const cache = this.requiredWords.hits;
    const key = JSON.stringify([required, limit, sessionId ?? null]);
    let hits = cache.get(key);
    if (!hits) {
      hits = requiredWordsIn(chunks, required, limit, sessionId);
      cache.set(key, hits);
      hits.catch(() => cache.delete(key));
    }
    return (await hits).map((hit) => ({ ...hit }));
  }

  /**
   * The rows outside the indexes at a version (recentRows.ts), read once per version; null when the
   * searches read them in the table. When reading them fails, or the handle moved on to a newer
   * version meanwhile (another search's), the searches at that version read the table.
   */
  private recentAt(table: lancedb.Table, version: number, hasPart: boolean): Promise<RecentRows | null> {
    if (this.recent?.version === version) return this.recent.rows;
    const entry = { version, rows: Promise.resolve<RecentRows | null>(null) };
    entry.rows = (async () => {
      const rows = await recentRowsOf(table, hasPart, await this.hasWordIndex(), this.recentBefore);
      const before = this.recentBefore;
      if (rows !== null || before !== null) {
        this.recentBefore = rows;
        // The in-memory table of an earlier version's rows, once no later version shares it, goes
        // when the searches still reading it are done.
        if (before && !(rows?.sharesTextsWith(before) ?? false)) setTimeout(() => before.close(), RECENT_RETIRED_MS).unref();
      }
      if ((await table.version()) !== version) throw new Error('the search handle moved on while the rows outside the indexes were read');
      return rows;
    })().catch(() => null);
    this.recent = entry;
    return entry.rows;
  }

  /**
   * Whether this view holds the vectors of a store without a vector index (heldVectors.ts): from its
   * second search on. Reading every vector takes longer than one search reading them in the table (0.5
   * s against 0.15 s at 10,604 chunks), which a one-off search (`session-memory search`) would pay;
   * the app, `watch` and the MCP server search again, and each later version reads only what was added.
   */
  private holding(): boolean {
    return this.searches >= 2 || this.heldBefore !== null;
  }

  /**
   * Reads the vectors at a version, once; a search at that version uses them once read, and reads the
   * table until then. When reading them fails, or the handle moved on meanwhile, none are held for it.
   */
  private readHeld(table: lancedb.Table, version: number, hasPart: boolean): Promise<void> {
    if (this.held?.version === version) return this.held.read;
    const entry: { version: number; read: Promise<void>; ready: HeldVectors | null } = { version, read: Promise.resolve(), ready: null };
    entry.read = (async () => {
      const held = await HeldVectors.of(table, hasPart, this.heldBefore);
      // Not kept when the handle moved on, or the view was closed or opened again meanwhile.
      if ((await table.version()) !== version || this.held !== entry) return;
      entry.ready = held;
      this.heldBefore = held;
    })().catch(() => {});
    this.held = entry;
    return entry.read;
  }

  private async readsOf(table: lancedb.Table, version: number): Promise<SearchReads> {
    const hasPart = await this.hasPartAt(table, version);
    const recent = await this.recentAt(table, version, hasPart);
    this.searches++;
    if (this.holding()) void this.readHeld(table, version, hasPart);
    const held = this.held?.version === version ? this.held.ready : null;
    const chunks: SearchTable = { table, hasPart, recent };
    return {
      recentRows: chunks.recent?.rows ?? 0,
      heldVectors: held?.rows ?? 0,
      vectorSearch: (vector, limit, sessionId, excludeChunkId) => vectorSearchIn(chunks, vector, limit, sessionId, excludeChunkId),
      textSearch: (text, limit, sessionId) => textSearchIn(chunks, this.hasIndex, text, limit, sessionId),
      // On a bucket each column of a row read is a ranged read: the pools leave out the texts and
      // vectors, read after the cut for the candidates kept. In a folder a read costs no request, and
      // one query is quicker than two: the pools are read whole, as hits at hand.
      // Without a vector index, from the vectors held in memory (heldVectors.ts).
      vectorCandidates: async (vector, limit, sessionId) =>
        held ? held.nearest(vector, limit, sessionId) : this.remote ? vectorCandidatesIn(chunks, vector, limit, sessionId) : (await vectorSearchIn(chunks, vector, limit, sessionId)).map(candidateOfHit),
      textCandidates: async (text, limit, sessionId) =>
        this.remote ? textCandidatesIn(chunks, this.hasIndex, text, limit, sessionId) : (await textSearchIn(chunks, this.hasIndex, text, limit, sessionId)).map(candidateOfHit),
      candidateTexts: (lists) => candidateTexts(chunks, lists),
      textSearchFavouring: async (required, text, limit, sessionId) =>
        (await this.hasWordIndex()) ? textSearchFavouringIn(chunks, required, text, limit, sessionId, this.requiredWordsAt(chunks, version, required, limit, sessionId)) : [],
      requiredWordHits: async (required, limit, sessionId) => ((await this.hasWordIndex()) ? this.requiredWordsAt(chunks, version, required, limit, sessionId) : []),
      vectorsByChunkId: (chunkIds) => vectorsByChunkId(table, chunkIds),
      messagesAround: (places) => messagesAround(chunks, places),
      chunksAfter: (places) => chunksAfter(chunks, places),
      chunksBefore: (places) => chunksBefore(chunks, places),
      chunksBeside: (after, before) => chunksBeside(chunks, after, before),
    };
  }
}
