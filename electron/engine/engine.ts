/**
 * The memory engine: saves conversations incrementally and without duplicates.
 *
 * Session level: a session whose message set equals what is archived returns at once.
 * Message level: every message has an id and a content hash; only new and changed ones are processed.
 * Chunk level: new messages are chunked, embedded and written; chunks holding an edited or deleted
 * message are rebuilt and replace the old ones in the same commit.
 *
 * Knows nothing of Electron: the data directory, the store URI and the model come in as options.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type {
  ArchiveEntry,
  ChunkDetail,
  MaintenanceReport,
  SaveEvent,
  SaveMode,
  SaveOptions,
  SaveProgress,
  SaveReport,
  SearchHit,
  SessionDetail,
  SessionInput,
  SessionSummary,
  VerifyResult,
} from '../../shared/domain.js';
import { emptySaveReport, SAVE_MODES } from '../../shared/domain.js';
import { DEFAULT_MODEL, resolveModel } from '../embedding/models.js';
import { WorkerEmbedder, type DownloadProgress, type Embedder } from '../embedding/embedder.js';
import { ARCHIVE_RECORD_FILE, readArchiveRecord, writeArchiveRecord, type ArchiveRecord } from './archiveRecord.js';
import { chunkDialogueAsync, type ChunkableMessage, type PlannedChunk } from './chunker.js';
import { describeIoError, EngineError } from './errors.js';
import { messageSetFingerprint } from './hashing.js';
import { appendSaveEvent, readSaveEvents } from './history.js';
import { normalizeSessionAsync, type NormalizedMessage } from './normalize.js';
import { fuseByRank, RRF_K } from './rankFusion.js';
import { bySeqThenId, ChunkStore, type ChunkHead, type ChunkRecord, type OwnedKey, type OwnedMessage } from './store.js';
import { acquireWriteLock } from './writeLock.js';
import { crashPoint } from './crashPoints.js';
import { placeMessages } from './order.js';

export interface Logger {
  warn(message: string): void;
  info(message: string): void;
}

const silentLogger: Logger = { warn: () => {}, info: () => {} };

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
  /** How long a save waits for another process's save to finish. Default 60 s. */
  lockWaitMs?: number;
  /** Chunks per store commit while a long save streams in (commits overlap with embedding). Default 64. */
  writeBatchChunks?: number;
  /** Compact the store after this many commits (more in a large store, see optimizeInterval). Default 16. */
  optimizeEvery?: number;
  /** Chunks from which `maintain` builds a vector index. Default VECTOR_INDEX_MIN_ROWS (10k). */
  vectorIndexMinRows?: number;
  logger?: Logger;
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** The embedding worker script (a packaged build passes its compiled one). */
  embedWorkerUrl?: URL;
}

export interface SaveCallOptions extends SaveOptions {
  onProgress?: (progress: SaveProgress) => void;
  signal?: AbortSignal;
}

/** Commits between compactions in a store of this many chunks: `base` (16), or one per 2,048 chunks when that is more. */
export function optimizeIntervalFor(chunks: number, base = 16): number {
  return Math.max(base, Math.ceil(chunks / 2048));
}

const EMBED_BATCH = 32;
/** Batches kept in flight in the worker while the previous ones are written. */
const EMBED_LOOKAHEAD = 3;

interface StoredMessageState {
  owned: OwnedKey;
  chunkIds: string[];
}

export class MemoryEngine {
  private queue: Promise<unknown> = Promise.resolve();
  private embedderPromise: Promise<Embedder> | null = null;
  private ownsEmbedder = false;
  private closed = false;

  private constructor(
    readonly dataDir: string,
    readonly store: ChunkStore,
    private readonly options: MemoryEngineOptions,
    embedder: Embedder | null,
    private readonly logger: Logger,
  ) {
    if (embedder) this.embedderPromise = Promise.resolve(embedder);
  }

  static async open(options: MemoryEngineOptions): Promise<MemoryEngine> {
    const dataDir = path.resolve(options.dataDir);
    const logger = options.logger ?? silentLogger;
    try {
      await fs.mkdir(dataDir, { recursive: true });
    } catch (error) {
      throw describeIoError(error, `cannot create the data directory ${dataDir}`);
    }
    const storeUri = options.storeUri ?? path.join(dataDir, 'lancedb');
    const modelsDir = options.modelsDir ?? path.join(dataDir, 'models');
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
    try {
      store = await ChunkStore.open(storeUri, stored ?? { model: embedder!.model, dim: embedder!.dim }, {
        ...(options.vectorIndexMinRows ? { vectorIndexMinRows: options.vectorIndexMinRows } : {}),
        lockForCreation: () => acquireWriteLock(dataDir, { waitMs: options.lockWaitMs ?? 60_000 }),
      });
    } catch (error) {
      if (ownsEmbedder) await embedder?.close();
      throw describeIoError(error, `cannot open the store at ${storeUri}`);
    }
    const engine = new MemoryEngine(dataDir, store, { ...options, modelsDir, storeUri }, embedder, logger);
    engine.ownsEmbedder = ownsEmbedder || !options.embedder;
    return engine;
  }

  get model(): string {
    return this.store.model.model;
  }

  get writeBatchChunks(): number {
    return this.options.writeBatchChunks ?? 64;
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
    await this.queue.catch(() => {});
    if (this.ownsEmbedder && this.embedderPromise) await (await this.embedderPromise.catch(() => null))?.close();
    this.store.close();
  }

  /** Saves are queued: one at a time per engine, and one writer per data directory across processes. */
  save(input: SessionInput, options: SaveCallOptions = {}): Promise<SaveReport> {
    const run = this.queue.then(() => this.saveNow(input, options));
    this.queue = run.catch(() => {});
    return run;
  }

  private async saveNow(input: SessionInput, options: SaveCallOptions): Promise<SaveReport> {
    if (this.closed) throw new EngineError('cancelled', 'the store is closed');
    const started = performance.now();
    crashPoint('save');
    const mode: SaveMode = options.mode ?? 'incremental';
    if (!SAVE_MODES.includes(mode)) throw new EngineError('invalid_input', `unknown save mode "${String(mode)}" (use ${SAVE_MODES.join(', ')})`);
    const syncDeletes = options.syncDeletes ?? false;
    const { session, warnings } = await normalizeSessionAsync(input);
    const sessionId = session.sessionId;
    const report: SaveReport = emptySaveReport(sessionId, mode, session.messages.length, warnings, options.dryRun);
    const progress = (phase: SaveProgress['phase'], done: number, total: number) => options.onProgress?.({ sessionId, phase, done, total });
    progress('reading', 0, session.messages.length);

    let release: (() => Promise<void>) | null = null;
    try {
      if (!options.dryRun) {
        release = await acquireWriteLock(this.dataDir, { waitMs: this.options.lockWaitMs ?? 60_000 });
        // A store written by an earlier version is brought to the current layout before anything is written.
        await this.store.upgrade();
      }
      const record = await this.loadRecord(report.warnings);
      const entry = record.sessions[sessionId];
      const inputFingerprint = messageSetFingerprint(sortById(session.messages));

      // Session level: recognised at once, no store read, no embedding.
      if (entry && (mode === 'skip-if-archived' || (mode === 'incremental' && entry.fingerprint === inputFingerprint))) {
        report.skippedSession = true;
        report.skipped = session.messages.length;
        return await this.finish(report, record, started, syncDeletes, [], options.dryRun);
      }

      // Message level: compare with what the store holds for this session (its rows only).
      const heads = await this.store.sessionHeads(sessionId);
      const stored = indexMessages(heads);
      const inputIds = new Set(session.messages.map((m) => m.msgId));
      const fresh: NormalizedMessage[] = [];
      const updated: NormalizedMessage[] = [];
      for (const m of session.messages) {
        const known = stored.get(m.msgId);
        if (!known) fresh.push(m);
        else if (known.owned.contentHash !== m.contentHash) updated.push(m);
        else report.skipped++;
      }
      const removedMessages = [...stored.keys()].filter((id) => !inputIds.has(id));
      report.new = fresh.length;
      report.updated = updated.length;
      report.deleted = mode === 'overwrite' || syncDeletes ? removedMessages.length : 0;

      const writer = new ChunkWriter(this, sessionId, options, report, progress);
      if (mode === 'overwrite') {
        const ordered = inOrder(session.messages, placeMessages([], session.messages).seqs);
        const plan = await chunkDialogueAsync(sessionId, ordered, { maxTokens: await this.maxTokens() });
        const owned = new Map(ordered.map((m) => [m.msgId, toOwned(m)]));
        const oldIds = heads.map((h) => h.chunkId);
        await writer.writeAll(plan, owned, { replaceSession: true, removedIds: oldIds.filter((id) => !plan.some((c) => c.chunkId === id)) });
      } else {
        // Rebuild the chunks around updated and deleted messages, in one commit.
        const changed = new Map(updated.map((m) => [m.msgId, m]));
        const gone = new Set(syncDeletes ? removedMessages : []);
        const affected = affectedChunks(heads, stored, new Set([...changed.keys(), ...gone]));
        const rebuilt: PlannedChunk[] = [];
        const owned = new Map<string, OwnedMessage>();
        // Message content is read only for the chunks being rebuilt.
        const storedContent = affected.size > 0 ? await this.store.ownedMessages(sessionId, [...affected]) : new Map<string, OwnedMessage>();
        for (const run of contiguousRuns(heads, affected)) {
          const members = uniqueMembers(run)
            .filter((id) => !gone.has(id))
            .map((id) => {
              const current = changed.get(id);
              const before = storedContent.get(id)!;
              const message: OwnedMessage = current ? { ...toOwned(current), seq: before.seq } : before;
              owned.set(id, message);
              return message;
            })
            .sort((a, b) => a.seq - b.seq || a.msgId.localeCompare(b.msgId));
          rebuilt.push(...await chunkDialogueAsync(sessionId, members.map(toChunkable), { maxTokens: await this.maxTokens() }));
        }
        const rebuiltIds = new Set(rebuilt.map((c) => c.chunkId));
        const removedIds = [...affected].filter((id) => !rebuiltIds.has(id));
        if (rebuilt.length > 0 || removedIds.length > 0) await writer.writeAll(rebuilt, owned, { replaceSession: false, removedIds });

        // New messages: placed among the stored ones (order.ts), chunked by runs of neighbours (so a
        // chunk never joins distant parts of the conversation), embedded and written as they stream in.
        if (fresh.length > 0) {
          const { seqs, order } = placeMessages([...stored.values()].map((s) => s.owned), session.messages);
          const placed = new Map(inOrder(fresh, seqs).map((m) => [m.msgId, m]));
          const plan: PlannedChunk[] = [];
          for (const run of newRuns(order, placed)) plan.push(...await chunkDialogueAsync(sessionId, run, { maxTokens: await this.maxTokens() }));
          await writer.writeStreaming(plan, new Map([...placed.values()].map((m) => [m.msgId, toOwned(m)])));
        }
      }

      if (options.dryRun) return await this.finish(report, record, started, syncDeletes, [], true);
      await this.recordSessionMeta(sessionId, session.title, session.source, heads.length === 0);
      const after = applyToHeads(heads, writer.written, writer.removed);
      record.sessions[sessionId] = archiveEntry(sessionId, after, entry, session.title, session.source);
      if (after.length === 0) delete record.sessions[sessionId];
      record.writesSinceOptimize += writer.commits;
      const result = await this.finish(report, record, started, syncDeletes, writer.removedIds(), options.dryRun, writer.commits > 0);
      if (writer.cancelled) {
        throw new EngineError('cancelled', `save of ${sessionId} cancelled after writing ${report.chunksWritten} chunk(s); what was written is consistent, and saving again finishes it`);
      }
      return result;
    } catch (error) {
      throw describeIoError(error, `saving ${sessionId}`);
    } finally {
      await release?.();
    }
  }

  /**
   * Commits between compactions. A compaction rewrites the fragments it merges, and LanceDB merges
   * every indexed fragment below a million rows with its neighbours, so each one rewrites about the
   * whole store. Spacing them out in proportion to the store's size keeps that cost per save flat
   * (about 2k chunks rewritten per commit), at the price of more small fragments between them.
   */
  private async optimizeInterval(): Promise<number> {
    return optimizeIntervalFor(await this.store.countChunks(), this.options.optimizeEvery);
  }

  private maintenance: Promise<MaintenanceReport> | null = null;

  /** True when `maintain()` has work to do: the store has outgrown a flat vector scan and has no vector index yet. */
  async maintenanceDue(): Promise<boolean> {
    return this.store.vectorIndexDue();
  }

  /**
   * Builds the vector index when it is due, WITHOUT the write lock (minutes on a large store; saves
   * carry on meanwhile, and this engine's saves hold back their own compactions, which would
   * pre-empt the index commit), then, with the lock, compacts the store, which also folds the rows
   * saved meanwhile into every index. One run at a time per engine.
   */
  maintain(): Promise<MaintenanceReport> {
    this.maintenance ??= this.maintainNow().finally(() => {
      this.maintenance = null;
    });
    return this.maintenance;
  }

  private async maintainNow(): Promise<MaintenanceReport> {
    const started = performance.now();
    let indexVersion: number | null;
    try {
      indexVersion = await this.store.buildVectorIndex();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/retryable commit conflict|preempted/i.test(message)) {
        throw new EngineError('locked', 'the vector index was not committed: another process compacted the store meanwhile; run this again', { cause: error });
      }
      throw describeIoError(error, 'building the vector index');
    }
    const indexMs = performance.now() - started;
    const compacted = performance.now();
    const run = this.queue.then(async () => {
      const release = await acquireWriteLock(this.dataDir, { waitMs: this.options.lockWaitMs ?? 60_000 });
      try {
        const read = await readArchiveRecord(this.dataDir);
        const now = await this.store.version();
        // The index commit changes no data: a record written just before it still describes the store.
        const current = read.record !== null && (read.record.storeVersion === now || (indexVersion !== null && now === indexVersion && read.record.storeVersion === indexVersion - 1));
        await this.store.optimize();
        if (current) {
          read.record!.writesSinceOptimize = 0;
          read.record!.storeVersion = await this.store.version();
          await this.writeRecord(read.record!);
        }
      } finally {
        await release();
      }
    });
    this.queue = run.catch(() => {});
    try {
      await run;
    } catch (error) {
      throw describeIoError(error, 'compacting the store');
    }
    return {
      vectorIndexBuilt: indexVersion !== null,
      vectorIndexMs: indexVersion !== null ? Math.round(indexMs) : 0,
      compactMs: Math.round(performance.now() - compacted),
      chunks: await this.store.countChunks(),
    };
  }

  /** Writes the record and the history event; compacts the store when writes have piled up. */
  private async finish(report: SaveReport, record: ArchiveRecord, started: number, syncDeletes: boolean, removedIds: string[], dryRun?: boolean, wrote = false): Promise<SaveReport> {
    report.durationMs = Math.round((performance.now() - started) * 10) / 10;
    if (dryRun) return report;
    if (wrote) {
      if (record.writesSinceOptimize >= (await this.optimizeInterval()) && !this.maintenance) {
        await this.store.optimize();
        record.writesSinceOptimize = 0;
      }
      record.storeVersion = await this.store.version();
      await this.writeRecord(record);
    }
    const event: SaveEvent = {
      sessionId: report.sessionId,
      at: new Date().toISOString(),
      mode: report.mode,
      syncDeletes,
      skippedSession: report.skippedSession,
      total: report.total,
      new: report.new,
      updated: report.updated,
      skipped: report.skipped,
      deleted: report.deleted,
      chunksWritten: report.chunksWritten,
      chunksDeleted: report.chunksDeleted,
      chunkIdsWritten: report.chunkIds,
      chunkIdsRemoved: removedIds,
      embeddingsComputed: report.embeddingsComputed,
      durationMs: report.durationMs,
      model: this.model,
    };
    await appendSaveEvent(this.dataDir, event);
    report.durationMs = Math.round((performance.now() - started) * 10) / 10;
    return report;
  }

  private recordCache: { stamp: string; record: ArchiveRecord } | null = null;

  private async writeRecord(record: ArchiveRecord): Promise<void> {
    this.recordCache = null;
    await writeArchiveRecord(this.dataDir, record);
    this.recordCache = { stamp: await recordStamp(this.dataDir), record };
  }

  private async recordSessionMeta(sessionId: string, title: string | undefined, source: string | undefined, isNew: boolean): Promise<void> {
    if (!isNew && title === undefined && source === undefined) return;
    const current = isNew ? null : await this.store.sessionMeta(sessionId);
    const next = { sessionId, title: title ?? current?.title ?? '', source: source ?? current?.source ?? '', updatedAt: Date.now() };
    if (current && current.title === next.title && current.source === next.source) return;
    await this.store.upsertSession(next);
  }

  private async maxTokens(): Promise<number> {
    return (await this.embedder()).maxTokens;
  }

  /**
   * The archive record, checked against the store. A missing, unreadable or stale record is
   * rebuilt from the store (the source of truth) and the rebuild is reported.
   */
  async loadRecord(warnings: string[] = []): Promise<ArchiveRecord> {
    const version = await this.store.version();
    // A long-running process re-reads the record only when another process has replaced it.
    const stamp = await recordStamp(this.dataDir);
    if (this.recordCache && stamp === this.recordCache.stamp && this.recordCache.record.storeVersion === version) return this.recordCache.record;
    this.recordCache = null;
    const read = await readArchiveRecord(this.dataDir);
    if (read.record && read.record.storeVersion === version) {
      this.recordCache = { stamp, record: read.record };
      return read.record;
    }
    const why = read.record ? `the archive record describes store version ${read.record.storeVersion}, the store is at ${version}` : read.problem;
    const rebuilt = await this.rebuildRecord();
    const hadData = Object.keys(rebuilt.sessions).length > 0 || read.record !== null;
    if (hadData) {
      const message = `${why}; rebuilt it from the store (${Object.keys(rebuilt.sessions).length} sessions)`;
      warnings.push(message);
      this.logger.warn(message);
    }
    try {
      await this.writeRecord(rebuilt);
    } catch (error) {
      this.logger.warn(`could not write the rebuilt archive record: ${(error as Error).message}`);
    }
    return rebuilt;
  }

  async rebuildRecord(): Promise<ArchiveRecord> {
    const heads: ChunkHead[] = [];
    for await (const batch of this.store.allHeads()) heads.push(...batch);
    return this.rebuildRecordFrom(heads);
  }

  private async rebuildRecordFrom(allHeads: readonly ChunkHead[]): Promise<ArchiveRecord> {
    const bySession = new Map<string, ChunkHead[]>();
    for (const head of allHeads) {
      const list = bySession.get(head.sessionId) ?? [];
      list.push(head);
      bySession.set(head.sessionId, list);
    }
    const metas = await this.store.sessionMetas();
    const sessions: Record<string, ArchiveEntry> = {};
    for (const [sessionId, heads] of bySession) {
      heads.sort(bySeqThenId);
      const meta = metas.get(sessionId);
      sessions[sessionId] = archiveEntry(sessionId, heads, undefined, meta?.title, meta?.source);
    }
    return { format: 1, storeVersion: await this.store.version(), writesSinceOptimize: 0, sessions };
  }

  async listSessions(): Promise<SessionSummary[]> {
    const record = await this.loadRecord();
    const { events } = await readSaveEvents(this.dataDir);
    const saves = new Map<string, { count: number; last: string }>();
    for (const e of events) {
      const s = saves.get(e.sessionId) ?? { count: 0, last: e.at };
      s.count++;
      if (e.at > s.last) s.last = e.at;
      saves.set(e.sessionId, s);
    }
    return Object.values(record.sessions)
      .map((entry) => ({
        sessionId: entry.session_id,
        title: entry.title || entry.session_id,
        ...(entry.source ? { source: entry.source } : {}),
        messageCount: entry.message_count,
        chunkCount: entry.chunk_count,
        archivedAt: entry.archived_at,
        lastSavedAt: saves.get(entry.session_id)?.last ?? entry.last_saved_at,
        saves: saves.get(entry.session_id)?.count ?? 0,
      }))
      .sort((a, b) => b.lastSavedAt.localeCompare(a.lastSavedAt));
  }

  async showSession(sessionId: string): Promise<SessionDetail> {
    const chunks = await this.store.sessionChunks(sessionId);
    if (chunks.length === 0) throw new EngineError('not_found', `no session "${sessionId}" in this store`);
    const meta = await this.store.sessionMeta(sessionId);
    const firstChunk = new Map<string, string>();
    for (const c of chunks) for (const id of c.msgIds) if (!firstChunk.has(id)) firstChunk.set(id, c.chunkId);
    const messages = chunks
      .flatMap((c) => c.owned)
      .sort((a, b) => a.seq - b.seq || a.msgId.localeCompare(b.msgId))
      .map((m) => ({
        msgId: m.msgId,
        role: m.role,
        content: m.content,
        contentHash: m.contentHash,
        chunkId: firstChunk.get(m.msgId) ?? '',
        ...(m.timestamp ? { timestamp: m.timestamp } : {}),
      }));
    return {
      sessionId,
      ...(meta?.title ? { title: meta.title } : {}),
      ...(meta?.source ? { source: meta.source } : {}),
      messages,
      chunks: chunks.map((c) => ({ chunkId: c.chunkId, text: c.text, msgIds: c.msgIds, createdAt: new Date(c.createdAt).toISOString() })),
    };
  }

  async history(sessionId: string): Promise<SaveEvent[]> {
    const { events } = await readSaveEvents(this.dataDir);
    return events.filter((e) => e.sessionId === sessionId);
  }

  /** Vector search and full-text search (see ChunkStore.textSearch), merged by reciprocal rank; one hit per chunk. */
  async search(query: string, options: { limit?: number; sessionId?: string } = {}): Promise<SearchHit[]> {
    const limit = Math.max(1, Math.min(options.limit ?? 10, 200));
    if (!query.trim()) throw new EngineError('invalid_input', 'the search query is empty');
    const [vector] = await (await this.embedder()).embed([query]);
    const [byVector, byText] = await Promise.all([
      this.store.vectorSearch(vector!, limit * 2, options.sessionId),
      this.store.textSearch(query, limit * 2, options.sessionId).catch(() => []),
    ]);
    // Scores are scaled so that a chunk ranked first by both searches scores 1.
    const best = 2 / (RRF_K + 1);
    return fuseByRank([byVector, byText])
      .slice(0, limit)
      .map(({ hit, score }) => ({ chunkId: hit.chunkId, sessionId: hit.sessionId, text: hit.text, msgIds: hit.msgIds, score: Math.round((score / best) * 10_000) / 10_000 }));
  }

  async inspectChunk(chunkId: string, similarCount = 5): Promise<ChunkDetail> {
    const chunk = await this.store.chunk(chunkId);
    if (!chunk) throw new EngineError('not_found', `no chunk "${chunkId}" in this store`);
    const similar = await this.store.vectorSearch(chunk.vector, similarCount, undefined, chunkId);
    return {
      chunkId: chunk.chunkId,
      sessionId: chunk.sessionId,
      text: chunk.text,
      msgIds: chunk.msgIds,
      createdAt: new Date(chunk.createdAt).toISOString(),
      model: this.model,
      vector: Array.from(chunk.vector),
      similar: similar.map((h) => ({ chunkId: h.chunkId, sessionId: h.sessionId, text: h.text, msgIds: h.msgIds, score: Math.round((1 - h.distance) * 10_000) / 10_000 })),
    };
  }

  /**
   * Keeps every session that can still be read whole and drops the damaged data files from the
   * store (one new version); the sessions that could not be read are named so they can be saved again.
   */
  private async repairDamagedStore(problems: string[]): Promise<VerifyResult> {
    const release = await acquireWriteLock(this.dataDir, { waitMs: this.options.lockWaitMs ?? 60_000 });
    try {
      const recorded = (await readArchiveRecord(this.dataDir)).record;
      const restored = await this.store.restoreNewestReadable();
      if (restored === null) {
        problems.push('repair: no earlier version of the store can be read whole; the store was left as it is (restore the data directory from a backup, or import the conversations into a new one)');
        return { ok: false, sessions: 0, messages: 0, chunks: 0, problems };
      }
      const after = await this.rebuildRecord();
      problems.push(`repair: the store was rolled back to version ${restored}, its newest version that reads whole`);
      for (const [id, entry] of Object.entries(recorded?.sessions ?? {})) {
        const now = after.sessions[id]?.message_count ?? 0;
        if (now < entry.message_count) problems.push(`repair: session ${id} now holds ${now} of ${entry.message_count} messages; save or import it again to restore the rest`);
      }
      await this.writeRecord(after);
    } finally {
      await release();
    }
    const after = await this.verify();
    return { ...after, ok: false, problems: [...problems, ...after.problems.map((p) => `after repair: ${p}`)] };
  }

  /** Checks the store against itself and the archive record; `repair` rebuilds the record from the store. */
  async verify(options: { repair?: boolean } = {}): Promise<VerifyResult> {
    const problems: string[] = [];
    const bySession = new Map<string, ChunkHead[]>();
    const chunkSeen = new Set<string>();
    let chunks = 0;
    const damaged = await this.store.damagedFiles();
    problems.push(...damaged.map((p) => `store: ${p}`));
    try {
      for await (const heads of this.store.allHeads()) {
        for (const head of heads) {
          chunks++;
          if (chunkSeen.has(head.chunkId)) problems.push(`chunk ${head.chunkId} is stored more than once`);
          chunkSeen.add(head.chunkId);
          const list = bySession.get(head.sessionId) ?? [];
          list.push(head);
          bySession.set(head.sessionId, list);
        }
      }
    } catch (error) {
      problems.push(`store: cannot be read whole (${describeIoError(error, 'read').message.replace(/^read: /, '').slice(0, 240)})`);
      if (options.repair) return this.repairDamagedStore(problems);
      return { ok: false, sessions: 0, messages: 0, chunks: 0, problems };
    }
    if (damaged.length > 0 && options.repair) return this.repairDamagedStore(problems);
    let messages = 0;
    for (const [sessionId, heads] of bySession) {
      const owner = new Map<string, string>();
      for (const head of heads) {
        for (const m of head.owned) {
          messages++;
          const first = owner.get(m.msgId);
          if (first) problems.push(`session ${sessionId}: message ${m.msgId} is stored twice (chunks ${first} and ${head.chunkId})`);
          else owner.set(m.msgId, head.chunkId);
          if (!head.msgIds.includes(m.msgId)) problems.push(`session ${sessionId}: chunk ${head.chunkId} keeps message ${m.msgId} but does not list it`);
        }
      }
      for (const head of heads) {
        for (const id of head.msgIds) if (!owner.has(id)) problems.push(`session ${sessionId}: chunk ${head.chunkId} refers to message ${id}, which is not stored`);
      }
    }
    const read = await readArchiveRecord(this.dataDir);
    if (!read.record) {
      if (bySession.size > 0) problems.push(`archive record: ${read.problem}`);
    } else {
      const version = await this.store.version();
      if (read.record.storeVersion !== version) problems.push(`archive record: describes store version ${read.record.storeVersion}, the store is at ${version}`);
      const fromStore = await this.rebuildRecord();
      for (const [id, entry] of Object.entries(fromStore.sessions)) {
        const kept = read.record.sessions[id];
        if (!kept) problems.push(`archive record: session ${id} is stored but not recorded`);
        else if (kept.fingerprint !== entry.fingerprint || kept.chunk_count !== entry.chunk_count) problems.push(`archive record: session ${id} does not match the store`);
      }
      for (const id of Object.keys(read.record.sessions)) if (!fromStore.sessions[id]) problems.push(`archive record: session ${id} is recorded but not stored`);
    }
    if (options.repair && problems.length > 0) {
      await this.writeRecord(await this.rebuildRecord());
    }
    return { ok: problems.length === 0, sessions: bySession.size, messages, chunks, problems };
  }
}

/**
 * Embeds planned chunks and writes them with their messages. Each commit is whole; chunks are cut
 * into commits only where a turn begins, so a save that dies between commits and is run again
 * continues with exactly the chunks a clean run would have written.
 */
class ChunkWriter {
  readonly written: ChunkRecord[] = [];
  readonly removed = new Set<string>();
  commits = 0;
  cancelled = false;

  constructor(
    private readonly engine: MemoryEngine,
    private readonly sessionId: string,
    private readonly options: SaveCallOptions,
    private readonly report: SaveReport,
    private readonly progress: (phase: SaveProgress['phase'], done: number, total: number) => void,
  ) {}

  removedIds(): string[] {
    return [...this.removed];
  }

  /** Plans that must land in a single commit (rebuilt chunks with their deletions; overwrites). */
  async writeAll(plan: PlannedChunk[], owned: Map<string, OwnedMessage>, removal: { replaceSession: boolean; removedIds: string[] }): Promise<void> {
    const vectors = await this.vectorsFor(plan, true);
    const records = plan.map((c) => this.toRecord(c, vectors.get(c.textHash)!, owned));
    if (this.options.dryRun) {
      this.count(records, removal.removedIds);
      return;
    }
    this.throwIfAborted();
    this.progress('writing', 0, records.length);
    await this.engine.store.commit(records, { sessionId: this.sessionId, chunkIds: removal.removedIds, allOthers: removal.replaceSession });
    this.commits++;
    this.count(records, removal.removedIds);
  }

  /** New chunks: embedding of later batches overlaps the writing of earlier ones. */
  async writeStreaming(plan: PlannedChunk[], owned: Map<string, OwnedMessage>): Promise<void> {
    if (this.options.dryRun) {
      const vectors = await this.vectorsFor(plan, false);
      this.count(plan.map((c) => this.toRecord(c, vectors.get(c.textHash) ?? new Float32Array(0), owned)), []);
      return;
    }
    const embedder = await this.engine.embedder();
    const unique = new Map<string, string>();
    for (const c of plan) if (!unique.has(c.textHash)) unique.set(c.textHash, c.text);
    const hashes = [...unique.keys()];
    const batches: string[][] = [];
    for (let i = 0; i < hashes.length; i += EMBED_BATCH) batches.push(hashes.slice(i, i + EMBED_BATCH));
    const inFlight: Array<Promise<Float32Array[]>> = [];
    const launch = (index: number) => {
      const batch = batches[index];
      if (batch) inFlight[index] = embedder.embed(batch.map((h) => unique.get(h)!));
    };
    for (let i = 0; i < EMBED_LOOKAHEAD; i++) launch(i);

    const vectors = new Map<string, Float32Array>();
    const batchSize = this.engine.writeBatchChunks;
    let pending: ChunkRecord[] = [];
    let next = 0; // next chunk of the plan to turn into a record
    this.progress('embedding', 0, plan.length);
    const flush = async () => {
      if (pending.length === 0) return;
      await this.engine.store.commit(pending, { sessionId: this.sessionId });
      this.commits++;
      this.count(pending, []);
      pending = [];
    };
    try {
      for (let b = 0; b < batches.length; b++) {
        const result = await inFlight[b]!;
        launch(b + EMBED_LOOKAHEAD);
        this.report.embeddingsComputed += result.length;
        batches[b]!.forEach((hash, i) => vectors.set(hash, result[i]!));
        while (next < plan.length && vectors.has(plan[next]!.textHash)) {
          const chunk = plan[next]!;
          // Cut commits only where a turn begins (see the class comment).
          if (pending.length >= batchSize && chunk.startsTurn) {
            if (this.options.signal?.aborted) {
              this.cancelled = true;
              return;
            }
            await flush();
          }
          pending.push(this.toRecord(chunk, vectors.get(chunk.textHash)!, owned));
          next++;
        }
        this.progress('embedding', next, plan.length);
      }
      await flush();
    } finally {
      // Settle batches still in the worker so none rejects unobserved.
      await Promise.allSettled(inFlight);
    }
    this.progress('done', plan.length, plan.length);
  }

  private throwIfAborted(): void {
    if (this.options.signal?.aborted) throw new EngineError('cancelled', `save of ${this.sessionId} cancelled before anything was written`);
  }

  private count(records: ChunkRecord[], removedIds: readonly string[]): void {
    const writtenIds = new Set(records.map((r) => r.chunkId));
    this.written.push(...records);
    this.report.chunksWritten += records.length;
    this.report.chunkIds.push(...records.map((r) => r.chunkId));
    for (const id of removedIds) {
      if (writtenIds.has(id) || this.removed.has(id)) continue;
      this.removed.add(id);
      this.report.chunksDeleted++;
    }
  }

  /** Vectors for a plan: reused from this session's stored chunks where the text is the same, embedded otherwise. */
  private async vectorsFor(plan: PlannedChunk[], reuseStored: boolean): Promise<Map<string, Float32Array>> {
    const hashes = [...new Set(plan.map((c) => c.textHash))];
    const vectors = reuseStored && hashes.length > 0 ? await this.engine.store.vectorsByTextHash(this.sessionId, hashes) : new Map<string, Float32Array>();
    const missing = hashes.filter((h) => !vectors.has(h));
    if (this.options.dryRun) {
      this.report.embeddingsComputed += missing.length;
      return vectors;
    }
    if (missing.length === 0) return vectors;
    const texts = new Map(plan.map((c) => [c.textHash, c.text]));
    const embedder = await this.engine.embedder();
    this.progress('embedding', 0, missing.length);
    for (let i = 0; i < missing.length; i += EMBED_BATCH) {
      this.throwIfAborted();
      const batch = missing.slice(i, i + EMBED_BATCH);
      const result = await embedder.embed(batch.map((h) => texts.get(h)!));
      batch.forEach((h, j) => vectors.set(h, result[j]!));
      this.report.embeddingsComputed += batch.length;
      this.progress('embedding', Math.min(i + EMBED_BATCH, missing.length), missing.length);
    }
    return vectors;
  }

  private toRecord(chunk: PlannedChunk, vector: Float32Array, owned: Map<string, OwnedMessage>): ChunkRecord {
    const first = chunk.segments[0]!;
    const ownedHere = chunk.segments.filter((s) => s.part === 0).map((s) => owned.get(s.msgId)!);
    const firstSeq = owned.get(first.msgId)?.seq ?? 0;
    return {
      chunkId: chunk.chunkId,
      sessionId: this.sessionId,
      seq: firstSeq * 1000 + first.part,
      text: chunk.text,
      textHash: chunk.textHash,
      vector,
      msgIds: chunk.msgIds,
      owned: ownedHere,
      createdAt: Date.now(),
    };
  }
}

/** Identifies one version of the record file: it is replaced by rename, so a new write changes the inode or mtime. */
async function recordStamp(dataDir: string): Promise<string> {
  try {
    const stat = await fs.stat(path.join(dataDir, ARCHIVE_RECORD_FILE), { bigint: true });
    return `${stat.ino}:${stat.mtimeNs}:${stat.size}`;
  } catch {
    return 'missing';
  }
}

/** The messages with their placed positions, in order. */
function inOrder(messages: readonly NormalizedMessage[], seqs: ReadonlyMap<string, number>): NormalizedMessage[] {
  return messages.map((m) => ({ ...m, seq: seqs.get(m.msgId)! })).sort((a, b) => a.seq - b.seq);
}

/** Runs of new messages that are neighbours in the session's order (stored messages separate them). */
function newRuns(order: readonly string[], placed: ReadonlyMap<string, NormalizedMessage>): NormalizedMessage[][] {
  const runs: NormalizedMessage[][] = [];
  let current: NormalizedMessage[] = [];
  for (const id of order) {
    const m = placed.get(id);
    if (m) current.push(m);
    else if (current.length > 0) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

function toOwned(m: NormalizedMessage): OwnedMessage {
  return { msgId: m.msgId, role: m.role, content: m.content, contentHash: m.contentHash, seq: m.seq, ...(m.timestamp ? { timestamp: m.timestamp } : {}) };
}

function toChunkable(m: OwnedMessage): ChunkableMessage {
  return { msgId: m.msgId, role: m.role, content: m.content };
}

function sortById<T extends { msgId: string }>(messages: readonly T[]): T[] {
  return [...messages].sort((a, b) => (a.msgId < b.msgId ? -1 : a.msgId > b.msgId ? 1 : 0));
}

function indexMessages(heads: readonly ChunkHead[]): Map<string, StoredMessageState> {
  const messages = new Map<string, StoredMessageState>();
  for (const head of heads) for (const m of head.owned) messages.set(m.msgId, { owned: m, chunkIds: [] });
  for (const head of heads) for (const id of head.msgIds) messages.get(id)?.chunkIds.push(head.chunkId);
  return messages;
}

/** The chunks holding any of these messages, closed over messages split across several chunks. */
function affectedChunks(heads: readonly ChunkHead[], stored: Map<string, StoredMessageState>, messageIds: Set<string>): Set<string> {
  const affected = new Set<string>();
  const byId = new Map(heads.map((h) => [h.chunkId, h]));
  const queue = [...messageIds];
  const seenMessages = new Set(queue);
  while (queue.length > 0) {
    const id = queue.pop()!;
    for (const chunkId of stored.get(id)?.chunkIds ?? []) {
      if (affected.has(chunkId)) continue;
      affected.add(chunkId);
      for (const other of byId.get(chunkId)?.msgIds ?? []) {
        if (!seenMessages.has(other)) {
          seenMessages.add(other);
          queue.push(other);
        }
      }
    }
  }
  return affected;
}

/** Affected chunks grouped into runs of neighbours, so a rebuild never joins distant parts of a conversation. */
function contiguousRuns(heads: readonly ChunkHead[], affected: Set<string>): ChunkHead[][] {
  const runs: ChunkHead[][] = [];
  let current: ChunkHead[] = [];
  for (const head of heads) {
    if (affected.has(head.chunkId)) current.push(head);
    else if (current.length > 0) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

function uniqueMembers(run: readonly ChunkHead[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const head of run) {
    for (const id of head.msgIds) {
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

function applyToHeads(heads: readonly ChunkHead[], written: readonly ChunkRecord[], removed: ReadonlySet<string>): ChunkHead[] {
  const byId = new Map<string, ChunkHead>(heads.map((h) => [h.chunkId, h]));
  for (const id of removed) byId.delete(id);
  for (const r of written) byId.set(r.chunkId, r);
  return [...byId.values()].sort(bySeqThenId);
}

function archiveEntry(sessionId: string, heads: readonly ChunkHead[], previous: ArchiveEntry | undefined, title?: string, source?: string): ArchiveEntry {
  const messages = heads.flatMap((h) => h.owned).sort((a, b) => a.seq - b.seq || a.msgId.localeCompare(b.msgId));
  const now = new Date().toISOString();
  const times = heads.map((h) => h.createdAt);
  const created = times.length > 0 ? new Date(times.reduce((a, b) => Math.min(a, b))).toISOString() : now;
  const t = title ?? previous?.title;
  const s = source ?? previous?.source;
  return {
    session_id: sessionId,
    ...(t ? { title: t } : {}),
    ...(s ? { source: s } : {}),
    archived_at: previous?.archived_at ?? created,
    last_saved_at: previous ? now : times.length > 0 ? new Date(times.reduce((a, b) => Math.max(a, b))).toISOString() : now,
    message_count: messages.length,
    chunk_count: heads.length,
    chunk_ids: heads.map((h) => h.chunkId),
    msg_range: messages.length > 0 ? [messages[0]!.msgId, messages[messages.length - 1]!.msgId] : [],
    fingerprint: messageSetFingerprint(sortById(messages)),
  };
}
