/**
 * How far each source's files have been saved: a file's size, modification time and a hash of its
 * first bytes (a file replaced by another of the same size and time is still seen), or a database's
 * change marker (the size and time of the database and its write-ahead log). A file whose cursor
 * matches is not read: a sync with nothing new opens no transcript beyond its head.
 *
 * Kept in `<data folder>/source-cursors.json`, replaced atomically. A cursor is advanced only after
 * the save of its file committed, so a crash in between saves the file again (and the engine finds
 * nothing new), never loses it. Each file's cursor names the sessions saved from it, so that
 * forgetting a session drops the paths of its files (`forgetCursorSessions`); a forgotten session is
 * left out when its file is read again.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../engine/files/index.js';
import { readFileSlice } from './fileSlice.js';

export const CURSOR_FILE = 'source-cursors.json';
const HEAD_BYTES = 4096;

export interface FileCursor {
  size: number;
  /** Whole milliseconds: finer parts do not survive every file system and copy tool. */
  mtimeMs: number;
  /** sha256 of the first 4 KiB, hex (a database: its change marker instead). */
  head: string;
}

/** A file's cursor as kept, with the sessions saved from the file (absent in entries written before this was kept). */
interface KeptCursor extends FileCursor {
  sessions?: string[];
  /** A database's: each session's mark when it was saved (importers/database-changes.ts); sessions whose mark is the same are not read again. */
  marks?: Record<string, string>;
  /** Each session's digest as the save read it (saveFile.ts `sessionDigest`), by id. */
  read?: Record<string, string>;
}

interface CursorState {
  files: Record<string, KeptCursor>;
  /** Files that hold only forgotten sessions, by the SHA-256 of their path: not read again while unchanged. */
  forgottenFiles: Record<string, FileCursor>;
  /** SHA-256 of the ids of forgotten sessions: a file read again leaves them out. */
  forgottenSessions: string[];
}

/** What a file's save stored: the sessions saved from it, and how many forgotten ones were left out. */
export interface SavedFrom {
  sessions: string[];
  leftOut: number;
  /** A database's: every session's mark as of this read. */
  marks?: Record<string, string>;
  /** Each session's digest as read, by id. */
  read?: Record<string, string>;
}

export class SourceCursors {
  private readonly file: string;
  private state: CursorState;
  /** The cursor file's identity when `state` was read (every write is a rename, so a new inode). */
  private stateKey: string;

  private constructor(file: string, state: CursorState, stateKey: string) {
    this.file = file;
    this.state = state;
    this.stateKey = stateKey;
  }

  static async load(dataDir: string): Promise<SourceCursors> {
    const file = path.join(dataDir, CURSOR_FILE);
    const key = await fileKey(file);
    return new SourceCursors(file, await readCursorState(file), key);
  }

  /** The cursor a file was saved up to (as of `load`), or undefined. */
  get(file: string): FileCursor | undefined {
    return this.state.files[file] ?? this.state.forgottenFiles[sha256(file)];
  }

  /** The digests of the sessions the file's last save read, by id (as of `load`). */
  lastRead(file: string): Record<string, string> | undefined {
    return this.state.files[file]?.read;
  }

  /** Whether the file is what it was when its cursor was set. Reads at most its head. */
  async unchanged(file: string, now?: FileCursor): Promise<boolean> {
    const state = await this.current();
    const seen = state.files[file] ?? state.forgottenFiles[sha256(file)];
    if (!seen) return false;
    const current = now ?? (await fileCursor(file));
    return current !== null && current.size === seen.size && current.mtimeMs === seen.mtimeMs && current.head === seen.head;
  }

  /** A database's sessions as last saved: each one's mark, and the sessions saved from it. */
  async databaseSessions(file: string): Promise<{ marks: Record<string, string>; sessions: string[] }> {
    const kept = (await this.current()).files[file];
    return { marks: kept?.marks ?? {}, sessions: kept?.sessions ?? [] };
  }

  /** Whether a session was forgotten: a sync leaves it out of the files it reads. */
  async forgotten(sessionId: string): Promise<boolean> {
    return (await this.current()).forgottenSessions.includes(sha256(sessionId));
  }

  /**
   * Records a file as saved up to `cursor` and writes the cursors down. The file is read again
   * first, so that a forget in another process meanwhile is not undone. A file whose every session
   * was left out as forgotten is kept under a hash of its path: its path is not written again.
   */
  async advance(file: string, cursor: FileCursor, saved: SavedFrom = { sessions: [], leftOut: 0 }): Promise<void> {
    const state = await readCursorState(this.file);
    // A session forgotten since it was saved here (the forget ran in between) is not recorded. A
    // database's every session passes here at each save (a thousand of them): hashed only when
    // something was forgotten at all.
    const unique = [...new Set(saved.sessions)];
    const forgotten = new Set(state.forgottenSessions);
    const sessions = forgotten.size === 0 ? unique : unique.filter((id) => !forgotten.has(sha256(id)));
    const leftOut = saved.leftOut + unique.length - sessions.length;
    if (sessions.length === 0 && leftOut > 0) {
      delete state.files[file];
      state.forgottenFiles[sha256(file)] = { size: cursor.size, mtimeMs: cursor.mtimeMs, head: cursor.head };
    } else {
      const kept = new Set(sessions);
      const read = Object.fromEntries(Object.entries(saved.read ?? {}).filter(([id]) => kept.has(id)));
      state.files[file] = { ...cursor, sessions, ...(saved.marks ? { marks: saved.marks } : {}), ...(Object.keys(read).length > 0 ? { read } : {}) };
      delete state.forgottenFiles[sha256(file)];
    }
    await writeCursorState(this.file, state);
    this.state = state;
    this.stateKey = await fileKey(this.file);
  }

  /** The state as on disk, read again only when the file was replaced since. */
  private async current(): Promise<CursorState> {
    const key = await fileKey(this.file);
    if (key !== this.stateKey) {
      this.state = await readCursorState(this.file);
      this.stateKey = key;
    }
    return this.state;
  }
}

/** Every session the cursors name (to find those forgotten on another machine). */
export async function cursorSessions(dataDir: string): Promise<string[]> {
  const state = await readCursorState(path.join(dataDir, CURSOR_FILE));
  return [...new Set(Object.values(state.files).flatMap((kept) => kept.sessions ?? []))];
}

/** The paths of the files the sessions were saved from, as far as the cursors recorded them. */
export async function cursorPathsOf(dataDir: string, sessionIds: readonly string[]): Promise<string[]> {
  const state = await readCursorState(path.join(dataDir, CURSOR_FILE));
  const ids = new Set(sessionIds);
  return Object.keys(state.files).filter((file) => state.files[file]!.sessions?.some((id) => ids.has(id)));
}

/**
 * After a forget (write lock held; can be repeated): the sessions are marked forgotten (by a hash of
 * their id), and the files they were saved from lose them. A file that held only them loses its
 * path: only a SHA-256 hash of it stays, with its cursor, so that it is not read again while it is
 * unchanged; a file that holds other sessions too (a tool's database) keeps its path and those.
 */
export async function forgetCursorSessions(dataDir: string, sessionIds: readonly string[]): Promise<void> {
  const file = path.join(dataDir, CURSOR_FILE);
  const state = await readCursorState(file);
  const ids = new Set(sessionIds);
  for (const [name, kept] of Object.entries(state.files)) {
    if (!kept.sessions?.some((id) => ids.has(id))) continue;
    const sessions = kept.sessions.filter((id) => !ids.has(id));
    if (sessions.length > 0) {
      const read = kept.read ? Object.fromEntries(Object.entries(kept.read).filter(([id]) => !ids.has(id))) : undefined;
      state.files[name] = { ...kept, sessions, ...(read ? { read } : {}) };
    } else {
      delete state.files[name];
      state.forgottenFiles[sha256(name)] = { size: kept.size, mtimeMs: kept.mtimeMs, head: kept.head };
    }
  }
  state.forgottenSessions = [...new Set([...state.forgottenSessions, ...sessionIds.map(sha256)])];
  await writeCursorState(file, state);
}

/** A forgotten session saved again on purpose (write lock held): a file read again no longer leaves it out. */
export async function unforgetCursorSessions(dataDir: string, sessionIds: readonly string[]): Promise<void> {
  const file = path.join(dataDir, CURSOR_FILE);
  const state = await readCursorState(file);
  const lifted = new Set(sessionIds.map(sha256));
  if (!state.forgottenSessions.some((h) => lifted.has(h))) return;
  state.forgottenSessions = state.forgottenSessions.filter((h) => !lifted.has(h));
  await writeCursorState(file, state);
}

async function readCursorState(file: string): Promise<CursorState> {
  const state: CursorState = { files: {}, forgottenFiles: {}, forgottenSessions: [] };
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<CursorState> | null;
    if (parsed && typeof parsed.files === 'object' && parsed.files !== null) state.files = parsed.files;
    if (parsed && typeof parsed.forgottenFiles === 'object' && parsed.forgottenFiles !== null) state.forgottenFiles = parsed.forgottenFiles;
    if (parsed && Array.isArray(parsed.forgottenSessions)) state.forgottenSessions = parsed.forgottenSessions.filter((h): h is string => typeof h === 'string');
  } catch {
    // Missing or unreadable: every file is looked at again, and the engine skips what it holds.
  }
  return state;
}

async function writeCursorState(file: string, state: CursorState): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, JSON.stringify(state));
}

async function fileKey(file: string): Promise<string> {
  const stat = await fs.stat(file).catch(() => null);
  return stat ? `${stat.ino}:${stat.mtimeMs}:${stat.size}` : '';
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A transcript file's cursor as it is now, or null when it is gone. */
export async function fileCursor(file: string): Promise<FileCursor | null> {
  const head = await readFileSlice(file, 'start', HEAD_BYTES);
  return head && { size: head.stat.size, mtimeMs: Math.trunc(head.stat.mtimeMs), head: createHash('sha256').update(head.bytes).digest('hex') };
}

/**
 * A folder read as a whole (opencode's `storage/`): the names, sizes and times of every file in it,
 * hashed. Only looked at, never opened: a folder that did not change is not read.
 */
export async function folderCursor(folder: string): Promise<FileCursor | null> {
  const hash = createHash('sha256');
  let size = 0;
  let newest = 0;
  const walk = async (dir: string, prefix: string): Promise<boolean> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(full, `${prefix}${entry.name}/`);
      } else if (entry.isFile()) {
        const stat = await fs.stat(full).catch(() => null);
        if (!stat) continue;
        size += stat.size;
        newest = Math.max(newest, stat.mtimeMs);
        hash.update(`${prefix}${entry.name}\0${stat.size}\0${stat.mtimeMs}\n`);
      }
    }
    return true;
  };
  if (!(await walk(folder, ''))) return null;
  return { size, mtimeMs: Math.trunc(newest), head: `folder:${hash.digest('hex')}` };
}

/**
 * A database's change marker: its size and time, and those of its write-ahead log, which takes
 * every write while the tool runs (SQLite in WAL mode) until a checkpoint folds it back.
 */
export async function databaseCursor(file: string): Promise<FileCursor | null> {
  const parts: string[] = [];
  let main;
  try {
    main = await fs.stat(file);
  } catch {
    return null;
  }
  const wal = await fs.stat(`${file}-wal`).catch(() => null);
  // An empty log holds no write: the same as none (a reader may create it, ours included).
  parts.push(wal && wal.size > 0 ? `${wal.size}:${wal.mtimeMs}` : '-');
  return { size: main.size, mtimeMs: Math.trunc(main.mtimeMs), head: `db:${parts.join('/')}` };
}
