/**
 * `session-memory hook`: saves the conversation an assistant's hook names (hookInput.ts reads each
 * client's input), handing the save to a running app, `sync --watch` or hooks' saver (hookSaver.ts)
 * when one answers; when none does, it saves on its own and leaves a saver for the next turns. A command
 * line of the hook and the options it knows is read here with Node's own parser (hookCommandLine),
 * without building the program: assistants run it after every turn. Any other command line (an
 * option a newer client adds, `hook --help`) goes through the program, which runs the same action.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SaveReport } from '../../shared/domain.js';
import { testSwitch } from '../engine/files/index.js';
import type { SyncOptions } from '../sources/sync.js';
import { lazyEngineOnDemand } from './lazyEngine.js';
import { quickCommandLine } from './quickCommandLine.js';
import { dataDirOf, describeReport, describeSkipped, minutesOption, parseInclude, reportJson, type GlobalOptions, type IncludedExtra, type Io } from './support.js';

export interface HookFlags {
  file?: string;
  include?: IncludedExtra[];
  json?: boolean;
  /** Minutes a saver started by this hook waits for the next turn's (hookSaver.ts); 0: none is started. */
  stay?: number;
}

/** How long a saver a hook leaves running waits for the next turn, by default. */
export const DEFAULT_STAY_MINUTES = 10;

export async function saveFromHook(io: Io, globals: GlobalOptions, payload: string[], flags: HookFlags): Promise<void> {
  const dataDir = dataDirOf(globals);
  // Both loaded side by side, not one after the other as the hook reaches them: every hook reads its
  // input and tries the hand-over. (Not imported at the top: `sync` and `--help` load this module too.)
  const [{ codexHome, copilotHookWritten, copilotSessionEvents, findCodexRollout, notifyPayloadOf, stdinTargetOf }, { HANDOFF_TIMEOUT_MS, handOff }] = await Promise.all([import('../sources/hookInput.js'), import('../sources/handoff.js')]);
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
  } else if (target.kind === 'copilot-session') {
    file = copilotSessionEvents(target.sessionId);
  } else {
    file = path.resolve(target.file);
  }
  // A file the client named may not be on disk yet: GitHub Copilot CLI writes a new session's events a
  // moment after its first agentStop hook has started. One named with --file is there or not.
  const waited = flags.file ? (await exists(file) ? 0 : -1) : await waitForFile(file, NAMED_FILE_WAIT_MS);
  if (waited < 0) {
    io.err(`hook: nothing saved: ${file} does not exist`);
    return;
  }
  if (waited > 0) io.err(`hook: ${file} appeared after ${waited} ms`);
  // Copilot CLI runs its hook before it writes the turn: the save waits for the hook's own event in the file.
  if ('copilotHookAt' in target && target.copilotHookAt !== undefined) {
    const startedAt = target.copilotHookAt;
    const caughtUp = await waitFor(() => copilotHookWritten(file, startedAt), NAMED_FILE_WAIT_MS);
    if (caughtUp < 0) io.err(`hook${event}: ${file} did not show this hook's start within ${NAMED_FILE_WAIT_MS} ms; saving what it holds`);
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
  const handed = await handOff(dataDir, { op: 'save', file, ...(flags.include ? { include: flags.include } : {}) }, (reply) => {
    if ('report' in reply) {
      saved++;
      said(flags.json ? JSON.stringify(reply.report) : `hook: ${String(reply.report.sessionId)}: saved by the process serving hooks (${String(reply.report.new)} new)`);
    } else if ('skipped' in reply) io.err(`hook: skipped ${JSON.stringify(reply.skipped)}`);
    else if ('error' in reply) {
      failed++;
      io.err(`session-memory: ${reply.error}`);
    }
  }, handoffTimeoutMs(HANDOFF_TIMEOUT_MS)).catch(() => 'no-server' as const);
  if (handed === 'timed-out') {
    io.err(`hook${event}: the process serving hooks did not answer in time; the save is left to it or to the next sync or hook`);
    return;
  }
  if (handed === 'no-server') {
    // The store opens, and the model loads, only once a session read from the file differs from
    // what its last save stored: a log grown only by a client's bookkeeping loads neither.
    // Not the sources' discovery (tinyglobby): the hook names its file.
    const [{ SourceCursors }, { syncFile }] = await Promise.all([import('../sources/cursors.js'), import('../sources/sync.js')]);
    const engine = lazyEngineOnDemand(globals, io);
    const cursors = await SourceCursors.load(dataDir);
    try {
      await syncFile('hook', file, 'files', { cursors, engine: engine.get, ...(flags.include ? { include: flags.include } : {}), redact: true, ...printer });
    } finally {
      await engine.close();
    }
    // The next turns' hooks hand their saves to a saver left running, rather than each starting
    // cold as this one did; not when the session ends, after which no turn comes.
    const stay = stayMinutesOf(flags.stay);
    if (stay > 0 && !('event' in target && target.event?.toLowerCase() === 'sessionend')) (await import('./hookSaver.js')).startHookSaver(globals, stay);
  }
  // Without the file's path: it may hold only forgotten sessions, whose paths stay out of the data folder.
  if (saved === 0 && failed === 0) io.err(`hook${event}: nothing new`);
}

/**
 * The options of `[global options] hook [--file F] [--include X] [--json] [--verbose] [payload...]`,
 * or null for any other command line. Global options come before `hook`, its own after it, each at
 * most once; a value that looks like an option, or an option the hook does not know, is left to the
 * program (which accepts unknown options for a hook as well).
 */
export function hookCommandLine(argv: string[]): { globals: GlobalOptions; payload: string[]; flags: HookFlags } | null {
  const line = quickCommandLine(argv, 'hook', { file: { type: 'string' }, include: { type: 'string' }, json: { type: 'boolean' }, stay: { type: 'string' }, verbose: { type: 'boolean' } });
  if (!line) return null;
  const flags: HookFlags = {};
  const file = line.options.get('file');
  if (typeof file === 'string') flags.file = file;
  if (line.options.has('json')) flags.json = true;
  const include = line.options.get('include');
  const stay = line.options.get('stay');
  try {
    if (typeof include === 'string') flags.include = parseInclude(include);
    if (typeof stay === 'string') flags.stay = minutesOption(stay, '--stay');
  } catch {
    return null;
  }
  return { globals: line.globals, payload: line.positionals, flags };
}

/**
 * How long a saver a hook starts stays: `--stay` when given, else 10 minutes; in the test suite none
 * is started unless a test asks (SESSION_MEMORY_TEST_HOOK_STAY), so that hooks leave no process behind.
 */
export function stayMinutesOf(given: number | undefined): number {
  if (given !== undefined) return given;
  const asked = testSwitch('SESSION_MEMORY_TEST_HOOK_STAY');
  if (asked !== undefined) return Number(asked);
  return testSwitch('SESSION_MEMORY_TEST_RUN') === '1' ? 0 : DEFAULT_STAY_MINUTES;
}

/** How long a hook waits for a running app's answer (tests on a busy machine wait longer). */
function handoffTimeoutMs(usual: number): number {
  const wanted = Number(testSwitch('SESSION_MEMORY_TEST_HANDOFF_TIMEOUT_MS'));
  return Number.isFinite(wanted) && wanted > 0 ? wanted : usual;
}


export function syncPrinter(io: Io, json: boolean, failed: () => void): Pick<SyncOptions, 'onReport' | 'onError' | 'onSkipped' | 'onUnsupported'> {
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

/** How long a hook waits for the file its client named to appear. */
const NAMED_FILE_WAIT_MS = 3_000;

/** The milliseconds waited until `file` was there (0: at once), or -1 when it was not within `ms`. */
function waitForFile(file: string, ms: number): Promise<number> {
  return waitFor(() => exists(file), ms);
}

/** The milliseconds waited until `check` held (0: at once), or -1 when it did not within `ms`. */
async function waitFor(check: () => Promise<boolean>, ms: number): Promise<number> {
  if (await check()) return 0;
  const start = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (await check()) return Math.max(1, Date.now() - start);
    if (Date.now() - start >= ms) return -1;
  }
}

/** The hook's stdin, or nothing when it is a terminal (a person typing `hook` by hand). */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
