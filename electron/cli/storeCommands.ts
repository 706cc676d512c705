/**
 * What the commands that open the store do (`save`, `import`, `watch`, `sessions`, `show`,
 * `history`, `forget`, `redact`, `search`, `duplicates`, `optimize`, `verify`). main.ts defines
 * the commands and loads this module only when one of them runs, so `--help`, a hook and the MCP
 * server start without it (and without cli-progress); the store's code loads later still, through
 * engineSupport.ts, once a command finds a store to open.
 */
import cliProgress from 'cli-progress';
import path from 'node:path';
import type { SaveMode, SaveProgress, VerifyResult } from '../../shared/domain.js';
import { EngineError } from '../engine/errors.js';
import type { MemoryEngine } from '../engine/engine.js';
import { describeReport, describeSkipped, ExitStatus, oneLine, reportJson, UsageError, type GlobalOptions, type IncludedExtra, type Io } from './support.js';

// The store, the importers and the model load only once a command has a store to open.
const engineSupport = () => import('./engineSupport.js');
const withEngine = async <T>(options: GlobalOptions, io: Io, job: (engine: MemoryEngine) => Promise<T>): Promise<T> => (await engineSupport()).withEngine(options, io, job);
const storeExists = async (options: GlobalOptions) => (await engineSupport()).storeExists(options);
const withPreviewEngine = async <T>(options: GlobalOptions, io: Io, job: (engine: MemoryEngine) => Promise<T>): Promise<T> => (await engineSupport()).withPreviewEngine(options, io, job);
const loadSessions = async (file: string, session?: string) => (await engineSupport()).loadSessions(file, session);
const noteMaintenance = async (engine: MemoryEngine, io: Io) => (await engineSupport()).noteMaintenance(engine, io);
const maintainInBackground = async (engine: MemoryEngine, io: Io, json: boolean) => (await engineSupport()).maintainInBackground(engine, io, json);

export interface SaveFlags { session?: string; mode: SaveMode; syncDeletes?: boolean; redact: boolean; unforget?: boolean; json?: boolean }
export interface ImportFlags { dryRun?: boolean; include?: IncludedExtra[]; mode: SaveMode; syncDeletes?: boolean; redact: boolean; strict?: boolean; unforget?: boolean; json?: boolean }
export interface WatchFlags { debounce: number; include?: IncludedExtra[]; redact: boolean; json?: boolean }
export interface JsonFlag { json?: boolean }
export interface ForgetFlags { messages?: string[]; json?: boolean }
export interface RedactFlags { dryRun?: boolean; json?: boolean }
export interface SearchFlags { limit: number; session?: string; allCopies?: boolean; json?: boolean }
export interface DuplicatesFlags { threshold: number; limit: number; dismiss?: string; all?: boolean; json?: boolean }
export interface VerifyFlags { repair?: boolean; json?: boolean }

/** `save <file>`: a transcript (or an array of them), saved incrementally. */
export async function save(io: Io, globals: () => GlobalOptions, file: string, options: SaveFlags): Promise<void> {
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
}

/** `import` */
export async function importFiles(io: Io, globals: () => GlobalOptions, paths: string[], options: ImportFlags): Promise<void> {
  let failed = 0;
  let skipped = 0;
  await (options.dryRun ? withPreviewEngine : withEngine)(globals(), io, async (engine) => {
    const { incompleteSessions, readTranscripts } = await import('../importers/index.js');
    for await (const file of readTranscripts(paths, { ...(options.include ? { include: options.include } : {}), strict: Boolean(options.strict) })) {
      if ('error' in file && file.passedOver) {
        if (options.json) io.out(JSON.stringify({ file: file.file, passedOver: file.error.problem }));
        else io.err(`session-memory: passed over ${file.error.message}`);
        continue;
      }
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
}

/** `watch` */
export async function watch(io: Io, globals: () => GlobalOptions, dir: string, options: WatchFlags): Promise<void> {
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
}

/** `sessions` */
export async function sessions(io: Io, globals: () => GlobalOptions, options: JsonFlag): Promise<void> {
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
}

/** `show` */
export async function show(io: Io, globals: () => GlobalOptions, sessionId: string, options: JsonFlag): Promise<void> {
  if (!(await storeExists(globals()))) throw new EngineError('not_found', `no session "${sessionId}" in this store`);
  await withEngine(globals(), io, async (engine) => {
    const detail = await engine.showSession(sessionId);
    if (options.json) return io.out(JSON.stringify(detail));
    io.out(`${detail.sessionId}${detail.title ? `  ${detail.title}` : ''}: ${detail.messages.length} messages in ${detail.chunks.length} chunks`);
    for (const m of detail.messages) io.out(`  [${m.chunkId.slice(0, 10)}] ${m.speaker ? `${m.speaker} (${m.role})` : m.role}: ${oneLine(m.content, 100)}`);
  });
}

/** `history` */
export async function history(io: Io, globals: () => GlobalOptions, sessionId: string, options: JsonFlag): Promise<void> {
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
}

/** `forget` */
export async function forget(io: Io, globals: () => GlobalOptions, sessionIds: string[], options: ForgetFlags): Promise<void> {
  if (options.messages && sessionIds.length !== 1) throw new UsageError('--messages takes exactly one session id');
  if (!(await storeExists(globals()))) throw new EngineError('not_found', `no session "${sessionIds[0]}" in this store; nothing was forgotten`);
  await withEngine(globals(), io, async (engine) => {
    const reports = options.messages ? [await engine.forgetMessages(sessionIds[0]!, options.messages)] : await engine.forget(sessionIds);
    for (const r of reports) io.out(options.json ? JSON.stringify(r) : `forgot ${r.sessionId}: ${r.messagesRemoved} messages, ${r.chunksRemoved} chunks`);
  });
}

/** `redact` */
export async function redact(io: Io, globals: () => GlobalOptions, options: RedactFlags): Promise<void> {
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
}

/** `search` */
export async function search(io: Io, globals: () => GlobalOptions, query: string, options: SearchFlags): Promise<void> {
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
}

/** `duplicates` */
export async function duplicates(io: Io, globals: () => GlobalOptions, options: DuplicatesFlags): Promise<void> {
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
}

/** `optimize` */
export async function optimize(io: Io, globals: () => GlobalOptions, options: JsonFlag): Promise<void> {
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
}

/** `verify` */
export async function verify(io: Io, globals: () => GlobalOptions, options: VerifyFlags): Promise<void> {
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
