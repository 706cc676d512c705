/**
 * One writer per data directory across processes (the desktop app, the CLI, a watcher).
 * proper-lockfile keeps the lock fresh while held and treats a lock whose holder died
 * (no refresh for `stale` ms) as free, so a crashed writer never blocks the store for good.
 */
import lockfile from 'proper-lockfile';
import path from 'node:path';
import { EngineError } from './errors.js';

export const LOCK_FILE = '.write.lock';

export interface WriteLockOptions {
  /** How long to wait for another writer before giving up. 0: fail at once. */
  waitMs: number;
}

export async function acquireWriteLock(dataDir: string, options: WriteLockOptions): Promise<() => Promise<void>> {
  const stale = 5_000;
  const retries = Math.max(0, Math.ceil(options.waitMs / 250));
  try {
    return await lockfile.lock(dataDir, {
      lockfilePath: path.join(dataDir, LOCK_FILE),
      stale,
      update: 1_000,
      realpath: false,
      retries: retries === 0 ? 0 : { retries, factor: 1, minTimeout: 250, maxTimeout: 250 },
      onCompromised: () => {
        // The lock was taken over (e.g. the system slept longer than `stale`). Writes already made are
        // whole commits; the next save re-checks the store, so carrying on is safe.
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new EngineError('locked', `another Session Memory process is saving to ${dataDir}; try again when it has finished`, { cause: error });
    }
    throw error;
  }
}
