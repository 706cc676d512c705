/**
 * `sources`, `sync` and `hook`: the assistants' conversations on this machine, found in their
 * tools' places and saved as they happen. Light to load: the store and the importers are loaded
 * only once a file has something new, so a hook after a turn with nothing new returns at once.
 */
import { Command, Option } from 'commander';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { SaveReport } from '../../shared/domain.js';
import { SourceCursors } from '../sources/cursors.js';
import { discoverSources, type FoundSource } from '../sources/discover.js';
import { handOff } from '../sources/handoff.js';
import { loadSourceSettings } from '../sources/sourceSettings.js';
import { syncFile, syncSources, type SyncOptions } from '../sources/sync.js';
import { stopRequests } from './stopRequests.js';
import { dataDirOf, describeReport, describeSkipped, ExitStatus, parseInclude, positiveInt, reportJson, UsageError, type GlobalOptions, type IncludedExtra, type Io } from './support.js';

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
      const stop = flags.watch ? stopRequests() : null;
      try {
        const dataDir = dataDirOf(globals());
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
    .description('save the conversation an assistant\'s hook names (Claude Code\'s Stop and SessionEnd hooks pass it as JSON on stdin); hands the save to the app or `sync --watch` when one runs')
    .option('--file <transcript>', 'the transcript to save, instead of the hook input\'s "transcript_path"')
    .option('--include <extras>', 'also import "tools" and "thinking", comma-separated', parseInclude)
    .option('--json', 'one save report per line')
    .action(async (flags: { file?: string; include?: IncludedExtra[]; json?: boolean }) => {
      let file: string;
      try {
        file = path.resolve(flags.file ?? transcriptPathOf(await readStdin()));
      } catch (error) {
        // Never exit status 2 from a hook: Claude Code reads 2 from a Stop hook as "do not stop".
        if (!(error instanceof UsageError)) throw error;
        io.err(`session-memory: ${error.message}`);
        throw new ExitStatus(1);
      }
      const dataDir = dataDirOf(globals());
      let failed = 0;
      const printer = syncPrinter(io, Boolean(flags.json), () => failed++);
      const handed = await handOff(dataDir, { op: 'save', file, ...(flags.include ? { include: flags.include } : {}) }, (reply) => {
        if ('report' in reply) io.out(flags.json ? JSON.stringify(reply.report) : `${String(reply.report.sessionId)}: saved by the running app (${String(reply.report.new)} new)`);
        else if ('skipped' in reply) io.err(`session-memory: skipped ${JSON.stringify(reply.skipped)}`);
        else if ('error' in reply) {
          failed++;
          io.err(`session-memory: ${reply.error}`);
        }
      }).catch(() => 'no-server' as const);
      if (handed === 'no-server') {
        const engine = lazyEngineOnDemand(globals(), io);
        const cursors = await SourceCursors.load(dataDir);
        // A log that grew since its last save has new turns to embed: the store and the model start
        // loading now, while the file is read. A log that did not grow never loads the model.
        const seen = cursors.get(file);
        const size = await stat(file).then((s) => s.size, () => 0);
        if (seen && size > seen.size) void engine.get().then((e) => e.embedder()).catch(() => {});
        try {
          await syncFile('hook', file, 'files', { cursors, engine: engine.get, ...(flags.include ? { include: flags.include } : {}), redact: true, ...printer });
        } finally {
          await engine.close();
        }
      }
      if (failed > 0) throw new ExitStatus(1);
    });
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

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('hook reads the hook\'s JSON input on stdin (or give --file <transcript>)');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Claude Code's hook input: `{session_id, transcript_path, cwd, hook_event_name, ...}`. */
export function transcriptPathOf(input: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    throw new UsageError('the hook input on stdin is not JSON; give the transcript with --file <path>');
  }
  const file = (parsed as { transcript_path?: unknown } | null)?.transcript_path;
  if (typeof file !== 'string' || file === '') throw new UsageError('the hook input has no "transcript_path"; give the transcript with --file <path>');
  return file;
}
