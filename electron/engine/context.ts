/**
 * What the engine's parts share: its options, and the context each part (save pipeline,
 * maintenance, search, verify) is handed by the `MemoryEngine` facade instead of the engine itself.
 */
import type { SaveOptions, SaveProgress } from '../../shared/domain.js';
import type { DownloadProgress, Embedder } from '../embedding/embedder.js';
import type { Logger } from './files/logger.js';
import type { RecordCache } from './record/recordCache.js';
import type { SaveHistory } from './record/history.js';
import type { StoreState } from './record/storeState.js';
import type { ForgottenMarks } from './privacy/forgottenMarks.js';
import type { ChunkStore } from './store/store.js';
import type { PairJournal } from './duplicates/pairJournal.js';
import type { VectorSketch } from './duplicates/vectorSketch.js';
import type { SaveTimings } from './save/saveTimings.js';


/** Default of `writeBatchChunks`. */
export const WRITE_BATCH_CHUNKS = 64;

export interface MemoryEngineOptions {
  /** Local directory for the archive record, the save history, the write lock and downloaded models. */
  dataDir: string;
  /** LanceDB URI of the store. Default: `<dataDir>/lancedb`. */
  storeUri?: string;
  /** Embedding model: a name, `use-lite-en`, or a local model folder. Default: the store's model, else `$SESSION_MEMORY_MODEL`, else the multilingual default. */
  model?: string;
  /** Where models are built or downloaded. Default: `<dataDir>/models`. */
  modelsDir?: string;
  /** An embedder to use instead of starting one (it must match the store's model). */
  embedder?: Embedder;
  /**
   * The store is shared but only this machine writes to it: an `s3://` store whose server lacks
   * conditional writes is used all the same (see store/writeGuard.ts).
   */
  singleWriter?: boolean;
  /** How long a save waits for another process's save to finish. Default 60 s. */
  lockWaitMs?: number;
  /** Chunks per store commit while a long save streams in (commits overlap with embedding). Default 64. */
  writeBatchChunks?: number;
  /** Compact the store after this many commits (more in a large store, see optimizeInterval). Default 16. */
  optimizeEvery?: number;
  /** Archive records of at least this many bytes take a save's changes in their journal (recordCache.ts). Default 64 KiB. */
  recordJournalFromBytes?: number;
  /**
   * Bytes at most of the store's immutable objects (data and index files) the searches keep on this
   * machine's disk, in `<dataDir>/object-cache` (store/objectCache.ts), for a store on S3. Default:
   * `$SESSION_MEMORY_READ_CACHE_MB` megabytes, else 1 GiB; 0: no cache.
   */
  readCacheBytes?: number;
  /** Chunks from which `maintain` builds a vector index. Default VECTOR_INDEX_MIN_ROWS (10k). */
  vectorIndexMinRows?: number;
  /** Look up each save's new chunks in the other sessions for `duplicates` (nearDuplicates.ts). Default true; off only to measure what it costs. */
  nearDuplicates?: boolean;
  /**
   * Told how long each save's near-duplicate check took after its commit, and how long its code
   * comparisons took while the chunks were still being embedded (the benchmark's `nearDupOverhead`).
   */
  onNearDuplicateCheck?: (ms: number, duringEmbeddingMs: number) => void;
  /** Told where each save's time went, phase by phase (save/saveTimings.ts; the benchmarks read it). */
  onSaveTimings?: (timings: SaveTimings) => void;
  logger?: Logger;
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** The embedding worker script (a packaged build passes its compiled one). */
  embedWorkerUrl?: URL;
  /**
   * What the layers above the engine keep of sessions in the data folder (the sources' cursors), so
   * that a forget drops it too: on this machine when the forget runs, and on every machine sharing
   * the store when it next opens it (privacy/localTraces.ts). The engine never imports those layers.
   */
  localTraces?: LocalTraces;
}

/** What a layer above the engine keeps of sessions in the data folder (see `localTraces`). */
export interface LocalTraces {
  /** The sessions it keeps something of. */
  sessions(dataDir: string): Promise<string[]>;
  /** The paths of the files these sessions came from, as it knows them: the logs lose their lines too. */
  paths(dataDir: string, sessionIds: readonly string[]): Promise<string[]>;
  /** Drops what it keeps of these forgotten sessions (the write lock is held; can be repeated). */
  drop(dataDir: string, sessionIds: readonly string[]): Promise<void>;
  /** A person saves a forgotten session again on purpose: this machine lifts its own marks of it too. */
  restore?(dataDir: string, sessionIds: readonly string[]): Promise<void>;
}

export interface SaveCallOptions extends SaveOptions {
  onProgress?: (progress: SaveProgress) => void;
  signal?: AbortSignal;
  /**
   * Set when the input is known to lack parts of its file (damaged lines skipped), saying which: the
   * save then adds and updates only, whatever `mode` and `syncDeletes` ask, so that no stored message
   * is deleted because its line could not be read (the report's mode says `incremental` and a warning why).
   */
  incomplete?: string;
  /**
   * With `syncDeletes`: which stored messages the input lacks may be deleted (by default all of them).
   * Sources pass what the tool itself dropped (a rewind), so that a message the input lacks only
   * because of what was asked to be included (tool calls, thinking) stays.
   */
  deletable?: (msgId: string) => boolean;
  /** The caller holds the write lock and has finished any pending forget or purge (forgetting messages, redact). */
  lockHeld?: boolean;
}

/** One engine's state as its parts see it. */
export interface EngineContext {
  readonly dataDir: string;
  readonly store: ChunkStore;
  readonly options: MemoryEngineOptions;
  readonly logger: Logger;
  /** The archive record of this data directory, cached between saves. */
  readonly records: RecordCache;
  /** Codes of the stored vectors for the near-duplicate check, read on first use (vectorSketch.ts). */
  readonly sketch: VectorSketch;
  /** The save history, a table of the store (record/history.ts). */
  readonly history: SaveHistory;
  /** Journals, dismissals and forks: the store's `state` table (record/storeState.ts). */
  readonly state: StoreState;
  /** The forgotten sessions' marks, in the state table (privacy/forgottenMarks.ts). */
  readonly forgotten: ForgottenMarks;
  /** The near-duplicate pairs, read on first use (pairJournal.ts). */
  readonly pairs: PairJournal;
  /** The embedder, started on first use. */
  embedder(): Promise<Embedder>;
  /** Takes the data directory's write lock (waiting up to `lockWaitMs`); resolves to its release. */
  lock(): Promise<() => Promise<void>>;
  /** Runs a task after this engine's queued saves and maintenance steps, one at a time. */
  enqueue<T>(task: () => Promise<T>): Promise<T>;
  /** True while `maintain()` runs (a save then holds back its own compaction). */
  maintaining(): boolean;
}
