/**
 * `sources`, `sync` and `hook`: the assistants' conversations on this machine, found in their
 * tools' places and saved as they happen. Light to load: the store and the importers are loaded
 * only once a file has something new, so a hook after a turn with nothing new returns at once.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import type { FoundSource } from '../sources/discover.js';
import type { SyncOptions } from '../sources/sync.js';
import { dataDirOf, ExitStatus, minutesOption, parseInclude, positiveInt, UsageError, type GlobalOptions, type IncludedExtra, type Io } from './support.js';
import { DEFAULT_STAY_MINUTES, saveFromHook, syncPrinter, type HookFlags } from './hookCommand.js';
import { lazyEngineOnDemand } from './lazyEngine.js';

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
        // Files, as the app says: a database or a folder read as a whole is one, however many sessions it holds (listing reads none).
        io.out(`${r.id}  ${r.tool}  ${r.path}  ${r.sessions} conversation file${r.sessions === 1 ? '' : 's'}${r.lastModified ? `, last changed ${r.lastModified}` : ''}${settings.enabled[r.id] ? ', on in the app' : ''}${pending}`);
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
    .description('save the conversation an assistant\'s hook names: Claude Code\'s and Gemini CLI\'s hooks and Codex\'s Stop hook pass it as JSON on stdin, Codex\'s notify as its last argument. Prints nothing (what it did goes to <data>/logs/hooks.log), exits 0 whatever happens, and hands the save to the app, `sync --watch` or a saver an earlier hook left running (see --stay)')
    .argument('[payload...]', 'Codex\'s notify JSON (Codex appends it); other arguments are ignored')
    .option('--file <transcript>', 'the transcript to save, instead of the one the hook input names')
    .option('--include <extras>', 'also import "tools" and "thinking", comma-separated', parseInclude)
    .option('--json', 'one save report per line on stdout (for scripts; an assistant\'s hook wants nothing there)')
    .option('--verbose', 'also write what the hook did to stderr')
    .option('--stay <minutes>', `when nothing serves the hooks, leave a saver running for the next turns (\`hook-saver\`) until this long without one; 0: none (default ${DEFAULT_STAY_MINUTES})`, (v) => minutesOption(v, '--stay'))
    // An assistant's hook must never fail on arguments a newer client adds.
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (payload: string[], flags: HookFlags) => {
      await saveFromHook(io, globals(), payload, flags);
    });

  program
    .command('hook-saver')
    .description('serve the hooks of this data folder with the store and the model kept open, until --idle minutes pass without a save; a hook starts one when nothing served its save. It gives way when the app or `sync --watch` starts, and while another process serves the hooks it waits for its turn')
    .option('--idle <minutes>', 'end after this long without a save handed over', (v) => minutesOption(v, '--idle'), DEFAULT_STAY_MINUTES)
    .action(async (flags: { idle: number }) => {
      const { runHookSaver } = await import('./hookSaver.js');
      const end = await runHookSaver(io, globals(), flags.idle * 60_000);
      if (end === 'no door') io.err('the hooks of this data folder cannot be served from here: the folder for its socket is not this user\'s own, or its path is too long; hooks save on their own');
      if (end === 'no folder') io.err(`nothing to serve: the data folder ${dataDirOf(globals())} does not exist, or was removed while it served (a saver serves the hooks of a folder they save to)`);
      if (end === 'not needed') io.err('the hooks of this data folder were served by another process all along (the app, `sync --watch`, an assistant\'s MCP server or another saver)');
    });
}

export function selectSources(found: FoundSource[], wanted: string[] | undefined): FoundSource[] {
  if (!wanted || wanted.length === 0) return found;
  const ids = wanted.flatMap((w) => w.split(',')).map((w) => w.trim()).filter(Boolean);
  for (const id of ids) {
    if (!found.some((s) => s.id === id)) throw new UsageError(`no source "${id}" on this machine; \`session-memory sources\` lists them${found.length > 0 ? ` (${found.map((s) => s.id).join(', ')})` : ''}`);
  }
  return found.filter((s) => ids.includes(s.id));
}
