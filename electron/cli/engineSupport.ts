/**
 * What the CLI's commands that open the store share: the engine's lifetime, reading a file to save,
 * maintenance notes. Loaded only by the commands that need it (LanceDB takes a while to load).
 */
import path from 'node:path';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import type { SessionInput } from '../../shared/domain.js';
import { MemoryEngine, type Logger } from '../engine/engine.js';
import { EngineError } from '../engine/errors.js';
import { normalizeSession } from '../engine/save/index.js';
import { ChunkStore } from '../engine/store/index.js';
import { testSwitch } from '../engine/files/index.js';
import { incompleteSessions, readTranscripts, type SkippedPart } from '../importers/index.js';
import { sourceTraces } from '../sources/forgottenSessions.js';
import { describeSkipped, locationOf, UsageError, type GlobalOptions, type Io } from './support.js';

export function engineLogger(io: Io): Logger {
  return { warn: (m) => io.err(`warning: ${m}`), info: () => {} };
}

/** True when the memory `--data` names has been created (a folder that holds a store, or a store URI with one). */
export async function storeExists(options: GlobalOptions): Promise<boolean> {
  return (await storeModel(options)) !== null;
}

/** The embedding model of the store `--data` names, or null when it has not been created. */
export async function storeModel(options: GlobalOptions): Promise<string | null> {
  const location = locationOf(options);
  if (!location.shared && !existsSync(location.dataDir)) return null;
  return (await ChunkStore.readModel(location.storeUri))?.model ?? null;
}

export function openEngine(options: GlobalOptions, io: Io, modelsDir = process.env.SESSION_MEMORY_MODELS_DIR): Promise<MemoryEngine> {
  const location = locationOf(options);
  const models = modelsDir ?? location.modelsDir;
  return MemoryEngine.open({
    dataDir: location.dataDir,
    storeUri: location.storeUri,
    ...(options.model ? { model: options.model } : {}),
    // Models can live apart from the data (one download shared by several stores).
    ...(models ? { modelsDir: path.resolve(models) } : {}),
    ...(options.singleWriter ? { singleWriter: true } : {}),
    // Test runs only: small commits, so that a save can be interrupted between many of them.
    ...(testSwitch('SESSION_MEMORY_TEST_WRITE_BATCH') ? { writeBatchChunks: Number(testSwitch('SESSION_MEMORY_TEST_WRITE_BATCH')) } : {}),
    ...(testSwitch('SESSION_MEMORY_TEST_OPTIMIZE_EVERY') ? { optimizeEvery: Number(testSwitch('SESSION_MEMORY_TEST_OPTIMIZE_EVERY')) } : {}),
    ...(testSwitch('SESSION_MEMORY_TEST_RECORD_JOURNAL_FROM') ? { recordJournalFromBytes: Number(testSwitch('SESSION_MEMORY_TEST_RECORD_JOURNAL_FROM')) } : {}),
    ...(testSwitch('SESSION_MEMORY_TEST_VECTOR_INDEX_MIN_ROWS') ? { vectorIndexMinRows: Number(testSwitch('SESSION_MEMORY_TEST_VECTOR_INDEX_MIN_ROWS')) } : {}),
    logger: engineLogger(io),
    onDownloadProgress: io.isTTY ? downloadReporter(io) : undefined,
    // A forget drops the sources' traces too, here and, at their next open, on the other machines.
    localTraces: sourceTraces,
  });
}

export async function withEngine<T>(options: GlobalOptions, io: Io, job: (engine: MemoryEngine) => Promise<T>): Promise<T> {
  const engine = await openEngine(options, io);
  try {
    return await job(engine);
  } finally {
    await engine.close();
  }
}

/**
 * `withEngine` for a dry run: where the data folder holds no store yet, the engine opens a scratch
 * store in the temporary folder instead (its report is the same: everything is new), so that a
 * preview creates nothing where the memory lives. Models already downloaded there are used.
 */
export async function withPreviewEngine<T>(options: GlobalOptions, io: Io, job: (engine: MemoryEngine) => Promise<T>): Promise<T> {
  const dataDir = locationOf(options).dataDir;
  if (await storeExists(options)) return withEngine(options, io, job);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'session-memory-preview-'));
  const ownModels = path.join(dataDir, 'models');
  try {
    const engine = await openEngine({ ...options, data: scratch }, io, process.env.SESSION_MEMORY_MODELS_DIR ?? (existsSync(ownModels) ? ownModels : undefined));
    try {
      return await job(engine);
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export function downloadReporter(io: Io): (p: { file: string; loaded: number; total: number; status: string }) => void {
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (p.status === 'progress' && now - last < 500) return;
    last = now;
    const pct = p.total > 0 ? ` ${Math.round((p.loaded / p.total) * 100)}%` : '';
    io.err(`downloading ${p.file}${pct}`);
  };
}

/** A file's sessions, read and checked, with the damaged parts left out of them. */
export interface LoadedSessions {
  sessions: SessionInput[];
  skipped: SkippedPart[];
  /** Set when damaged lines were skipped (see `incompleteSessions`). */
  incomplete?: string;
}

/** Reads and checks every session of a file before anything is written. */
export async function loadSessions(file: string, sessionOverride?: string): Promise<LoadedSessions> {
  let sessions: SessionInput[] = [];
  const skipped: SkippedPart[] = [];
  const notes: string[] = [];
  for await (const read of readTranscripts([file], sessionOverride ? { sessionId: sessionOverride } : {})) {
    if ('error' in read && read.passedOver) continue;
    if ('error' in read) throw new UsageError(read.error.message);
    for await (const session of read.sessions) sessions.push(session);
    skipped.push(...read.skipped);
    const note = incompleteSessions(read);
    if (note) notes.push(note);
  }
  if (sessions.length === 0) throw new UsageError(`${file}: no conversation found${skipped.length > 0 ? ` (${skipped.length} damaged part${skipped.length === 1 ? '' : 's'}: ${describeSkipped(skipped[0]!)})` : ''}`);
  if (sessionOverride) {
    if (sessions.length > 1) throw new UsageError(`${file}: --session names one session, but the file holds ${sessions.length}`);
    sessions = [{ ...sessions[0]!, sessionId: sessionOverride }];
  }
  sessions.forEach((s, i) => {
    try {
      normalizeSession(s);
    } catch (error) {
      if (error instanceof EngineError) throw new UsageError(`${file}: ${sessions.length > 1 ? `sessions[${i}].` : ''}${error.message}`);
      throw error;
    }
  });
  return { sessions, skipped, ...(notes.length > 0 ? { incomplete: notes.join('; ') } : {}) };
}

/** After saves: says so when the store has outgrown a flat vector scan and has no vector index yet. */
export async function noteMaintenance(engine: MemoryEngine, io: Io): Promise<void> {
  if (!(await engine.maintenanceDue())) return;
  io.err(
    `note: the store holds ${await engine.store.countChunks()} chunks and has no vector index yet, so every search scans all vectors; ` +
      'run "session-memory optimize" to build it (a few minutes; saves to a folder go on meanwhile, saves to a shared store wait for it)',
  );
}

export async function maintainInBackground(engine: MemoryEngine, io: Io, json: boolean): Promise<void> {
  try {
    if (!(await engine.maintenanceDue())) return;
    if (!json) io.err('building the vector index in the background (saves to a shared store wait for it)');
    const report = await engine.maintain();
    if (!json && report.vectorIndexBuilt) io.err(`vector index built in ${(report.vectorIndexMs / 1000).toFixed(1)} s (${report.chunks} chunks)`);
  } catch (error) {
    // Not fatal: searches stay exact (a flat scan), and the next save tries again.
    if (!json) io.err(`session-memory: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The engine opened at first use and closed by `close()`: a sync with nothing new never opens it. */
export function lazyEngine(options: GlobalOptions, io: Io): { get: () => Promise<MemoryEngine>; close: () => Promise<void> } {
  let opened: Promise<MemoryEngine> | null = null;
  return {
    get: () => {
      opened ??= openEngine(options, io);
      return opened;
    },
    close: async () => {
      if (opened) await (await opened.catch(() => null))?.close();
    },
  };
}
