/**
 * The memory engine: saves conversations incrementally and without duplicates, and reads them back.
 * This class holds one store's state (its embedder, its queue of saves, its record cache) and hands
 * each part a context: opening (engineOpen.ts), the save pipeline (savePipeline.ts, with diff.ts and chunkWriter.ts),
 * maintenance (maintenance.ts), search (search.ts), reading sessions (sessions.ts) and
 * verify/repair (verify.ts).
 *
 * Knows nothing of Electron: the data directory, the store URI and the model come in as options.
 */
import path from 'node:path';
import type { ChunkDetail, DeletedObjectRetention, DuplicateListing, MaintenanceReport, RecentWriter, SaveEvent, SaveReport, SearchHit, SessionDetail, SessionInput, SessionSummary, VerifyResult } from '../../shared/domain.js';
import { WorkerEmbedder, type Embedder } from '../embedding/embedder.js';
import type { ArchiveRecord } from './record/archiveRecord.js';
import { PairJournal } from './duplicates/pairJournal.js';
import { VectorSketch } from './duplicates/vectorSketch.js';
import { WRITE_BATCH_CHUNKS, type EngineContext, type MemoryEngineOptions, type SaveCallOptions } from './context.js';
import { describeIoError, EngineError } from './errors.js';
import type { Logger } from './files/logger.js';
import { maintainStore } from './store/maintenance.js';
import { dismissNearDuplicates, listNearDuplicates, nearDuplicatesStale, refreshStep, type ListOptions } from './duplicates/nearDuplicates.js';
import { RecordCache } from './record/recordCache.js';
import { SaveHistory } from './record/history.js';
import { HistoryFlush } from './record/historyFlush.js';
import { AfterSaves } from './afterSaves.js';
import { recentWriters } from '../../shared/recentWriters.js';
import { StoreState } from './record/storeState.js';
import { forgetMessages, forgetSessions, type ForgetReport } from './privacy/forget.js';
import { redactStore, type RedactStoreReport } from './privacy/redactStore.js';
import { saveSession } from './save/savePipeline.js';
import { inspectChunk, searchChunks, type SearchOptions } from './search/search.js';
import { listSessions, sessionHistory, showSession } from './record/sessions.js';
import { ChunkStore } from './store/store.js';
import { isRemoteStore } from './store/connect.js';
import { verifyStore } from './store/verify.js';
import { retryTransient } from './store/transient.js';
import { letWaitingWritersIn } from './files/writeLock.js';
import { ForgottenMarks } from './privacy/forgottenMarks.js';
import { storeRetention } from './store/retention.js';
import { WriteGuard } from './store/writeGuard.js';
import { STORE_FOLDER } from './files/layout.js';
import { dropTracesAtOpen, openEngineStore } from './engineOpen.js';

export type { LocalTraces, MemoryEngineOptions, SaveCallOptions } from './context.js';
export type { Logger } from './files/logger.js';
export { optimizeIntervalFor } from './store/maintenance.js';
export { machineName } from './store/writeGuard.js';

/**
 * How long the engine waits, with no save queued, before the searches' view reads what the last saves
 * added (SearchView.prepare). Saves that follow one another closely (`watch` saving turn by turn, an
 * import) then run without that read beside them, and it runs once after the last of them.
 */
export const SEARCH_PREPARE_DELAY_MS = 250;

export class MemoryEngine {
  private queue: Promise<unknown> = Promise.resolve();
  /** Saves called and not yet finished. */
  private savesPending = 0;
  /** A save wrote since the searches' view last read the new rows. */
  private searchPrepareOwed = false;
  /** Starts the searches' background read SEARCH_PREPARE_DELAY_MS after the last queued save, unless another comes first. */
  private readonly searchPrepare = new AfterSaves(SEARCH_PREPARE_DELAY_MS, () => this.savesPending === 0 && !this.closed, () => {
    this.searchPrepareOwed = false;
    this.ctx.store.prepareSearch();
  });
  /** Commits the history events of saves to a folder that wrote nothing, once no save follows them. */
  private readonly historyFlush: HistoryFlush;
  private embedderPromise: Promise<Embedder> | null = null;
  private ownsEmbedder = false;
  private closed = false;
  private maintenance: Promise<MaintenanceReport> | null = null;
  private retention: Promise<DeletedObjectRetention> | null = null;
  private readonly ctx: EngineContext;
  private readonly guard: WriteGuard;

  private constructor(
    readonly dataDir: string,
    readonly store: ChunkStore,
    private readonly options: MemoryEngineOptions,
    embedder: Embedder | null,
    logger: Logger,
  ) {
    if (embedder) this.embedderPromise = Promise.resolve(embedder);
    this.guard = new WriteGuard({
      dataDir,
      storeUri: store.uri,
      waitMs: options.lockWaitMs ?? 60_000,
      singleWriter: options.singleWriter,
      // The history events of saves that wrote nothing, one commit for all of them (history.ts).
      beforeGiveBack: () => this.ctx.history.flush(),
    });
    const state = new StoreState(store);
    const forgotten = new ForgottenMarks(state);
    this.ctx = {
      dataDir,
      store,
      options,
      logger,
      records: new RecordCache(dataDir, store, logger, () => state.all('fork'), options.recordJournalFromBytes),
      history: new SaveHistory({ dataDir, store, forgottenAmong: (ids) => forgotten.among(ids) }),
      state,
      forgotten,
      sketch: new VectorSketch(dataDir, store.model),
      pairs: new PairJournal(dataDir),
      embedder: () => this.embedder(),
      lock: () => {
        this.noteRetention();
        return this.guard.acquire();
      },
      enqueue: (task) => this.enqueue(task),
      maintaining: () => this.maintenance !== null,
    };
    this.historyFlush = new HistoryFlush({
      history: this.ctx.history,
      logger,
      lock: this.ctx.lock,
      enqueue: (task) => this.enqueue(task),
      shared: () => this.guard.shared,
      saving: () => this.savesPending > 0,
      closed: () => this.closed,
    });
  }

  static async open(given: MemoryEngineOptions): Promise<MemoryEngine> {
    const opened = await openEngineStore(given);
    const engine = new MemoryEngine(opened.dataDir, opened.store, opened.options, opened.embedder, opened.logger);
    engine.ownsEmbedder = opened.ownsEmbedder;
    await dropTracesAtOpen(engine.ctx);
    return engine;
  }

  /**
   * Refuses now, with `unsafe_store`, a store whose writers could not take turns safely (an `s3://`
   * server without conditional writes, unless `singleWriter`), rather than at the first save. Writes
   * nothing to the store but the probe's own objects; a folder passes at once.
   */
  static async checkWritable(options: Pick<MemoryEngineOptions, 'dataDir' | 'storeUri' | 'singleWriter'>): Promise<void> {
    const dataDir = path.resolve(options.dataDir);
    const guard = new WriteGuard({ dataDir, storeUri: options.storeUri ?? path.join(dataDir, STORE_FOLDER), waitMs: 0, singleWriter: options.singleWriter });
    try {
      await guard.check();
    } finally {
      await guard.close();
    }
  }

  /** The embedder, started on first use and checked against the store's model. */
  async embedder(): Promise<Embedder> {
    if (!this.embedderPromise) {
      this.embedderPromise = WorkerEmbedder.start(this.store.model.model, {
        modelsDir: this.options.modelsDir!,
        onDownloadProgress: this.options.onDownloadProgress,
        workerUrl: this.options.embedWorkerUrl,
      }).then((embedder) => {
        if (embedder.dim !== this.store.model.dim) {
          void embedder.close();
          throw new EngineError('model_mismatch', `the model "${embedder.model}" gives ${embedder.dim}-dimensional vectors, but this store holds ${this.store.model.dim}-dimensional ones`);
        }
        return embedder;
      });
      this.embedderPromise.catch(() => {
        this.embedderPromise = null;
      });
    }
    return this.embedderPromise;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.searchPrepare.hold();
    await this.queue.catch(() => {});
    await this.historyFlush.flush();
    if (this.ownsEmbedder && this.embedderPromise) await (await this.embedderPromise.catch(() => null))?.close();
    await this.guard.close();
    this.ctx.history.close();
    this.ctx.state.close();
    this.store.close();
  }

  get model(): string {
    return this.store.model.model;
  }

  get writeBatchChunks(): number {
    return this.options.writeBatchChunks ?? WRITE_BATCH_CHUNKS;
  }

  /** Runs a task after every save and maintenance step queued before it. */
  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => {});
    return run;
  }

  /** Saves are queued: one at a time per engine, and one writer per data directory across processes. */
  save(input: SessionInput, options: SaveCallOptions = {}): Promise<SaveReport> {
    this.savesPending++;
    // A save is coming: the background read of the last save's rows waits until it is done, and so
    // does the read cache's reading ahead (its requests would compete with the save's).
    this.searchPrepare.hold();
    const releaseReadAhead = this.ctx.store.holdReadAhead();
    return this.enqueue(async () => {
      try {
        if (this.closed) throw new EngineError('cancelled', 'the store is closed');
        const report = await saveSession(this.ctx, input, options);
        // The rows it added are outside the indexes until the next compaction: read for searches
        // once no save waits (a no-op in a process that has not searched), rather than by the next search.
        if (report.chunksWritten > 0 || report.chunksDeleted > 0) this.searchPrepareOwed = true;
        return report;
      } finally {
        this.savesPending--;
        releaseReadAhead();
        this.searchPrepare.schedule(this.searchPrepareOwed);
        this.historyFlush.schedule();
      }
    });
  }

  /** Forgets whole sessions (see forget.ts): queued like a save, under the write lock. */
  forget(sessionIds: readonly string[]): Promise<ForgetReport[]> {
    return this.enqueue(async () => {
      if (this.closed) throw new EngineError('cancelled', 'the store is closed');
      // A vector index being built reads the files that forgetting removes: let it finish first.
      await this.maintenance?.catch(() => {});
      return forgetSessions(this.ctx, sessionIds);
    });
  }

  /** Forgets single messages of a session; the chunks that held them are rebuilt. */
  forgetMessages(sessionId: string, msgIds: readonly string[]): Promise<ForgetReport> {
    return this.enqueue(async () => {
      if (this.closed) throw new EngineError('cancelled', 'the store is closed');
      await this.maintenance?.catch(() => {});
      return forgetMessages(this.ctx, sessionId, msgIds, (input, options) => saveSession(this.ctx, input, options));
    });
  }

  /**
   * Redacts secrets in what is already archived (see redactStore.ts); with `dryRun`, only reports
   * what it would change. Queued like a save.
   */
  redact(options: { dryRun?: boolean } = {}): Promise<RedactStoreReport> {
    return this.enqueue(async () => {
      if (this.closed) throw new EngineError('cancelled', 'the store is closed');
      await this.maintenance?.catch(() => {});
      return redactStore(this.ctx, options, (input, saveOptions) => saveSession(this.ctx, input, saveOptions));
    });
  }

  /** True when `maintain()` has work to do: the store has outgrown a flat vector scan and has no vector index yet. */
  async maintenanceDue(): Promise<boolean> {
    return this.store.vectorIndexDue();
  }

  /** Builds the vector index when it is due, then compacts the store (see maintainStore). One run at a time per engine. */
  maintain(): Promise<MaintenanceReport> {
    this.maintenance ??= maintainStore(this.ctx).finally(() => {
      this.maintenance = null;
    });
    return this.maintenance;
  }

  /**
   * The archive record, checked against the store. A missing, unreadable or stale record is
   * rebuilt from the store (the source of truth) and the rebuild is reported.
   */
  loadRecord(warnings: string[] = []): Promise<ArchiveRecord> {
    return this.ctx.records.load(warnings);
  }

  rebuildRecord(): Promise<ArchiveRecord> {
    return this.ctx.records.rebuild();
  }

  /**
   * A read that fails on missing or unreadable files is tried once more on the newest version: a
   * writer in another process may have compacted away the version this one was reading. Only a
   * second failure is reported (as damage, with what to do). On a shared store, a version another
   * machine is committing at that moment may not be readable yet: that read is tried a few times.
   */
  private async read<T>(what: string, job: () => Promise<T>): Promise<T> {
    try {
      return await job();
    } catch (error) {
      if (error instanceof EngineError || describeIoError(error, what).code !== 'store_damaged') throw error;
      await this.store.refresh();
      try {
        return await retryTransient(job);
      } catch (second) {
        throw describeIoError(second, what);
      }
    }
  }

  listSessions(): Promise<SessionSummary[]> {
    return this.read('listing the sessions', () => listSessions(this.ctx));
  }

  showSession(sessionId: string): Promise<SessionDetail> {
    return this.read(`reading session ${sessionId}`, () => showSession(this.ctx, sessionId));
  }

  history(sessionId: string): Promise<SaveEvent[]> {
    return sessionHistory(this.ctx, sessionId);
  }

  /** The machines that saved to this store in the last `days` days, newest first (from the save history). */
  recentWriters(days = 30): Promise<RecentWriter[]> {
    return this.read('reading the save history', async () => recentWriters(await this.ctx.history.read(), new Date(Date.now() - days * 86_400_000)));
  }

  /** Vector search and full-text search merged by reciprocal rank; one hit per chunk, each memory once (see search.ts). */
  search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    return this.read('searching', () => searchChunks(this.ctx, query, options));
  }

  inspectChunk(chunkId: string, similarCount = 5): Promise<ChunkDetail> {
    return this.read(`reading chunk ${chunkId}`, () => inspectChunk(this.ctx, chunkId, similarCount));
  }

  /**
   * Near-duplicate clusters across sessions (nearDuplicates.ts). Kept up to date by every save; a
   * session saved by a process that died before its check, or by a version without it, is checked
   * first (under the write lock, queued like a save).
   */
  async duplicates(options: ListOptions = {}, onProgress?: (done: number, total: number) => void): Promise<DuplicateListing> {
    await this.refreshDuplicates(onProgress);
    return this.read('listing near duplicates', async () => listNearDuplicates(this.ctx, await this.ctx.records.load(), options));
  }

  /** Dismisses a near-duplicate cluster by its id (at any threshold): it is not listed again (unless it gains a chunk). */
  dismissDuplicates(clusterId: string): Promise<{ dismissed: number }> {
    return this.underLock(async (record) => dismissNearDuplicates(this.ctx, record, clusterId));
  }

  /**
   * Checks the sessions the list does not describe, one step per hold of the write lock (see
   * refreshStep), each step queued like a save: saves of this process and of others (which get the
   * lock first when they are waiting for it) go on between steps.
   */
  private async refreshDuplicates(onProgress?: (done: number, total: number) => void): Promise<void> {
    if (this.options.nearDuplicates === false) return;
    if (!(await nearDuplicatesStale(this.ctx, await this.ctx.records.load()))) return;
    let done = 0;
    for (let first = true; ; first = false) {
      await letWaitingWritersIn(this.dataDir);
      const step = await this.underLock((record) => refreshStep(this.ctx, record, first));
      if (step.checked) {
        done++;
        onProgress?.(done, done + step.left);
      }
      if (step.left === 0) return;
    }
  }

  /** Runs a task queued like a save, under the write lock, with the archive record. */
  private underLock<T>(task: (record: ArchiveRecord) => Promise<T>): Promise<T> {
    return this.enqueue(async () => {
      if (this.closed) throw new EngineError('cancelled', 'the store is closed');
      const release = await this.ctx.lock();
      try {
        return await task(await this.ctx.records.load([], { locked: true }));
      } finally {
        await release();
      }
    });
  }

  /**
   * Checks the store against itself and the archive record; `repair` rebuilds the record from the
   * store. Says too whether the store's provider keeps deleted objects (and so forgotten text).
   */
  async verify(options: { repair?: boolean } = {}): Promise<VerifyResult> {
    const result = await verifyStore(this.ctx, options);
    return { ...result, retention: await this.deletedObjectRetention() };
  }

  /** Whether the store's provider keeps deleted objects, and for how long (store/retention.ts); asked once per engine. */
  deletedObjectRetention(): Promise<DeletedObjectRetention> {
    this.retention ??= storeRetention(this.store.uri).catch((error: unknown) => ({
      state: 'unknown' as const,
      message: `Unknown whether the store's provider keeps deleted objects: ${error instanceof Error ? error.message : String(error)}`,
    }));
    return this.retention;
  }

  /**
   * The first time this engine writes: a provider that keeps deleted objects is named in the log, since
   * what a forget deletes stays there. Not awaited: the write does not wait for the answer.
   */
  private noteRetention(): void {
    if (this.retention || !isRemoteStore(this.store.uri)) return;
    void this.deletedObjectRetention().then((retention) => {
      if (retention.state === 'on' || retention.state === 'suspended') this.ctx.logger.warn(retention.message);
      else this.ctx.logger.info(retention.message);
    });
  }
}
