/**
 * The LanceDB store and its upkeep: tables, lookups, searches, upgrades, verify and recovery,
 * maintenance. This entry holds what code outside the engine uses of it; inside the engine, modules
 * import one another by path.
 */
export { CHUNKS_TABLE, ChunkStore, VECTOR_INDEX_MIN_ROWS } from './store.js';
export type { ChunkRecord } from './store.js';
export { copyStore } from './copyStore.js';
export type { CopyStoreOptions, CopyStoreReport } from './copyStore.js';
export { storeRetention } from './retention.js';
