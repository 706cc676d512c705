/** What the CLI's commands share: options, output, the engine's lifetime, reports and exit statuses. */
import path from 'node:path';
import { NEAR_DUPLICATE_FLOOR } from '../engine/nearDuplicates.js';
import { existsSync } from 'node:fs';
import cliProgress from 'cli-progress';
import type { SaveProgress, SaveReport, SessionInput } from '../../shared/domain.js';
import { MemoryEngine, type Logger } from '../engine/engine.js';
import { EngineError } from '../engine/errors.js';
import { normalizeSession } from '../engine/normalize.js';
import { defaultDataDir } from '../engine/paths.js';
import { ChunkStore } from '../engine/store.js';
import { testSwitch } from '../engine/testSwitches.js';
import { incompleteSessions, readTranscripts, type SkippedPart } from '../importers/index.js';

export type IncludedExtra = 'tools' | 'thinking';

export function parseInclude(value: string): IncludedExtra[] {
  const parts = value.split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of parts) if (p !== 'tools' && p !== 'thinking') throw new UsageError(`--include takes "tools" and/or "thinking", not "${p}"`);
  return parts as IncludedExtra[];
}

export interface GlobalOptions {
  data?: string;
  model?: string;
}

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  isTTY: boolean;
}

export const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  isTTY: Boolean(process.stderr.isTTY),
};

/** A failure the user caused: one line, no stack, exit status 2. */
export class UsageError extends Error {}

/** The report fields `save --json` prints, in this order. */
export function reportJson(report: SaveReport): Record<string, unknown> {
  const { sessionId, mode, skippedSession, total, new: added, updated, skipped, deleted, chunksWritten, chunksDeleted, chunkIds, embeddingsComputed, sharedMessages, redacted, nearDuplicates, durationMs, warnings } = report;
  return { sessionId, mode, skippedSession, total, new: added, updated, skipped, deleted, chunksWritten, chunksDeleted, chunkIds, embeddingsComputed, sharedMessages, redacted, nearDuplicates, durationMs, warnings };
}

export function describeReport(report: SaveReport): string {
  const who = `${report.sessionId}:`;
  if (report.skippedSession) return `${who} already archived, ${report.total} messages skipped (0 embeddings, ${report.durationMs} ms)`;
  const deleted = report.deleted > 0 ? `, ${report.deleted} deleted` : '';
  const removed = report.chunksDeleted > 0 ? `, ${report.chunksDeleted} removed` : '';
  const verb = report.dryRun ? 'would write' : '->';
  const redacted = report.redacted > 0 ? `, ${report.redacted} secret${report.redacted === 1 ? '' : 's'} redacted` : '';
  const copies = report.nearDuplicates > 0 ? `; ${report.nearDuplicates} already in other sessions, see \`duplicates\`` : '';
  return `${who} ${report.total} messages: ${report.new} new, ${report.updated} updated, ${report.skipped} skipped${deleted} ${verb} ${report.chunksWritten} chunks${removed} (${report.embeddingsComputed} embeddings${redacted}, ${report.durationMs} ms)${copies}`;
}

export function engineLogger(io: Io): Logger {
  return { warn: (m) => io.err(`warning: ${m}`), info: () => {} };
}

export function dataDirOf(options: GlobalOptions): string {
  return options.data ? path.resolve(options.data) : defaultDataDir();
}

export async function storeExists(dataDir: string): Promise<boolean> {
  return existsSync(dataDir) && (await ChunkStore.readModel(path.join(dataDir, 'lancedb'))) !== null;
}

export async function withEngine<T>(options: GlobalOptions, io: Io, job: (engine: MemoryEngine) => Promise<T>): Promise<T> {
  const engine = await MemoryEngine.open({
    dataDir: dataDirOf(options),
    ...(options.model ? { model: options.model } : {}),
    // Models can live apart from the data (one download shared by several stores).
    ...(process.env.SESSION_MEMORY_MODELS_DIR ? { modelsDir: path.resolve(process.env.SESSION_MEMORY_MODELS_DIR) } : {}),
    // Test runs only: small commits, so that a save can be interrupted between many of them.
    ...(testSwitch('SESSION_MEMORY_TEST_WRITE_BATCH') ? { writeBatchChunks: Number(testSwitch('SESSION_MEMORY_TEST_WRITE_BATCH')) } : {}),
    ...(testSwitch('SESSION_MEMORY_TEST_OPTIMIZE_EVERY') ? { optimizeEvery: Number(testSwitch('SESSION_MEMORY_TEST_OPTIMIZE_EVERY')) } : {}),
    ...(testSwitch('SESSION_MEMORY_TEST_VECTOR_INDEX_MIN_ROWS') ? { vectorIndexMinRows: Number(testSwitch('SESSION_MEMORY_TEST_VECTOR_INDEX_MIN_ROWS')) } : {}),
    logger: engineLogger(io),
    onDownloadProgress: io.isTTY ? downloadReporter(io) : undefined,
  });
  try {
    return await job(engine);
  } finally {
    await engine.close();
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

/** "conversations.json, conversation abc: [3].mapping must be an object" / "log.jsonl, line 12: invalid JSON ..." */
export function describeSkipped(part: SkippedPart): string {
  const where = part.line !== undefined ? `, line ${part.line}` : part.session !== undefined ? `, conversation ${part.session}` : '';
  return `${part.file}${where}: ${part.error}`;
}

export function progressBar(io: Io, enabled: boolean): { onProgress?: (p: SaveProgress) => void; stop: () => void } {
  if (!enabled || !io.isTTY) return { stop: () => {} };
  const bar = new cliProgress.SingleBar({ format: ' {session} {phase} [{bar}] {value}/{total} chunks', stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    onProgress: (p) => {
      if (p.phase !== 'embedding' || p.total < 64) return;
      if (!started) {
        bar.start(p.total, p.done, { session: p.sessionId, phase: p.phase });
        started = true;
      }
      bar.update(p.done, { session: p.sessionId, phase: p.phase });
    },
    stop: () => started && bar.stop(),
  };
}

/** After saves: says so when the store has outgrown a flat vector scan and has no vector index yet. */
export async function noteMaintenance(engine: MemoryEngine, io: Io): Promise<void> {
  if (!(await engine.maintenanceDue())) return;
  io.err(
    `note: the store holds ${await engine.store.countChunks()} chunks and has no vector index yet, so every search scans all vectors; ` +
      'run "session-memory optimize" to build it (a few minutes; saves can go on meanwhile)',
  );
}

export async function maintainInBackground(engine: MemoryEngine, io: Io, json: boolean): Promise<void> {
  try {
    if (!(await engine.maintenanceDue())) return;
    if (!json) io.err('building the vector index in the background; saves go on meanwhile');
    const report = await engine.maintain();
    if (!json && report.vectorIndexBuilt) io.err(`vector index built in ${(report.vectorIndexMs / 1000).toFixed(1)} s (${report.chunks} chunks)`);
  } catch (error) {
    // Not fatal: searches stay exact (a flat scan), and the next save tries again.
    if (!json) io.err(`session-memory: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export class ExitStatus extends Error {
  constructor(readonly status: number) {
    super(`exit ${status}`);
  }
}

export function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive whole number, not "${value}"`);
  return n;
}

/** A `--threshold`: a cosine similarity from the lowest kept (NEAR_DUPLICATE_FLOOR) to 1. */
export function similarity(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < NEAR_DUPLICATE_FLOOR || n > 1) throw new UsageError(`--threshold must be a similarity from ${NEAR_DUPLICATE_FLOOR} to 1, not "${value}"`);
  return n;
}

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
