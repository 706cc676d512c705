/**
 * `session-memory`: the same jobs as the desktop app, headless. Other tools parse the `--json`
 * output, so its fields are a contract (see README, "CLI").
 */
import { Command, Option, CommanderError } from 'commander';
import path from 'node:path';
import type { SaveMode, VerifyResult } from '../../shared/domain.js';
import { DUPLICATE_THRESHOLD, NEAR_DUPLICATE_FLOOR, SAVE_MODES } from '../../shared/domain.js';
import { describeIoError, EngineError } from '../engine/errors.js';
import type { MemoryEngine } from '../engine/engine.js';
import { registerCopyCommand } from './copyCommand.js';
import { registerConnectCommands } from './connectCommands.js';
import { hookRun, runHook } from './hookRun.js';
import { registerSourceCommands } from './sourceCommands.js';
import {
  parseInclude,
  defaultIo,
  UsageError,
  reportJson,
  describeReport,
  locationOf,
  describeSkipped,
  progressBar,
  ExitStatus,
  positiveInt,
  similarity,
  oneLine,
  type GlobalOptions,
  type IncludedExtra,
  type Io,
} from './support.js';

// The store, the importers and the model load only for the commands that use them: `--help`, and a
// hook or sync with nothing new, start in a fraction of the time.
const engineSupport = () => import('./engineSupport.js');
const withEngine = async <T>(options: GlobalOptions, io: Io, job: (engine: MemoryEngine) => Promise<T>): Promise<T> => (await engineSupport()).withEngine(options, io, job);
const storeExists = async (options: GlobalOptions) => (await engineSupport()).storeExists(options);
const withPreviewEngine = async <T>(options: GlobalOptions, io: Io, job: (engine: MemoryEngine) => Promise<T>): Promise<T> => (await engineSupport()).withPreviewEngine(options, io, job);
const loadSessions = async (file: string, session?: string) => (await engineSupport()).loadSessions(file, session);
const noteMaintenance = async (engine: MemoryEngine, io: Io) => (await engineSupport()).noteMaintenance(engine, io);
const maintainInBackground = async (engine: MemoryEngine, io: Io, json: boolean) => (await engineSupport()).maintainInBackground(engine, io, json);

export { describeReport, describeSkipped, reportJson } from './support.js';

export function buildProgram(io: Io = defaultIo): Command {
  const program = new Command('session-memory')
    .description('Incremental, deduplicated long-term memory for AI-assistant conversations')
    .option('--data <dir|uri>', 'data directory, or a shared store: s3://bucket/prefix, s3+ddb://bucket/prefix?ddbTableName=T, gs://, az:// (default: $SESSION_MEMORY_HOME, else the desktop app\'s folder)')
    .option('--single-writer', 'only this machine writes to the shared store: use an s3:// store even when its server lacks conditional writes')
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
    .option('--no-redact', 'store secrets (keys, tokens, passwords) as they are instead of [REDACTED:<kind>]')
    .option('--unforget', 'save a session that was forgotten (on any machine of this store) again, on purpose; without it, a forgotten session is left out')
    .option('--json', 'one JSON report per session per line')
    .action(async (file: string, options: { session?: string; mode: SaveMode; syncDeletes?: boolean; redact: boolean; unforget?: boolean; json?: boolean }) => {
      const { sessions, skipped, incomplete } = await loadSessions(file, options.session);
      // Damaged parts are named as \`import\` names them, before anything is saved.
      for (const part of skipped) io[options.json ? 'out' : 'err'](options.json ? JSON.stringify(part) : `session-memory: skipped ${describeSkipped(part)}`);
      await withEngine(globals(), io, async (engine) => {
        for (const session of sessions) {
          const bar = progressBar(io, !options.json);
          try {
            const report = await engine.save(session, { mode: options.mode, syncDeletes: Boolean(options.syncDeletes), redact: options.redact, onProgress: bar.onProgress, ...(incomplete ? { incomplete } : {}), ...(options.unforget ? { unforget: true } : {}) });
            bar.stop();
            io.out(options.json ? JSON.stringify(reportJson(report)) : describeReport(report));
            if (!options.json) for (const w of report.warnings) io.err(`warning: ${w}`);
          } finally {
            bar.stop();
          }
        }
        await noteMaintenance(engine, io);
      });
      if (skipped.length > 0) throw new ExitStatus(3);
    });

  program
    .command('import')
    .description('import transcripts of any supported format: files, folders, ZIP exports')
    .argument('<paths...>', 'files, folders or ZIP archives')
    .option('--dry-run', 'write nothing; report what a save would do')
    .option('--include <extras>', 'also import tool calls and results ("tools") and model thinking ("thinking"), comma-separated', parseInclude)
    .addOption(new Option('--mode <mode>', 'save mode').choices([...SAVE_MODES]).default('incremental'))
    .option('--sync-deletes', 'remove stored messages that are absent from the files')
    .option('--no-redact', 'store secrets (keys, tokens, passwords) as they are instead of [REDACTED:<kind>]')
    .option('--strict', 'refuse a whole file when any conversation or line of it is damaged (default: skip and name the damaged parts)')
    .option('--unforget', 'save sessions that were forgotten (on any machine of this store) again, on purpose; without it, forgotten sessions are left out')
    .option('--json', 'one JSON report per session per line, {"file","error"} per failed file, {"file","session"?,"line"?,"error"} per skipped part')
    .action(async (paths: string[], options: { dryRun?: boolean; include?: IncludedExtra[]; mode: SaveMode; syncDeletes?: boolean; redact: boolean; strict?: boolean; unforget?: boolean; json?: boolean }) => {
      let failed = 0;
      let skipped = 0;
      await (options.dryRun ? withPreviewEngine : withEngine)(globals(), io, async (engine) => {
        const { incompleteSessions, readTranscripts } = await import('../importers/index.js');
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
              const incomplete = incompleteSessions(file);
              const report = await engine.save(session, { mode: options.mode, syncDeletes: Boolean(options.syncDeletes), dryRun: Boolean(options.dryRun), redact: options.redact, onProgress: bar.onProgress, ...(incomplete ? { incomplete } : {}), ...(options.unforget ? { unforget: true } : {}) });
              bar.stop();
              io.out(options.json ? JSON.stringify(reportJson(report)) : `  ${describeReport(report)}`);
              if (!options.json) for (const w of report.warnings) io.err(`warning: ${w}`);
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
    .option('--no-redact', 'store secrets (keys, tokens, passwords) as they are instead of [REDACTED:<kind>]')
    .option('--json', 'one JSON report per save per line')
    .action(async (dir: string, options: { debounce: number; include?: IncludedExtra[]; redact: boolean; json?: boolean }) => {
      await withEngine(globals(), io, async (engine) => {
        const { watchTranscripts } = await import('./watch.js');
        const watcher = await watchTranscripts(engine, {
          dir: path.resolve(dir),
          debounceMs: options.debounce,
          redact: options.redact,
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
      if (!(await storeExists(globals()))) {
        io.out(options.json ? '[]' : 'No sessions archived yet.');
        return;
      }
      await withEngine(globals(), io, async (engine) => {
        const sessions = await engine.listSessions();
        if (options.json) return io.out(JSON.stringify(sessions));
        if (sessions.length === 0) return io.out('No sessions archived yet.');
        for (const s of sessions) io.out(`${s.sessionId}  ${s.title}  ${s.messageCount} messages, ${s.chunkCount} chunks, ${s.saves} saves, last ${s.lastSavedAt}${s.parentSessionId ? `, from ${s.parentSessionId}` : ''}${s.forkOf ? `, branched from ${s.forkOf.sessionId} at message ${s.forkOf.sharedMessages}` : ''}`);
      });
    });

  program
    .command('show')
    .description('show a session\'s messages and chunks')
    .argument('<sessionId>')
    .option('--json', 'print JSON')
    .action(async (sessionId: string, options: { json?: boolean }) => {
      if (!(await storeExists(globals()))) throw new EngineError('not_found', `no session "${sessionId}" in this store`);
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
      if (!(await storeExists(globals()))) {
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
      if (!(await storeExists(globals()))) throw new EngineError('not_found', `no session "${sessionIds[0]}" in this store; nothing was forgotten`);
      await withEngine(globals(), io, async (engine) => {
        const reports = options.messages ? [await engine.forgetMessages(sessionIds[0]!, options.messages)] : await engine.forget(sessionIds);
        for (const r of reports) io.out(options.json ? JSON.stringify(r) : `forgot ${r.sessionId}: ${r.messagesRemoved} messages, ${r.chunksRemoved} chunks`);
      });
    });

  program
    .command('redact')
    .description('replace secrets (keys, tokens, passwords) in what is already archived with [REDACTED:<kind>], leaving no unredacted copy on disk')
    .option('--dry-run', 'write nothing; report what would be redacted')
    .option('--json', 'one line per session with secrets: {"sessionId","messages","secrets","kinds","chunksRewritten","embeddingsComputed"}, then {"sessionsScanned","messagesScanned","sessionsRedacted","secrets","dryRun"}')
    .action(async (options: { dryRun?: boolean; json?: boolean }) => {
      const empty = { dryRun: Boolean(options.dryRun), sessionsScanned: 0, messagesScanned: 0, sessions: [] };
      const report = (await storeExists(globals())) ? await withEngine(globals(), io, (engine) => engine.redact({ dryRun: Boolean(options.dryRun) })) : empty;
      const secrets = report.sessions.reduce((n, s) => n + s.secrets, 0);
      for (const s of report.sessions) {
        const kinds = Object.entries(s.kinds).map(([kind, n]) => `${n} ${kind}`).join(', ');
        io.out(options.json ? JSON.stringify(s) : `${s.sessionId}: ${s.secrets} secret${s.secrets === 1 ? '' : 's'} in ${s.messages} message${s.messages === 1 ? '' : 's'} (${kinds})${report.dryRun ? '' : `; ${s.chunksRewritten} chunks rewritten`}`);
      }
      const verb = report.dryRun ? 'would redact' : 'redacted';
      if (options.json) io.out(JSON.stringify({ sessionsScanned: report.sessionsScanned, messagesScanned: report.messagesScanned, sessionsRedacted: report.sessions.length, secrets, dryRun: report.dryRun }));
      else io.out(`${report.messagesScanned} messages in ${report.sessionsScanned} sessions scanned: ${verb} ${secrets} secret${secrets === 1 ? '' : 's'} in ${report.sessions.length} session${report.sessions.length === 1 ? '' : 's'}`);
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
      if (!(await storeExists(globals()))) {
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
    .command('duplicates')
    .description('list chunks that other sessions hold too, the same or nearly (kept up to date by every save)')
    .option('--threshold <similarity>', `lowest cosine similarity listed, ${NEAR_DUPLICATE_FLOOR} to 1`, (v) => similarity(v), DUPLICATE_THRESHOLD)
    .option('--limit <n>', 'how many clusters', (v) => positiveInt(v, '--limit'), 20)
    .option('--dismiss <clusterId>', 'dismiss a cluster by the id a listing showed (at any --threshold: a cluster keeps its id at every threshold that lists it); it is not listed again')
    .option('--all', 'also list dismissed clusters')
    .option('--json', 'print JSON: {threshold, total, dismissed, clusters: [{id, similarity, chunks: [{chunkId, sessionId, sessionTitle, text}]}]}')
    .action(async (options: { threshold: number; limit: number; dismiss?: string; all?: boolean; json?: boolean }) => {
      if (!(await storeExists(globals()))) {
        io.out(options.json ? JSON.stringify({ threshold: options.threshold, total: 0, dismissed: 0, clusters: [] }) : 'Nothing stored yet.');
        return;
      }
      await withEngine(globals(), io, async (engine) => {
        if (options.dismiss) {
          const { dismissed } = await engine.dismissDuplicates(options.dismiss);
          return io.out(options.json ? JSON.stringify({ dismissed: options.dismiss, chunks: dismissed }) : `Dismissed ${options.dismiss} (${dismissed} chunks).`);
        }
        const listing = await engine.duplicates({ threshold: options.threshold, limit: options.limit, includeDismissed: Boolean(options.all) }, (done, total) => {
          if (!options.json && done === 1) io.err(`checking ${total} session${total === 1 ? '' : 's'} saved without a near-duplicate check`);
        });
        if (options.json) return io.out(JSON.stringify(listing));
        if (listing.total === 0 && listing.clusters.length === 0) return io.out(`No near duplicates at similarity ${listing.threshold} or above${listing.dismissed > 0 ? ` (${listing.dismissed} dismissed)` : ''}.`);
        io.out(`${listing.total} cluster${listing.total === 1 ? '' : 's'} at similarity ${listing.threshold} or above${listing.dismissed > 0 ? ` (${listing.dismissed} dismissed)` : ''}${listing.clusters.length < listing.total ? `; the first ${listing.clusters.length}` : ''}:`);
        for (const cluster of listing.clusters) {
          io.out(`\n${cluster.id}  similarity ${cluster.similarity.toFixed(3)}, ${cluster.chunks.length} chunks in ${new Set(cluster.chunks.map((c) => c.sessionId)).size} sessions${cluster.dismissed ? ' (dismissed)' : ''}`);
          for (const c of cluster.chunks) io.out(`  ${c.sessionId}${c.sessionTitle ? ` (${oneLine(c.sessionTitle, 40)})` : ''}  ${c.chunkId}\n    ${oneLine(c.text, 150)}`);
        }
      });
    });

  program
    .command('mcp')
    .description('serve this memory to AI assistants over the Model Context Protocol (stdio)')
    .option('--read-only', 'leave out the save_session tool')
    .action(async (options: { readOnly?: boolean }) => {
      const { serveStdio } = await import('../mcp/stdio.js');
      const location = locationOf(globals());
      const modelsDir = process.env.SESSION_MEMORY_MODELS_DIR ?? location.modelsDir;
      await serveStdio({
        dataDir: location.dataDir,
        ...(location.shared ? { storeUri: location.storeUri } : {}),
        ...(globals().singleWriter ? { singleWriter: true } : {}),
        ...(globals().model ? { model: globals().model } : {}),
        ...(modelsDir ? { modelsDir: path.resolve(modelsDir) } : {}),
        readOnly: Boolean(options.readOnly),
        logger: { warn: (m) => io.err(`warning: ${m}`), info: (m) => io.err(m) },
      });
    });

  program
    .command('optimize')
    .description('build the vector index once the store is large enough, and compact the store')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      if (!(await storeExists(globals()))) {
        io.out(options.json ? JSON.stringify({ vectorIndexBuilt: false, vectorIndexMs: 0, compactMs: 0, chunks: 0 }) : 'Nothing to do: the store is empty.');
        return;
      }
      await withEngine(globals(), io, async (engine) => {
        const due = await engine.maintenanceDue();
        if (due && !options.json) io.err(`building the vector index of ${await engine.store.countChunks()} chunks (a few minutes; saves to a folder go on meanwhile, saves to a shared store wait for it)`);
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
      const result = (await storeExists(globals())) ? await withEngine(globals(), io, (engine) => engine.verify({ repair: Boolean(options.repair) })) : empty;
      if (options.json) io.out(JSON.stringify(result));
      else {
        io.out(`${result.ok ? 'OK' : 'PROBLEMS'}: ${result.sessions} sessions, ${result.messages} messages, ${result.chunks} chunks`);
        for (const p of result.problems) io.out(`  - ${p}`);
        if (options.repair && !result.ok) io.out('The archive record was rebuilt from the store.');
        const retention = (result as Partial<VerifyResult>).retention;
        if (retention) io.out(`Deleted objects: ${retention.message}`);
      }
      if (!result.ok) throw new ExitStatus(1);
    });

  registerSourceCommands(program, io, globals);
  registerCopyCommand(program, io, globals);
  registerConnectCommands(program, io, globals);

  return program;
}

/** Runs the CLI and returns the exit status. Errors become one line on stderr. */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const hook = hookRun(argv);
  if (hook) return runHook(argv, io, hook, run);
  return run(argv, io);
}

async function run(argv: string[], io: Io): Promise<number> {
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
