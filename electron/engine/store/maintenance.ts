/**
 * Store upkeep: how often saves compact the store, and `maintain()`, which builds the vector index
 * once the store outgrows a flat scan and then compacts.
 */
import type { MaintenanceReport } from '../../../shared/domain.js';
import { readArchiveRecord } from '../record/archiveRecord.js';
import type { EngineContext } from '../context.js';
import { describeIoError, EngineError } from '../errors.js';
import { crashPoint } from '../files/crashPoints.js';
import { assertWriteLock } from '../files/writeLock.js';
import { isRemoteStore } from './connect.js';
import { VERSION_RETENTION_MS } from './store.js';

/** Commits between compactions in a store of this many chunks: `base` (16), or one per 2,048 chunks when that is more. */
export function optimizeIntervalFor(chunks: number, base = 16): number {
  return Math.max(base, Math.ceil(chunks / 2048));
}

/**
 * Commits between compactions. A compaction rewrites the fragments it merges, and LanceDB merges
 * every indexed fragment below a million rows with its neighbours, so each one rewrites about the
 * whole store. Spacing them out in proportion to the store's size keeps that cost per save flat
 * (about 2k chunks rewritten per commit), at the price of more small fragments between them.
 */
export async function optimizeInterval(ctx: EngineContext): Promise<number> {
  return optimizeIntervalFor(await ctx.store.countChunks(), ctx.options.optimizeEvery);
}

/**
 * Builds the vector index when it is due, then compacts the store, which also folds the rows saved
 * meanwhile into every index.
 *
 * On a folder the build runs WITHOUT the write lock (minutes on a large store; saves carry on
 * meanwhile, and this engine's saves hold back their own compactions, which would pre-empt the index
 * commit); the compaction takes it. On a shared store the build holds the write lease throughout,
 * queued with this engine's saves: another machine's cleanup after a forget or a redact removes the
 * files no version references, and an index being built elsewhere is such files until its commit.
 * Other machines' writers wait for the lease meanwhile (up to their lock wait).
 */
export async function maintainStore(ctx: EngineContext): Promise<MaintenanceReport> {
  if (!isRemoteStore(ctx.store.uri)) {
    const started = performance.now();
    const indexVersion = await buildIndex(ctx);
    const indexMs = performance.now() - started;
    const compacted = performance.now();
    const run = ctx.enqueue(async () => {
      const release = await ctx.lock();
      try {
        await compact(ctx, indexVersion);
      } finally {
        await release();
      }
    });
    try {
      await run;
    } catch (error) {
      throw describeIoError(error, 'compacting the store');
    }
    return report(ctx, indexVersion, indexMs, compacted);
  }
  return ctx.enqueue(async () => {
    const release = await ctx.lock();
    try {
      const started = performance.now();
      crashPoint('vector-index');
      assertWriteLock(ctx.dataDir);
      const indexVersion = await buildIndex(ctx);
      const indexMs = performance.now() - started;
      const compacted = performance.now();
      try {
        assertWriteLock(ctx.dataDir);
        await compact(ctx, indexVersion);
      } catch (error) {
        throw describeIoError(error, 'compacting the store');
      }
      return await report(ctx, indexVersion, indexMs, compacted);
    } finally {
      await release();
    }
  });
}

async function buildIndex(ctx: EngineContext): Promise<number | null> {
  try {
    return await ctx.store.buildVectorIndex();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/retryable commit conflict|preempted/i.test(message)) {
      throw new EngineError('locked', 'the vector index was not committed: another process compacted the store meanwhile; run this again', { cause: error });
    }
    throw describeIoError(error, 'building the vector index');
  }
}

/** Compacts the store and the small tables (the caller holds the write lock), keeping the archive record current. */
async function compact(ctx: EngineContext, indexVersion: number | null): Promise<void> {
  const read = await readArchiveRecord(ctx.dataDir);
  const now = await ctx.store.version();
  // The index commit changes no data: a record written just before it still describes the store.
  const current = read.record !== null && (read.record.storeVersion === now || (indexVersion !== null && now === indexVersion && read.record.storeVersion === indexVersion - 1));
  await ctx.store.optimize();
  await ctx.history.compact(new Date(Date.now() - VERSION_RETENTION_MS));
  await ctx.state.compact(new Date(Date.now() - VERSION_RETENTION_MS));
  if (current) {
    read.record!.writesSinceOptimize = 0;
    read.record!.storeVersion = await ctx.store.version();
    await ctx.records.write(read.record!);
  }
}

async function report(ctx: EngineContext, indexVersion: number | null, indexMs: number, compacted: number): Promise<MaintenanceReport> {
  return {
    vectorIndexBuilt: indexVersion !== null,
    vectorIndexMs: indexVersion !== null ? Math.round(indexMs) : 0,
    compactMs: Math.round(performance.now() - compacted),
    chunks: await ctx.store.countChunks(),
  };
}
