/**
 * `session-memory`: the same jobs as the desktop app, headless. Other tools parse the `--json`
 * output, so its fields are a contract (see README, "CLI").
 */
import { Command, Option, CommanderError } from 'commander';
import path from 'node:path';
import { existsSync } from 'node:fs';
import cliProgress from 'cli-progress';
import type { SaveMode, SaveProgress, SaveReport, SessionInput } from '../../shared/domain.js';
import { SAVE_MODES } from '../../shared/domain.js';
import { MemoryEngine, type Logger } from '../engine/engine.js';
import { describeIoError, EngineError } from '../engine/errors.js';
import { normalizeSession } from '../engine/normalize.js';
import { defaultDataDir } from '../engine/paths.js';
import { ChunkStore } from '../engine/store.js';
import { testSwitch } from '../engine/testSwitches.js';
import { readSessionsFromFile, readTranscripts, ImportError, type SkippedPart } from '../importers/index.js';
import { watchTranscripts } from './watch.js';

type IncludedExtra = 'tools' | 'thinking';

function parseInclude(value: string): IncludedExtra[] {
  const parts = value.split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of parts) if (p !== 'tools' && p !== 'thinking') throw new UsageError(`--include takes "tools" and/or "thinking", not "${p}"`);
  return parts as IncludedExtra[];
}

interface GlobalOptions {
  data?: string;
  model?: string;
}

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  isTTY: boolean;
}

const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  isTTY: Boolean(process.stderr.isTTY),
};

/** A failure the user caused: one line, no stack, exit status 2. */
class UsageError extends Error {}

/** The report fields `save --json` prints, in this order. */
export function reportJson(report: SaveReport): Record<string, unknown> {
  const { sessionId, mode, skippedSession, total, new: added, updated, skipped, deleted, chunksWritten, chunksDeleted, chunkIds, embeddingsComputed, durationMs, warnings } = report;
  return { sessionId, mode, skippedSession, total, new: added, updated, skipped, deleted, chunksWritten, chunksDeleted, chunkIds, embeddingsComputed, durationMs, warnings };
}

export function describeReport(report: SaveReport): string {
  const who = `${report.sessionId}:`;
  if (report.skippedSession) return `${who} already archived, ${report.total} messages skipped (0 embeddings, ${report.durationMs} ms)`;
  const deleted = report.deleted > 0 ? `, ${report.deleted} deleted` : '';
  const removed = report.chunksDeleted > 0 ? `, ${report.chunksDeleted} removed` : '';
  const verb = report.dryRun ? 'would write' : '->';
  return `${who} ${report.total} messages: ${report.new} new, ${report.updated} updated, ${report.skipped} skipped${deleted} ${verb} ${report.chunksWritten} chunks${removed} (${report.embeddingsComputed} embeddings, ${report.durationMs} ms)`;
}

function engineLogger(io: Io): Logger {
  return { warn: (m) => io.err(`warning: ${m}`), info: () => {} };
}

function dataDirOf(options: GlobalOptions): string {
  return options.data ? path.resolve(options.data) : defaultDataDir();
}

async function storeExists(dataDir: string): Promise<boolean> {
  return existsSync(dataDir) && (await ChunkStore.readModel(path.join(dataDir, 'lancedb'))) !== null;
}

async function withEngine<T>(options: GlobalOptions, io: Io, job: (engine: MemoryEngine) => Promise<T>): Promise<T> {
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

function downloadReporter(io: Io): (p: { file: string; loaded: number; total: number; status: string }) => void {
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (p.status === 'progress' && now - last < 500) return;
    last = now;
    const pct = p.total > 0 ? ` ${Math.round((p.loaded / p.total) * 100)}%` : '';
    io.err(`downloading ${p.file}${pct}`);
  };
}

/** Reads and checks every session of a file before anything is written. */
async function loadSessions(file: string, sessionOverride?: string): Promise<SessionInput[]> {
  let sessions: SessionInput[];
  try {
    sessions = await readSessionsFromFile(file, sessionOverride ? { sessionId: sessionOverride } : {});
  } catch (error) {
    if (error instanceof ImportError) throw new UsageError(error.message);
    throw error;
  }
  if (sessions.length === 0) throw new UsageError(`${file}: no conversation found`);
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
  return sessions;
}

/** "conversations.json, conversation abc: [3].mapping must be an object" / "log.jsonl, line 12: invalid JSON ..." */
export function describeSkipped(part: SkippedPart): string {
  const where = part.line !== undefined ? `, line ${part.line}` : part.session !== undefined ? `, conversation ${part.session}` : '';
  return `${part.file}${where}: ${part.error}`;
}

function progressBar(io: Io, enabled: boolean): { onProgress?: (p: SaveProgress) => void; stop: () => void } {
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

export function buildProgram(io: Io = defaultIo): Command {
  const program = new Command('session-memory')
    .description('Incremental, deduplicated long-term memory for AI-assistant conversations')
    .option('--data <dir>', 'data directory (default: $SESSION_MEMORY_HOME, else the desktop app\'s)')
    .option('--model <name|dir>', 'embedding model (default: the store\'s, else $SESSION_MEMORY_MODEL, else the multilingual default)')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });

  const globals = (): GlobalOptions => program.opts<GlobalOptions>();

  program
    .command('save')
    .description('save a transcript (or an array of them) incrementally')
    .argument('<file>', 'transcript file')
    .option('--session <id>', 'session id (overrides or supplies the file\'s)')
    .addOption(new Option('--mode <mode>', 'save mode').choices([...SAVE_MODES]).default('incremental'))
    .option('--sync-deletes', 'remove stored messages that are absent from the file')
    .option('--json', 'one JSON report per session per line')
    .action(async (file: string, options: { session?: string; mode: SaveMode; syncDeletes?: boolean; json?: boolean }) => {
      const sessions = await loadSessions(file, options.session);
      await withEngine(globals(), io, async (engine) => {
        for (const session of sessions) {
          const bar = progressBar(io, !options.json);
          try {
            const report = await engine.save(session, { mode: options.mode, syncDeletes: Boolean(options.syncDeletes), onProgress: bar.onProgress });
            bar.stop();
            io.out(options.json ? JSON.stringify(reportJson(report)) : describeReport(report));
            if (!options.json) for (const w of report.warnings) io.err(`warning: ${w}`);
          } finally {
            bar.stop();
          }
        }
        await noteMaintenance(engine, io);
      });
    });

  program
    .command('import')
    .description('import transcripts of any supported format: files, folders, ZIP exports')
    .argument('<paths...>', 'files, folders or ZIP archives')
    .option('--dry-run', 'write nothing; report what a save would do')
    .option('--include <extras>', 'also import tool calls and results ("tools") and model thinking ("thinking"), comma-separated', parseInclude)
    .addOption(new Option('--mode <mode>', 'save mode').choices([...SAVE_MODES]).default('incremental'))
    .option('--sync-deletes', 'remove stored messages that are absent from the files')
    .option('--strict', 'refuse a whole file when any conversation or line of it is damaged (default: skip and name the damaged parts)')
    .option('--json', 'one JSON report per session per line, {"file","error"} per failed file, {"file","session"?,"line"?,"error"} per skipped part')
    .action(async (paths: string[], options: { dryRun?: boolean; include?: IncludedExtra[]; mode: SaveMode; syncDeletes?: boolean; strict?: boolean; json?: boolean }) => {
      let failed = 0;
      let skipped = 0;
      await withEngine(globals(), io, async (engine) => {
        for await (const file of readTranscripts(paths, { ...(options.include ? { include: options.include } : {}), strict: Boolean(options.strict) })) {
          if ('error' in file) {
            failed++;
            if (options.json) io.out(JSON.stringify({ file: file.file, error: file.error.message }));
            else io.err(`session-memory: ${file.error.message}`);
            continue;
          }
          if (!options.json) io.out(`${file.file} (${file.format}${file.encoding ? `, read as ${file.encoding}` : ''}, ${file.sessionCount} session${file.sessionCount === 1 ? '' : 's'}${file.skipped.length > 0 ? `, ${file.skipped.length} damaged part${file.skipped.length === 1 ? '' : 's'} skipped` : ''})`);
          for (const part of file.skipped) {
            skipped++;
            if (options.json) io.out(JSON.stringify(part));
            else io.err(`session-memory: skipped ${describeSkipped(part)}`);
          }
          for await (const session of file.sessions) {
            const bar = progressBar(io, !options.json);
            try {
              const report = await engine.save(session, { mode: options.mode, syncDeletes: Boolean(options.syncDeletes), dryRun: Boolean(options.dryRun), onProgress: bar.onProgress });
              bar.stop();
              io.out(options.json ? JSON.stringify(reportJson(report)) : `  ${describeReport(report)}`);
            } catch (error) {
              bar.stop();
              if (!(error instanceof EngineError) || error.code !== 'invalid_input') throw error;
              failed++;
              const message = `${file.file}: ${session.sessionId}: ${error.message}`;
              if (options.json) io.out(JSON.stringify({ file: file.file, error: message }));
              else io.err(`session-memory: ${message}`);
            }
          }
        }
        if (!options.dryRun) await noteMaintenance(engine, io);
      });
      if (failed > 0) throw new ExitStatus(1);
      if (skipped > 0) throw new ExitStatus(3);
    });

  program
    .command('watch')
    .description('watch a folder (e.g. OpenClaw\'s sessions folder) and save each transcript as it grows')
    .argument('<dir>', 'folder to watch')
    .option('--debounce <ms>', 'wait this long after the last change of a file', (v) => positiveInt(v, '--debounce'), 1500)
    .option('--include <extras>', 'also import "tools" and "thinking", comma-separated', parseInclude)
    .option('--json', 'one JSON report per save per line')
    .action(async (dir: string, options: { debounce: number; include?: IncludedExtra[]; json?: boolean }) => {
      await withEngine(globals(), io, async (engine) => {
        const watcher = await watchTranscripts(engine, {
          dir: path.resolve(dir),
          debounceMs: options.debounce,
          ...(options.include ? { include: options.include } : {}),
          onSkipped: (part) => (options.json ? io.out(JSON.stringify(part)) : io.err(`skipped ${describeSkipped(part)}`)),
          onReport: (file, report) => {
            io.out(options.json ? JSON.stringify({ file, ...reportJson(report) }) : `${path.basename(file)}: ${describeReport(report)}`);
            // A long-running watcher builds the vector index itself once the store needs one; saves go on meanwhile.
            void maintainInBackground(engine, io, Boolean(options.json));
          },
          onError: (file, message) => (options.json ? io.out(JSON.stringify({ file, error: message })) : io.err(`session-memory: ${message}`)),
        });
        if (!options.json) io.err(`watching ${path.resolve(dir)} (Ctrl-C to stop)`);
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        await watcher.close();
        if (!options.json) io.err('stopped');
      });
    });

  program
    .command('sessions')
    .description('list archived sessions')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      if (!(await storeExists(dataDirOf(globals())))) {
        io.out(options.json ? '[]' : 'No sessions archived yet.');
        return;
      }
      await withEngine(globals(), io, async (engine) => {
        const sessions = await engine.listSessions();
        if (options.json) return io.out(JSON.stringify(sessions));
        if (sessions.length === 0) return io.out('No sessions archived yet.');
        for (const s of sessions) io.out(`${s.sessionId}  ${s.title}  ${s.messageCount} messages, ${s.chunkCount} chunks, ${s.saves} saves, last ${s.lastSavedAt}${s.parentSessionId ? `, from ${s.parentSessionId}` : ''}`);
      });
    });

  program
    .command('show')
    .description('show a session\'s messages and chunks')
    .argument('<sessionId>')
    .option('--json', 'print JSON')
    .action(async (sessionId: string, options: { json?: boolean }) => {
      if (!(await storeExists(dataDirOf(globals())))) throw new EngineError('not_found', `no session "${sessionId}" in this store`);
      await withEngine(globals(), io, async (engine) => {
        const detail = await engine.showSession(sessionId);
        if (options.json) return io.out(JSON.stringify(detail));
        io.out(`${detail.sessionId}${detail.title ? `  ${detail.title}` : ''}: ${detail.messages.length} messages in ${detail.chunks.length} chunks`);
        for (const m of detail.messages) io.out(`  [${m.chunkId.slice(0, 10)}] ${m.role}: ${oneLine(m.content, 100)}`);
      });
    });

  program
    .command('history')
    .description('list the saves of a session')
    .argument('<sessionId>')
    .option('--json', 'print JSON')
    .action(async (sessionId: string, options: { json?: boolean }) => {
      if (!(await storeExists(dataDirOf(globals())))) {
        io.out(options.json ? '[]' : `No saves of ${sessionId}.`);
        return;
      }
      await withEngine(globals(), io, async (engine) => {
        const events = await engine.history(sessionId);
        if (options.json) return io.out(JSON.stringify(events));
        if (events.length === 0) return io.out(`No saves of ${sessionId}.`);
        for (const e of events) {
          if (e.forgotten) io.out(`${e.at}  forgotten: ${e.deleted} messages and ${e.chunksDeleted} chunks removed`);
          else io.out(`${e.at}  ${e.mode}${e.skippedSession ? ' (already archived)' : ''}: ${e.new} new, ${e.updated} updated, ${e.skipped} skipped, ${e.deleted} deleted -> ${e.chunksWritten} chunks written, ${e.chunksDeleted} removed`);
        }
      });
    });

  program
    .command('forget')
    .description('remove sessions, or single messages of one session, from the store and from every file under the data folder')
    .argument('<sessionId...>')
    .option('--messages <ids>', 'forget only these messages (comma-separated ids) of the one session named', (value: string) => value.split(',').map((id) => id.trim()).filter(Boolean))
    .option('--json', 'one line per session: {"sessionId","messagesRemoved","chunksRemoved"}')
    .action(async (sessionIds: string[], options: { messages?: string[]; json?: boolean }) => {
      if (options.messages && sessionIds.length !== 1) throw new UsageError('--messages takes exactly one session id');
      if (!(await storeExists(dataDirOf(globals())))) throw new EngineError('not_found', `no session "${sessionIds[0]}" in this store; nothing was forgotten`);
      await withEngine(globals(), io, async (engine) => {
        const reports = options.messages ? [await engine.forgetMessages(sessionIds[0]!, options.messages)] : await engine.forget(sessionIds);
        for (const r of reports) io.out(options.json ? JSON.stringify(r) : `forgot ${r.sessionId}: ${r.messagesRemoved} messages, ${r.chunksRemoved} chunks`);
      });
    });

  program
    .command('search')
    .description('search all memory (meaning and words)')
    .argument('<query>')
    .option('--limit <n>', 'how many results', (v) => positiveInt(v, '--limit'), 10)
    .option('--session <id>', 'only this session')
    .option('--all-copies', 'list copies of the same text in other chunks and sessions as results of their own')
    .option('--json', 'print JSON')
    .action(async (query: string, options: { limit: number; session?: string; allCopies?: boolean; json?: boolean }) => {
      if (!(await storeExists(dataDirOf(globals())))) {
        io.out(options.json ? '[]' : 'Nothing stored yet.');
        return;
      }
      await withEngine(globals(), io, async (engine) => {
        const hits = await engine.search(query, { limit: options.limit, collapse: !options.allCopies, ...(options.session ? { sessionId: options.session } : {}) });
        if (options.json) return io.out(JSON.stringify(hits));
        if (hits.length === 0) return io.out('No matches.');
        for (const h of hits) {
          const copies = h.alsoIn.length > 0 ? `\n       also in: ${[...new Set(h.alsoIn.map((c) => c.sessionId))].join(', ')}` : '';
          io.out(`${h.score.toFixed(3)}  ${h.sessionId}  ${h.chunkId}\n       ${oneLine(h.text, 160)}${copies}`);
        }
      });
    });

  program
    .command('mcp')
    .description('serve this memory to AI assistants over the Model Context Protocol (stdio)')
    .option('--read-only', 'leave out the save_session tool')
    .action(async (options: { readOnly?: boolean }) => {
      const { serveStdio } = await import('../mcp/stdio.js');
      await serveStdio({
        dataDir: dataDirOf(globals()),
        ...(globals().model ? { model: globals().model } : {}),
        ...(process.env.SESSION_MEMORY_MODELS_DIR ? { modelsDir: path.resolve(process.env.SESSION_MEMORY_MODELS_DIR) } : {}),
        readOnly: Boolean(options.readOnly),
        logger: { warn: (m) => io.err(`warning: ${m}`), info: (m) => io.err(m) },
      });
    });

  program
    .command('optimize')
    .description('build the vector index once the store is large enough, and compact the store')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      if (!(await storeExists(dataDirOf(globals())))) {
        io.out(options.json ? JSON.stringify({ vectorIndexBuilt: false, vectorIndexMs: 0, compactMs: 0, chunks: 0 }) : 'Nothing to do: the store is empty.');
        return;
      }
      await withEngine(globals(), io, async (engine) => {
        const due = await engine.maintenanceDue();
        if (due && !options.json) io.err(`building the vector index of ${await engine.store.countChunks()} chunks (a few minutes; saves can go on meanwhile)`);
        const report = await engine.maintain();
        if (options.json) return io.out(JSON.stringify(report));
        io.out(
          `${report.vectorIndexBuilt ? `Vector index built in ${(report.vectorIndexMs / 1000).toFixed(1)} s; ` : ''}` +
            `store compacted in ${(report.compactMs / 1000).toFixed(1)} s (${report.chunks} chunks).`,
        );
      });
    });

  program
    .command('verify')
    .description('check the store and the archive record; exit status 1 when problems are found')
    .option('--repair', 'rebuild the archive record from the store')
    .option('--json', 'print JSON')
    .action(async (options: { repair?: boolean; json?: boolean }) => {
      const empty = { ok: true, sessions: 0, messages: 0, chunks: 0, problems: [] as string[] };
      const result = (await storeExists(dataDirOf(globals()))) ? await withEngine(globals(), io, (engine) => engine.verify({ repair: Boolean(options.repair) })) : empty;
      if (options.json) io.out(JSON.stringify(result));
      else {
        io.out(`${result.ok ? 'OK' : 'PROBLEMS'}: ${result.sessions} sessions, ${result.messages} messages, ${result.chunks} chunks`);
        for (const p of result.problems) io.out(`  - ${p}`);
        if (options.repair && !result.ok) io.out('The archive record was rebuilt from the store.');
      }
      if (!result.ok) throw new ExitStatus(1);
    });

  return program;
}

/** After saves: says so when the store has outgrown a flat vector scan and has no vector index yet. */
async function noteMaintenance(engine: MemoryEngine, io: Io): Promise<void> {
  if (!(await engine.maintenanceDue())) return;
  io.err(
    `note: the store holds ${await engine.store.countChunks()} chunks and has no vector index yet, so every search scans all vectors; ` +
      'run "session-memory optimize" to build it (a few minutes; saves can go on meanwhile)',
  );
}

async function maintainInBackground(engine: MemoryEngine, io: Io, json: boolean): Promise<void> {
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

class ExitStatus extends Error {
  constructor(readonly status: number) {
    super(`exit ${status}`);
  }
}

function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive whole number, not "${value}"`);
  return n;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Runs the CLI and returns the exit status. Errors become one line on stderr. */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof ExitStatus) return error.status;
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      io.err(`session-memory: ${error.message}`);
      return 2;
    }
    if (error instanceof EngineError) {
      io.err(`session-memory: ${error.message}`);
      return error.code === 'invalid_input' ? 2 : 1;
    }
    const described = describeIoError(error, 'session-memory');
    io.err(described.code === 'internal' ? `session-memory: ${error instanceof Error ? error.message : String(error)}` : described.message);
    if (process.env.SESSION_MEMORY_DEBUG) io.err(String((error as Error).stack));
    return 1;
  }
}
