/**
 * Process plumbing: atomic file writes, append-only journals, the write lock across processes, where
 * the data folder lives, the log, and the switches of test runs (crash points). This entry holds what code outside the engine uses of
 * it; inside the engine, modules import one another by path.
 */
export { PRODUCT_NAME, defaultDataDir } from './paths.js';
export { isStoreUri, locate, StoreLocationError, type EngineLocation } from './location.js';
export { writeFileAtomic } from './atomicFile.js';
export { LOG_FOLDER, OBJECT_CACHE_FOLDER } from './layout.js';
export { testSwitch } from './testSwitches.js';
export type { Logger } from './logger.js';
