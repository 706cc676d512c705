/**
 * Opening the engine's store: the data directory, the model the store records (or the one asked for,
 * for a new store), the store itself under the write lock while its tables are created, and what this
 * machine's folder still keeps of sessions forgotten since the last open.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DEFAULT_MODEL, resolveModel } from '../embedding/models.js';
import { WorkerEmbedder, type Embedder } from '../embedding/embedder.js';
import { HashEmbedder } from '../embedding/hashEmbedder.js';
import type { EngineContext, MemoryEngineOptions } from './context.js';
import { describeIoError, EngineError } from './errors.js';
import { silentLogger, type Logger } from './files/logger.js';
import { MODELS_FOLDER, OBJECT_CACHE_FOLDER, STORE_FOLDER } from './files/layout.js';
import { DEFAULT_OBJECT_CACHE_BYTES } from './store/objectCache.js';
import { ChunkStore } from './store/store.js';
import { acquireWriteLock } from './files/writeLock.js';
import { testSwitch } from './files/testSwitches.js';
import { dropForgottenTraces } from './privacy/forgetTraces.js';
import { WriteGuard } from './store/writeGuard.js';

export interface OpenedStore {
  dataDir: string;
  store: ChunkStore;
  /** The options given, with the models folder and the store URI filled in. */
  options: MemoryEngineOptions;
  /** The embedder given, or the model started to learn a new store's dimension; null: started on first use. */
  embedder: Embedder | null;
  /** Whether the engine closes the embedder (it was not given). */
  ownsEmbedder: boolean;
  logger: Logger;
}

/** The read cache's bound (MemoryEngineOptions.readCacheBytes). */
function readCacheBytes(options: MemoryEngineOptions): number {
  if (options.readCacheBytes !== undefined) return options.readCacheBytes;
  const mb = Number(process.env.SESSION_MEMORY_READ_CACHE_MB);
  return process.env.SESSION_MEMORY_READ_CACHE_MB !== undefined && Number.isFinite(mb) && mb >= 0 ? Math.floor(mb * 1024 * 1024) : DEFAULT_OBJECT_CACHE_BYTES;
}

/**
 * Opens (or creates) the store the options name. A store built with another model is refused; a new
 * store starts the model first, since its tables need the model's dimension.
 */
export async function openEngineStore(given: MemoryEngineOptions): Promise<OpenedStore> {
  // Test runs only: the hashing stand-in instead of a model, for tests whose subject is not embedding.
  const standIn = !given.embedder && testSwitch('SESSION_MEMORY_TEST_EMBEDDER') === 'hash' ? new HashEmbedder() : undefined;
  const options = standIn ? { ...given, embedder: standIn } : given;
  const dataDir = path.resolve(options.dataDir);
  const logger = options.logger ?? silentLogger;
  try {
    await fs.mkdir(dataDir, { recursive: true });
  } catch (error) {
    throw describeIoError(error, `cannot create the data directory ${dataDir}`);
  }
  const storeUri = options.storeUri ?? path.join(dataDir, STORE_FOLDER);
  const modelsDir = options.modelsDir ?? path.join(dataDir, MODELS_FOLDER);
  const stored = await ChunkStore.readModel(storeUri);
  const asked = options.embedder?.model ?? options.model ?? stored?.model ?? process.env.SESSION_MEMORY_MODEL ?? DEFAULT_MODEL;
  const wanted = options.embedder ? asked : resolveModel(asked, modelsDir).name;
  if (stored && stored.model !== wanted) {
    throw new EngineError(
      'model_mismatch',
      `this store was built with the embedding model "${stored.model}" (${stored.dim} dimensions), not "${wanted}"; ` +
        `open it with --model ${stored.model}, or choose another data directory for a store of the new model`,
    );
  }
  let embedder = options.embedder ?? null;
  let ownsEmbedder = false;
  if (!stored && !embedder) {
    // A new store needs the model's dimension before its table can be created.
    embedder = await WorkerEmbedder.start(wanted, { modelsDir, onDownloadProgress: options.onDownloadProgress, workerUrl: options.embedWorkerUrl });
    ownsEmbedder = true;
  }
  let store: ChunkStore;
  const creationGuard = new WriteGuard({ dataDir, storeUri, waitMs: options.lockWaitMs ?? 60_000, singleWriter: options.singleWriter });
  try {
    store = await ChunkStore.open(storeUri, stored ?? { model: embedder!.model, dim: embedder!.dim }, {
      ...(options.vectorIndexMinRows ? { vectorIndexMinRows: options.vectorIndexMinRows } : {}),
      lockForCreation: () => creationGuard.acquire(),
      readCache: { dir: path.join(dataDir, OBJECT_CACHE_FOLDER), maxBytes: readCacheBytes(options) },
    });
  } catch (error) {
    if (ownsEmbedder) await embedder?.close();
    throw describeIoError(error, `cannot open the store at ${storeUri}`);
  } finally {
    await creationGuard.close();
  }
  return { dataDir, store, options: { ...options, modelsDir, storeUri }, embedder, ownsEmbedder: ownsEmbedder || !options.embedder, logger };
}

/**
 * Drops what this machine's folder keeps of sessions forgotten since (here or on another machine
 * sharing the store): run at every open. Only this machine's files change, under its local write
 * lock; when another process of this machine holds that lock, the next open does it. Never fails
 * the open: a failure is logged.
 */
export async function dropTracesAtOpen(ctx: EngineContext): Promise<void> {
  try {
    const dropped = await dropForgottenTraces(ctx, () => acquireWriteLock(ctx.dataDir, { waitMs: 0 }));
    if (dropped > 0) ctx.logger.info(`dropped this machine's traces of ${dropped} forgotten session(s)`);
  } catch (error) {
    ctx.logger.info(`traces of forgotten sessions not dropped now (the next start tries again): ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    // The searches' read cache may hold files that a forget or a redact (on any machine) removed
    // from the store since: they go, with their text. One listing of the store, when the cache holds anything.
    const pruned = await ctx.store.pruneReadCache();
    if (pruned > 0) ctx.logger.info(`dropped ${pruned} file(s) the store no longer has from the read cache`);
  } catch (error) {
    ctx.logger.info(`the read cache was not checked against the store now (the next start tries again): ${error instanceof Error ? error.message : String(error)}`);
  }
}
