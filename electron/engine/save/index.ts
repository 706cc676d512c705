/**
 * Turning a session into stored chunks: normalizing, ordering, diffing, chunking, hashing, the save
 * pipeline. This entry holds what code outside the engine uses of it; inside the engine, modules
 * import one another by path.
 */
export { detachedString, normalizeSession } from './normalize.js';
export { chunkIdFor, contentHash, sha256 } from './hashing.js';
export { SAVE_PHASES, type SavePhase, type SaveTimings } from './saveTimings.js';
export { chunkDialogue } from './chunker.js';
export { lengthSortedBatches } from './chunkWriter.js';
