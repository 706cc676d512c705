/**
 * The data layout: every table of the store and every file of a machine's local folder, named in one
 * place.
 *
 * The store (a folder's `lancedb/`, or a bucket's prefix: the same tables either way, so that a store
 * copied between them is whole) holds the memory:
 * - `chunks`: the dialogue chunks with their messages, vectors and the word index;
 * - `sessions`: each session's title, source and parent;
 * - `meta`: the embedding model the vectors come from;
 * - `history`: one row per save and per forgotten session;
 * - `state`: work owed after a kill (forget, purge), dismissed near-duplicate clusters, forks, and
 *   the marks of forgotten sessions (keyed hashes) with their key;
 * - `writer_lease`: which machine writes now (on a shared store).
 *
 * A machine's local folder (`SESSION_MEMORY_HOME` or the app's folder) holds what is derived from the
 * store or belongs to that machine: the archive record (a cache), the vector sketch and the
 * near-duplicate pairs (caches), the write lock, the watch state and the sources' cursors, logs,
 * staged uploads, downloaded models. Each is rebuilt from the store when deleted, or belongs to the
 * machine alone. A shared store's local folder is `<home>/stores/<name>-<hash>` (location.ts).
 */

/** The store's folder inside a local folder that holds its own store. */
export const STORE_FOLDER = 'lancedb';

export const CHUNKS_TABLE = 'chunks';
export const SESSIONS_TABLE = 'sessions';
export const META_TABLE = 'meta';
export const HISTORY_TABLE = 'history';
export const STATE_TABLE = 'state';
export const LEASE_TABLE = 'writer_lease';
/** Every table of the store, in the order a copy writes them (the model's meta first). */
export const STORE_TABLES = [META_TABLE, SESSIONS_TABLE, CHUNKS_TABLE, HISTORY_TABLE, STATE_TABLE] as const;

/** Local: the archive record, a cache of the store's sessions (record/archiveRecord.ts). */
export const ARCHIVE_RECORD_FILE = '.archived_sessions.json';
/** Local: the archive record's changes since it was last written whole (record/archiveRecord.ts). */
export const ARCHIVE_JOURNAL_FILE = '.archived_sessions.journal';
/** Local: the write lock between processes of this machine (files/writeLock.ts). */
export const LOCK_FILE = '.write.lock';
/** Local: this machine's random id, which a shared store's lease names its holder by (files/machineId.ts). */
export const MACHINE_ID_FILE = 'machine-id';
/** Local: the files saved by `watch` and the sources, with their sizes and times (record/watchState.ts). */
export const WATCH_STATE_FILE = 'watch-state.json';
/** Local: the sketch of every chunk's vector, for the near-duplicate check (duplicates/vectorSketch.ts). */
export const SKETCH_FILE = 'vector-sketch.bin';
/** Local: the near-duplicate pairs found so far (duplicates/pairJournal.ts). */
export const PAIRS_FILE = 'near-duplicates.jsonl';
/** Local: the app's and the CLI's logs. */
export const LOG_FOLDER = 'logs';
/** Local: the searches' copies of a shared store's immutable objects (store/objectCache.ts). */
export const OBJECT_CACHE_FOLDER = 'object-cache';
/** Local: where uploads wait while they are read. */
export const STAGING_FOLDER = 'staging';
/** Local: downloaded embedding models. */
export const MODELS_FOLDER = 'models';
/** Local: the folders of shared stores this machine uses. */
export const SHARED_STORES_FOLDER = 'stores';

/** Earlier layouts, read once and replaced: the history as a file, the pairs whole, journals as files. */
export const LEGACY_HISTORY_FILE = 'save-history.jsonl';
export const LEGACY_PAIRS_FILE = 'near-duplicates.json';
export const LEGACY_FORGET_JOURNAL = '.forget-pending.json';
export const LEGACY_PURGE_JOURNAL = '.purge-pending.json';
