/**
 * What `watch` remembers of the files it saved (`<data folder>/watch-state.json`): each file's size,
 * modification time and the sessions saved from it, so that after a restart only files that changed
 * meanwhile are read again. Forgetting a session drops the entries of the files it came from: their
 * paths go, and only a SHA-256 hash of each path stays, with the size and time, so that `watch`
 * leaves the file alone (and the session forgotten) until the file changes.
 *
 * The file is read before every use and written atomically, so a forget in another process is never
 * undone by a watcher's older copy.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../files/atomicFile.js';

import { WATCH_STATE_FILE } from '../files/layout.js';
export { WATCH_STATE_FILE };

export interface WatchedFile {
  size: number;
  mtimeMs: number;
  /** The sessions saved from the file (absent in entries written before this was kept). */
  sessions?: string[];
}

export interface WatchState {
  files: Record<string, WatchedFile>;
  /** Files whose sessions were forgotten, by the SHA-256 of their path. */
  forgotten: Record<string, WatchedFile>;
}

export async function readWatchState(dataDir: string): Promise<WatchState> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await fs.readFile(path.join(dataDir, WATCH_STATE_FILE), 'utf8'));
  } catch {
    return { files: {}, forgotten: {} };
  }
  if (!parsed || typeof parsed !== 'object') return { files: {}, forgotten: {} };
  const state = parsed as Partial<WatchState>;
  // The earlier layout was the `files` map alone.
  if (!state.files || typeof state.files !== 'object') return { files: parsed as Record<string, WatchedFile>, forgotten: {} };
  return { files: state.files, forgotten: state.forgotten ?? {} };
}

const parsed = new Map<string, { key: string; state: WatchState }>();

/**
 * The state as `readWatchState` reads it, parsed again only when the file was replaced (every write
 * is a rename, so a new inode): a restart looks up thousands of files in it. For lookups only.
 */
export async function currentWatchState(dataDir: string): Promise<WatchState> {
  const stat = await fs.stat(path.join(dataDir, WATCH_STATE_FILE)).catch(() => null);
  const key = stat ? `${stat.ino}:${stat.mtimeMs}:${stat.size}` : '';
  const cached = parsed.get(dataDir);
  if (cached?.key === key) return cached.state;
  const state = await readWatchState(dataDir);
  parsed.set(dataDir, { key, state });
  return state;
}

/** True when `file` was saved (or its sessions forgotten) at this size and time: nothing to read again. */
export function unchanged(state: WatchState, file: string, stat: { size: number; mtimeMs: number }): boolean {
  const seen = state.files[file] ?? state.forgotten[pathHash(file)];
  return seen !== undefined && seen.size === stat.size && seen.mtimeMs === stat.mtimeMs;
}

/** Records one file as saved, re-reading the state first so that nothing written meanwhile is lost. */
export async function recordWatchedFile(dataDir: string, file: string, entry: WatchedFile): Promise<void> {
  const state = await readWatchState(dataDir);
  state.files[file] = entry;
  delete state.forgotten[pathHash(file)];
  await writeFileAtomic(path.join(dataDir, WATCH_STATE_FILE), JSON.stringify(state));
}

/** Records a file whose every session was left out as forgotten: under a hash of its path, never the path. */
export async function recordForgottenFile(dataDir: string, file: string, entry: { size: number; mtimeMs: number }): Promise<void> {
  const state = await readWatchState(dataDir);
  delete state.files[file];
  state.forgotten[pathHash(file)] = { size: entry.size, mtimeMs: entry.mtimeMs };
  await writeFileAtomic(path.join(dataDir, WATCH_STATE_FILE), JSON.stringify(state));
}

/** The paths of the files the sessions were saved from, as far as `watch` recorded them. */
export async function watchedPaths(dataDir: string, sessionIds: readonly string[]): Promise<string[]> {
  const state = await readWatchState(dataDir);
  const ids = new Set(sessionIds);
  return Object.keys(state.files).filter((file) => state.files[file]!.sessions?.some((id) => ids.has(id)));
}

/** Drops the paths of the files the sessions were saved from (write lock held). */
export async function forgetWatchedSessions(dataDir: string, sessionIds: readonly string[]): Promise<void> {
  const paths = await watchedPaths(dataDir, sessionIds);
  if (paths.length === 0) return;
  const state = await readWatchState(dataDir);
  for (const file of paths) {
    const { size, mtimeMs } = state.files[file]!;
    state.forgotten[pathHash(file)] = { size, mtimeMs };
    delete state.files[file];
  }
  await writeFileAtomic(path.join(dataDir, WATCH_STATE_FILE), JSON.stringify(state));
}

function pathHash(file: string): string {
  return createHash('sha256').update(file).digest('hex');
}
