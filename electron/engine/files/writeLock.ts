/**
 * One writer per data directory across processes (the desktop app, the CLI, a watcher).
 *
 * proper-lockfile takes the lock atomically (mkdir) and keeps it fresh while held; a lock whose
 * holder stopped refreshing it for `stale` ms counts as abandoned. On top of that, the holder writes
 * its pid and host name beside the lock (removed on release), so a lock left by a process that died
 * on this machine (a crash, a kill) is taken over at once instead of after the stale period.
 * A hold that another process took over (see `assertWriteLock`) stops this process's writes.
 */
import lockfile from 'proper-lockfile';
import os from 'node:os';
import path from 'node:path';
import { promises as fs } from 'node:fs';
import { EngineError } from '../errors.js';

import { LOCK_FILE } from './layout.js';
import { isProcessRunning } from './processes.js';
export { LOCK_FILE };
const OWNER_FILE = '.write.lock.owner';

export interface WriteLockOptions {
  /** How long to wait for another writer before giving up. 0: fail at once. */
  waitMs: number;
  /** How often the held lock is renewed (and checked for a takeover). Default 2 s. */
  updateMs?: number;
}

interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

async function readOwner(ownerFile: string): Promise<LockOwner | null> {
  try {
    return JSON.parse(await fs.readFile(ownerFile, 'utf8')) as LockOwner;
  } catch {
    return null;
  }
}

/** Removes the lock if its holder is a dead process of this machine. True when it did. */
async function clearDeadOwner(lockDir: string, ownerFile: string): Promise<boolean> {
  const owner = await readOwner(ownerFile);
  if (!owner || owner.host !== os.hostname() || owner.pid === process.pid || isProcessRunning(owner.pid)) return false;
  // Claim the dead owner's file first: a rename succeeds for one process only, so two processes
  // that both found the lock abandoned cannot both remove it.
  const claimed = `${ownerFile}.${process.pid}.claimed`;
  try {
    await fs.rename(ownerFile, claimed);
  } catch {
    return false;
  }
  await fs.rm(lockDir, { recursive: true, force: true });
  await fs.rm(claimed, { force: true });
  return true;
}

/**
 * Locks this process holds, by data directory: the error that ended one's hold when another
 * process took it over (proper-lockfile's `onCompromised`: the lock folder vanished or was renewed
 * by someone else, e.g. after the machine slept past `stale`), and what else the hold depends on
 * (a shared store's write lease, `bindToWriteLock`).
 */
interface Hold {
  lost: EngineError | null;
  bound: Array<() => EngineError | null>;
}
const held = new Map<string, Hold>();

/**
 * Throws when this process held the write lock of `dataDir` and lost it, or what the hold is bound
 * to says to stop (a shared store's lease taken over, or too long unrenewed to commit under): every
 * writer calls it before a write (a store commit, a journal append, the archive record), so that
 * nothing more is written once another process may be writing. Each write is whole, so what was
 * written stays consistent; the save fails with this error, and saving again (under a fresh lock)
 * finishes it.
 */
export function assertWriteLock(dataDir: string): void {
  const hold = held.get(path.resolve(dataDir));
  if (!hold) return;
  if (hold.lost) throw hold.lost;
  for (const check of hold.bound) {
    const problem = check();
    if (problem) throw problem;
  }
}

/**
 * Makes this process's hold of `dataDir`'s lock depend on `check` too (the write lease of a shared
 * store): `assertWriteLock` throws what it returns. Unlike a takeover of the lock itself, this
 * leaves the local lock this process's own, so its release gives it back and the next write takes
 * it again. Returns the function that ends the binding.
 */
export function bindToWriteLock(dataDir: string, check: () => EngineError | null): () => void {
  const hold = held.get(path.resolve(dataDir));
  if (!hold) return () => {};
  hold.bound.push(check);
  return () => {
    hold.bound = hold.bound.filter((c) => c !== check);
  };
}

/** A writer waiting for the lock says so in a file of this prefix (see `letWaitingWritersIn`). */
const WAITING_PREFIX = '.write.lock.waiting.';
/** A waiting file not touched for this long belongs to a writer that died or gave up. */
const WAITING_FRESH_MS = 3_000;
let waiters = 0;

/** True when a writer (of any process) is waiting for the lock of `dataDir`. */
export async function writersWaiting(dataDir: string): Promise<boolean> {
  const names = await fs.readdir(dataDir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(WAITING_PREFIX)) continue;
    const stats = await fs.stat(path.join(dataDir, name)).catch(() => null);
    if (stats && Date.now() - stats.mtimeMs < WAITING_FRESH_MS) return true;
  }
  return false;
}

/**
 * For long work done in many short holds of the lock (the near-duplicate catch-up): called between
 * two holds, it lets writers that are waiting (a save of the app, `watch`, an MCP server) take the
 * lock first, instead of racing them for it. Waits at most `maxMs`.
 */
export async function letWaitingWritersIn(dataDir: string, maxMs = 5_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline && (await writersWaiting(dataDir))) await new Promise((resolve) => setTimeout(resolve, 50));
}

export async function acquireWriteLock(dataDir: string, options: WriteLockOptions): Promise<() => Promise<void>> {
  let waiting: string | null = null;
  try {
    return await lockOrWait(dataDir, options, async () => {
      waiting ??= path.join(dataDir, `${WAITING_PREFIX}${process.pid}.${++waiters}`);
      await fs.writeFile(waiting, '').catch(() => {});
    });
  } finally {
    if (waiting) await fs.rm(waiting, { force: true });
  }
}

/** Takes the lock, or waits for it (`onWait`: called about once a second while waiting). */
async function lockOrWait(dataDir: string, options: WriteLockOptions, onWait: () => Promise<void>): Promise<() => Promise<void>> {
  const key = path.resolve(dataDir);
  const lockDir = path.join(dataDir, LOCK_FILE);
  const ownerFile = path.join(dataDir, OWNER_FILE);
  const deadline = Date.now() + options.waitMs;
  let said = 0;
  for (;;) {
    const state: Hold = { lost: null, bound: [] };
    try {
      const release = await lockfile.lock(dataDir, {
        lockfilePath: lockDir,
        stale: 10_000,
        update: options.updateMs ?? 2_000,
        realpath: false,
        retries: 0,
        onCompromised: (error) => {
          // Another process may be writing now: this one writes nothing more under this hold.
          state.lost = new EngineError('locked', `the write lock of ${dataDir} was lost (${error.message}): another process may be saving, so this one stopped writing; what was written is whole, and running the same save, forget or redact again finishes it`, { cause: error });
        },
      });
      held.set(key, state);
      const owner: LockOwner = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
      await fs.writeFile(ownerFile, JSON.stringify(owner)).catch(() => {});
      return async () => {
        if (held.get(key) === state) held.delete(key);
        // A lock taken over belongs to its new holder, and so does the owner file beside it.
        if (state.lost) return;
        await fs.rm(ownerFile, { force: true });
        await release();
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      if (await clearDeadOwner(lockDir, ownerFile)) continue;
      if (Date.now() >= deadline) {
        const holder = await readOwner(ownerFile);
        const who = holder ? ` (process ${holder.pid} on ${holder.host}, since ${holder.since})` : '';
        throw new EngineError('locked', `another Session Memory process is saving to ${dataDir}${who}; try again when it has finished`, { cause: error });
      }
      if (Date.now() - said >= 1_000) {
        said = Date.now();
        await onWait();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
