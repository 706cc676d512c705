/**
 * The hooks' saver: a process a hook leaves running after it saved on its own (no app and no
 * `sync --watch` serving its data folder), so that the next turns' hooks hand their saves to it
 * (sources/handoff.ts) instead of each loading the store's code, opening the store and starting the
 * model again. It keeps them open, saves what hooks hand it one at a time, and ends:
 * - once no hook has handed it anything for a while (`--idle`, minutes);
 * - when an app or `sync --watch` takes the hooks over (it gives way to them);
 * - when another saver took its place, or its data folder is gone;
 * - on Ctrl-C or SIGTERM, after the save under way reaches a safe point.
 * A hook whose save it did not finish saves on its own, as with any server that stops.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { appendHookLog } from './hookLog.js';
import { lazyEngineOnDemand } from './lazyEngine.js';
import { stopRequests, whenAborted } from './stopRequests.js';
import { dataDirOf, reportJson, type GlobalOptions, type Io } from './support.js';

/** How often the saver looks whether its data folder and its token are still there. */
const LOOK_MS = 5_000;

/** How often a saver that found the hooks served looks again whether they still are. */
const WAIT_MS = 2_000;

export type SaverEnd = 'idle' | 'gave way' | 'replaced' | 'stopped' | 'not needed' | 'no door' | 'no folder';

/**
 * Serves the hooks of the data folder until one of the ends above (`no door` at once where the socket
 * cannot be opened: its folder is another account's, or its path too long; `no folder` at once where
 * the data folder is not there: a saver serves a folder hooks saved to, and one whose folder was
 * removed before it started, say with the assistant's sandbox, must not make it again). When another process serves them
 * (an assistant's MCP server, which ends with its session; the app), it waits, and serves once that
 * one stops, within its idle time: `not needed` when that time passed without. A saver started by a
 * hook that saved on its own, just before the session's MCP server began to serve, so outlives it.
 */
export async function runHookSaver(io: Io, globals: GlobalOptions, idleMs: number): Promise<SaverEnd> {
  const dataDir = dataDirOf(globals);
  // The folder it serves is the one there now: one removed (and perhaps made again by someone else) is not it.
  const folder = await fs.stat(dataDir).catch(() => null);
  if (!folder?.isDirectory()) return 'no folder';
  const present = () => fs.stat(dataDir).then((stat) => stat.isDirectory() && stat.ino === folder.ino && stat.dev === folder.dev, () => false);
  const signals = stopRequests();
  const ended = new AbortController();
  let end: SaverEnd = 'stopped';
  const finish = (why: SaverEnd) => {
    if (ended.signal.aborted) return;
    end = why;
    ended.abort();
  };
  signals.signal.addEventListener('abort', () => finish('stopped'), { once: true });

  const engine = lazyEngineOnDemand(globals, io);
  const [{ hooksServed, serveHandoff, TOKEN_FILE }, { handedSaves }] = await Promise.all([import('../sources/handoff.js'), import('../sources/handedSaves.js')]);
  const saves = handedSaves(dataDir, engine.get, { signal: ended.signal, reportJson });
  let busy = 0;
  let idle: NodeJS.Timeout | null = null;
  const rest = () => {
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => finish('idle'), idleMs);
  };
  const serve = () =>
    serveHandoff(
      dataDir,
      (request, reply) => {
        // No end for idleness while a save is waiting or under way.
        busy++;
        if (idle) clearTimeout(idle);
        const job = saves.handle(request, reply);
        void job.then(
          () => --busy === 0 && rest(),
          () => --busy === 0 && rest(),
        );
        return job;
      },
      { onYield: () => finish('gave way'), existingFolder: true },
    );
  try {
    let server = await serve();
    if (!server) {
      // Waited for within the idle time, stopping as the saver would stop. When nothing serves and
      // the door still cannot be opened (a socket's folder that is not this user's own), not at all.
      rest();
      while (!server && !ended.signal.aborted) {
        if (!(await hooksServed(dataDir))) {
          server = await serve();
          if (!server) return 'no door';
          break;
        }
        await Promise.race([new Promise((resolve) => setTimeout(resolve, WAIT_MS)), whenAborted(ended.signal)]);
        if (!ended.signal.aborted) server = await serve();
      }
      if (!server) return (end as SaverEnd) === 'idle' ? 'not needed' : end;
    }
    rest();
    await appendHookLog(dataDir, [{ level: 'info', msg: `hook saver: serving the next turns' hooks (process ${process.pid}, until ${minutes(idleMs)} without one)` }]);
    // Warm: the first save handed over does not wait for the store's code or the model.
    void engine
      .get()
      .then((opened) => opened.embedder())
      .catch(() => {});
    const look = setInterval(() => {
      void present().then((there) => {
        if (!there) return finish('no folder');
        void fs.readFile(path.join(dataDir, TOKEN_FILE), 'utf8').then(
          (token) => token !== server.token && finish('replaced'),
          () => finish('replaced'),
        );
      });
    }, LOOK_MS);
    await whenAborted(ended.signal);
    clearInterval(look);
    if (idle) clearTimeout(idle);
    // The door first: a hook that handed a save over and is told nothing more saves on its own.
    await server.close();
    await saves.idle();
    const count = saves.count();
    // Not into a folder removed meanwhile (which the log would make again).
    if (await present()) await appendHookLog(dataDir, [{ level: 'info', msg: `hook saver: ended (${end}) after ${count} save${count === 1 ? '' : 's'}` }]).catch(() => {});
    return end;
  } catch (error) {
    // Removed since it was looked at (with an assistant's sandbox): nothing to serve, and nothing made.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !(await present())) return 'no folder';
    throw error;
  } finally {
    if (idle) clearTimeout(idle);
    await engine.close();
    signals.dispose();
  }
}

/**
 * Starts a saver for the data folder in a process of its own that outlives the hook (detached, its
 * output discarded), and does not wait for it. The same program and global options as this hook's.
 */
export function startHookSaver(globals: GlobalOptions, stayMinutes: number): void {
  const script = process.argv[1];
  if (!script) return;
  const args = [
    ...process.execArgv,
    script,
    ...(globals.data !== undefined ? ['--data', globals.data] : []),
    ...(globals.model !== undefined ? ['--model', globals.model] : []),
    ...(globals.singleWriter ? ['--single-writer'] : []),
    'hook-saver',
    '--idle',
    String(stayMinutes),
  ];
  try {
    const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', windowsHide: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No saver: the next hook saves on its own, as this one did.
  }
}

function minutes(ms: number): string {
  const m = ms / 60_000;
  return m >= 1 && Number.isInteger(m) ? `${m} minute${m === 1 ? '' : 's'}` : `${Math.round(ms / 1000)} s`;
}
