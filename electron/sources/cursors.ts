/**
 * How far each source's files have been saved: a file's size, modification time and a hash of its
 * first bytes (a file replaced by another of the same size and time is still seen), or a database's
 * change marker (the size and time of the database and its write-ahead log). A file whose cursor
 * matches is not read: a sync with nothing new opens no transcript beyond its head.
 *
 * Kept in `<data folder>/source-cursors.json`, replaced atomically. A cursor is advanced only after
 * the save of its file committed, so a crash in between saves the file again (and the engine finds
 * nothing new), never loses it.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../engine/files/index.js';

export const CURSOR_FILE = 'source-cursors.json';
const HEAD_BYTES = 4096;

export interface FileCursor {
  size: number;
  /** Whole milliseconds: finer parts do not survive every file system and copy tool. */
  mtimeMs: number;
  /** sha256 of the first 4 KiB, hex (a database: its change marker instead). */
  head: string;
}

export class SourceCursors {
  private constructor(
    private readonly file: string,
    private readonly cursors: Record<string, FileCursor>,
  ) {}

  static async load(dataDir: string): Promise<SourceCursors> {
    const file = path.join(dataDir, CURSOR_FILE);
    let cursors: Record<string, FileCursor> = {};
    try {
      const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as { files?: Record<string, FileCursor> };
      if (parsed && typeof parsed.files === 'object' && parsed.files !== null) cursors = parsed.files;
    } catch {
      // Missing or unreadable: every file is looked at again, and the engine skips what it holds.
    }
    return new SourceCursors(file, cursors);
  }

  get(file: string): FileCursor | undefined {
    return this.cursors[file];
  }

  /** Whether the file is what it was when its cursor was set. Reads at most its head. */
  async unchanged(file: string, now?: FileCursor): Promise<boolean> {
    const seen = this.cursors[file];
    if (!seen) return false;
    const current = now ?? (await fileCursor(file));
    return current !== null && current.size === seen.size && current.mtimeMs === seen.mtimeMs && current.head === seen.head;
  }

  /** Records a file as saved up to `cursor` and writes the cursors down. */
  async advance(file: string, cursor: FileCursor): Promise<void> {
    this.cursors[file] = cursor;
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, JSON.stringify({ files: this.cursors }));
  }
}

/** A transcript file's cursor as it is now, or null when it is gone. */
export async function fileCursor(file: string): Promise<FileCursor | null> {
  let handle;
  try {
    handle = await fs.open(file, 'r');
  } catch {
    return null;
  }
  try {
    const stat = await handle.stat();
    const buffer = Buffer.alloc(Math.min(HEAD_BYTES, stat.size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs), head: createHash('sha256').update(buffer.subarray(0, bytesRead)).digest('hex') };
  } finally {
    await handle.close();
  }
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
