/**
 * Store upkeep: how often saves compact the store, and `maintain()`, which builds the vector index
 * once the store outgrows a flat scan and then compacts.
 */
import type { MaintenanceReport } from '../../../shared/domain.js';
import { readArchiveRecord } from '../record/archiveRecord.js';
import type { EngineContext } from '../context.js';
import { describeIoError, EngineError } from '../errors.js';
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
 * Builds the vector index when it is due, WITHOUT the write lock (minutes on a large store; saves
 * carry on meanwhile, and this engine's saves hold back their own compactions, which would
 * pre-empt the index commit), then, with the lock, compacts the store, which also folds the rows
 * saved meanwhile into every index.
 */
export async function maintainStore(ctx: EngineContext): Promise<MaintenanceReport> {
  const started = performance.now();
  let indexVersion: number | null;
  try {
    indexVersion = await ctx.store.buildVectorIndex();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/retryable commit conflict|preempted/i.test(message)) {
      throw new EngineError('locked', 'the vector index was not committed: another process compacted the store meanwhile; run this again', { cause: error });
    }
    throw describeIoError(error, 'building the vector index');
  }
  const indexMs = performance.now() - started;
  const compacted = performance.now();
  const run = ctx.enqueue(async () => {
    const release = await ctx.lock();
    try {
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
    } finally {
      await release();
    }
  });
  try {
    await run;
  } catch (error) {
    throw describeIoError(error, 'compacting the store');
  }
  return {
    vectorIndexBuilt: indexVersion !== null,
    vectorIndexMs: indexVersion !== null ? Math.round(indexMs) : 0,
    compactMs: Math.round(performance.now() - compacted),
    chunks: await ctx.store.countChunks(),
  };
}
