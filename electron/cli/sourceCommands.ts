/**
 * `sources`, `sync` and `hook`: the assistants' conversations on this machine, found in their
 * tools' places and saved as they happen. Light to load: the store and the importers are loaded
 * only once a file has something new, so a hook after a turn with nothing new returns at once.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SaveReport } from '../../shared/domain.js';
import { testSwitch } from '../engine/files/index.js';
import type { FoundSource } from '../sources/discover.js';
import type { SyncOptions } from '../sources/sync.js';
import { dataDirOf, describeReport, describeSkipped, ExitStatus, parseInclude, positiveInt, reportJson, UsageError, type GlobalOptions, type IncludedExtra, type Io } from './support.js';

// The sources' code (finding them, with tinyglobby; their cursors; the hand-over) loads when one of
// these commands runs, not with every command: `--help` and the MCP server start without it.
const sourceCode = async () => {
  const [discover, cursors, sync, settings] = await Promise.all([import('../sources/discover.js'), import('../sources/cursors.js'), import('../sources/sync.js'), import('../sources/sourceSettings.js')]);
  return { discoverSources: discover.discoverSources, SourceCursors: cursors.SourceCursors, syncFile: sync.syncFile, syncSources: sync.syncSources, loadSourceSettings: settings.loadSourceSettings };
};

interface SyncFlags {
  watch?: boolean;
  json?: boolean;
  source?: string[];
  include?: IncludedExtra[];
  redact: boolean;
  debounce: number;
  poll: number;
}

export function registerSourceCommands(program: Command, io: Io, globals: () => GlobalOptions): void {
  program
    .command('sources')
    .description('list the assistants\' conversation folders found on this machine (nothing is read)')
    .option('--json', 'print JSON: [{"id","tool","path","sessions","lastModified","enabled"}]')
    .action(async (options: { json?: boolean }) => {
      const { discoverSources, loadSourceSettings } = await sourceCode();
      const settings = await loadSourceSettings(dataDirOf(globals()));
      const found = await discoverSources({ personFolders: settings.folders });
      const rows = found.map((s) => ({ id: s.id, tool: s.tool, path: s.path, sessions: s.sessions, lastModified: s.lastModified, enabled: settings.enabled[s.id] === true }));
      if (options.json) return io.out(JSON.stringify(rows));
      if (rows.length === 0) return io.out('No assistant conversations found on this machine.');
      for (const r of found) {
        const pending = r.picks.some((p) => !p.pick.imports && p.files.length > 0) ? ' (format not imported yet)' : '';
        io.out(`${r.id}  ${r.tool}  ${r.path}  ${r.sessions} session${r.sessions === 1 ? '' : 's'}${r.lastModified ? `, last changed ${r.lastModified}` : ''}${settings.enabled[r.id] ? ', on in the app' : ''}${pending}`);
      }
    });

  program
    .command('sync')
    .description('save what is new in every source found (or those named with --source)')
    .option('--watch', 'keep following: save each conversation as it grows (Ctrl-C to stop)')
    .option('--source <id>', 'only this source (repeatable; see `sources`)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--include <extras>', 'also import "tools" and "thinking", comma-separated', parseInclude)
    .option('--no-redact', 'store secrets (keys, tokens, passwords) as they are instead of [REDACTED:<kind>]')
    .option('--debounce <ms>', 'with --watch: wait this long after the last change of a file', (v) => positiveInt(v, '--debounce'), 1000)
    .option('--poll <ms>', 'with --watch: how often databases are looked at', (v) => positiveInt(v, '--poll'), 2000)
    .addOption(new Option('--json', 'one save report per line, as `import --json` prints them, with "source" and "file"; {"source","file","error"} per failed file; {"source","unsupported"} per source whose format does not import yet'))
    .action(async (flags: SyncFlags) => {
      // Listened for from the start: Ctrl-C during the first sync stops it at a safe point too.
      const stop = flags.watch ? (await import('./stopRequests.js')).stopRequests() : null;
      try {
        const dataDir = dataDirOf(globals());
        const { discoverSources, loadSourceSettings, SourceCursors, syncSources } = await sourceCode();
        const settings = await loadSourceSettings(dataDir);
        const sources = selectSources(await discoverSources({ personFolders: settings.folders }), flags.source);
        const engine = lazyEngineOnDemand(globals(), io);
        let failed = 0;
        const options: SyncOptions = {
          cursors: await SourceCursors.load(dataDir),
          engine: engine.get,
          ...(flags.include ? { include: flags.include } : {}),
          redact: flags.redact,
          ...(stop ? { signal: stop.signal } : {}),
          ...syncPrinter(io, Boolean(flags.json), () => failed++),
        };
        try {
          const results = await syncSources(sources, options);
          if (!flags.json && !flags.watch) {
            for (const r of results) if (r.sessionsSaved === 0 && r.errors.length === 0 && !r.unsupported) io.err(`${r.id}: nothing new`);
          }
          if (stop && !stop.signal.aborted) {
            const { followSources } = await import('./syncWatch.js');
            await followSources(dataDir, sources, options, { debounceMs: flags.debounce, pollMs: flags.poll, json: Boolean(flags.json), io, stop: stop.signal });
          }
        } finally {
          // Waits for the save under way; the write lock is released when it ends.
          await engine.close();
        }
        if (stop && !flags.json) io.err('stopped');
        if (failed > 0) throw new ExitStatus(1);
      } finally {
        stop?.dispose();
      }
    });

  program
    .command('hook')
    .description('save the conversation an assistant\'s hook names: Claude Code\'s and Gemini CLI\'s hooks and Codex\'s Stop hook pass it as JSON on stdin, Codex\'s notify as its last argument. Prints nothing (what it did goes to <data>/logs/hooks.log), exits 0 whatever happens, and hands the save to the app or `sync --watch` when one runs')
    .argument('[payload...]', 'Codex\'s notify JSON (Codex appends it); other arguments are ignored')
    .option('--file <transcript>', 'the transcript to save, instead of the one the hook input names')
    .option('--include <extras>', 'also import "tools" and "thinking", comma-separated', parseInclude)
    .option('--json', 'one save report per line on stdout (for scripts; an assistant\'s hook wants nothing there)')
    .option('--verbose', 'also write what the hook did to stderr')
    // An assistant's hook must never fail on arguments a newer client adds.
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (payload: string[], flags: { file?: string; include?: IncludedExtra[]; json?: boolean }) => {
      const dataDir = dataDirOf(globals());
      const { codexHome, findCodexRollout, notifyPayloadOf, stdinTargetOf } = await import('../sources/hookInput.js');
      const target = flags.file ? ({ kind: 'file', file: flags.file } as const) : (notifyPayloadOf(payload) ?? stdinTargetOf(await readStdin()));
      const event = 'event' in target && target.event ? ` (${target.event})` : '';
      let file: string;
      if (target.kind === 'none') {
        io.err(`hook: nothing saved: ${target.reason}`);
        return;
      } else if (target.kind === 'codex-thread') {
        const home = codexHome();
        const found = await findCodexRollout(target.threadId, home);
        if (!found) {
          io.err(`hook: nothing saved: no rollout of Codex thread ${target.threadId} under ${path.join(home, 'sessions')}`);
          return;
        }
        file = found;
      } else {
        file = path.resolve(target.file);
      }
      if (!(await exists(file))) {
        io.err(`hook: nothing saved: ${file} does not exist`);
        return;
      }
      // The save report goes to stdout only when asked for (--json); else to the log (and stderr with --verbose).
      const said = (line: string) => (flags.json ? io.out(line) : io.err(line));
      let saved = 0;
      let failed = 0;
      const printer = syncPrinter({ ...io, out: said }, Boolean(flags.json), () => failed++);
      const onReport = printer.onReport;
      printer.onReport = (source, from, report) => {
        saved++;
        onReport(source, from, report);
      };
      const { handOff } = await import('../sources/handoff.js');
      const handed = await handOff(dataDir, { op: 'save', file, ...(flags.include ? { include: flags.include } : {}) }, (reply) => {
        if ('report' in reply) {
          saved++;
          said(flags.json ? JSON.stringify(reply.report) : `hook: ${String(reply.report.sessionId)}: saved by the running app (${String(reply.report.new)} new)`);
        } else if ('skipped' in reply) io.err(`hook: skipped ${JSON.stringify(reply.skipped)}`);
        else if ('error' in reply) {
          failed++;
          io.err(`session-memory: ${reply.error}`);
        }
      }, await handoffTimeoutMs()).catch(() => 'no-server' as const);
      if (handed === 'timed-out') {
        io.err(`hook${event}: the running app did not answer in time; the save is left to it or to the next sync or hook`);
        return;
      }
      if (handed === 'no-server') {
        // The store opens, and the model loads, only once a session read from the file differs from
        // what its last save stored: a log grown only by a client's bookkeeping loads neither.
        // Not the sources' discovery (tinyglobby): the hook names its file.
        const [{ SourceCursors }, { syncFile }] = await Promise.all([import('../sources/cursors.js'), import('../sources/sync.js')]);
        const engine = lazyEngineOnDemand(globals(), io);
        const cursors = await SourceCursors.load(dataDir);
        try {
          await syncFile('hook', file, 'files', { cursors, engine: engine.get, ...(flags.include ? { include: flags.include } : {}), redact: true, ...printer });
        } finally {
          await engine.close();
        }
      }
      // Without the file's path: it may hold only forgotten sessions, whose paths stay out of the data folder.
      if (saved === 0 && failed === 0) io.err(`hook${event}: nothing new`);
    });
}

/** How long a hook waits for a running app's answer (tests on a busy machine wait longer). */
async function handoffTimeoutMs(): Promise<number> {
  const { HANDOFF_TIMEOUT_MS } = await import('../sources/handoff.js');
  const wanted = Number(testSwitch('SESSION_MEMORY_TEST_HANDOFF_TIMEOUT_MS'));
  return Number.isFinite(wanted) && wanted > 0 ? wanted : HANDOFF_TIMEOUT_MS;
}

/** An engine opened only when asked for, loading the store's code only then. */
function lazyEngineOnDemand(options: GlobalOptions, io: Io) {
  let engine: ReturnType<typeof import('./engineSupport.js')['lazyEngine']> | null = null;
  return {
    get: async () => {
      engine ??= (await import('./engineSupport.js')).lazyEngine(options, io);
      return engine.get();
    },
    close: async () => engine?.close(),
  };
}

export function selectSources(found: FoundSource[], wanted: string[] | undefined): FoundSource[] {
  if (!wanted || wanted.length === 0) return found;
  const ids = wanted.flatMap((w) => w.split(',')).map((w) => w.trim()).filter(Boolean);
  for (const id of ids) {
    if (!found.some((s) => s.id === id)) throw new UsageError(`no source "${id}" on this machine; \`session-memory sources\` lists them${found.length > 0 ? ` (${found.map((s) => s.id).join(', ')})` : ''}`);
  }
  return found.filter((s) => ids.includes(s.id));
}

function syncPrinter(io: Io, json: boolean, failed: () => void): Pick<SyncOptions, 'onReport' | 'onError' | 'onSkipped' | 'onUnsupported'> {
  return {
    onReport: (source: string, file: string, report: SaveReport) => io.out(json ? JSON.stringify({ source, file, ...reportJson(report) }) : `${source}: ${describeReport(report)}`),
    onError: (source, file, message) => {
      failed();
      if (json) io.out(JSON.stringify({ source, file, error: message }));
      else io.err(`session-memory: ${source}: ${message}`);
    },
    onSkipped: (source, part) => (json ? io.out(JSON.stringify({ source, ...part })) : io.err(`session-memory: ${source}: skipped ${describeSkipped(part)}`)),
    onUnsupported: (source, message) => (json ? io.out(JSON.stringify({ source, unsupported: message })) : io.err(`${source}: ${message}`)),
  };
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(() => true, () => false);
}

/** The hook's stdin, or nothing when it is a terminal (a person typing `hook` by hand). */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
