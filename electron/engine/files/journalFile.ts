/**
 * File access shared by the engine's two journals (vectorSketch.ts, pairJournal.ts): each reads only
 * what was appended since it last looked, and appends after its last whole record.
 *
 * Every write goes through here: it is refused once this process has lost the data folder's write
 * lock (writeLock.ts), and it is on disk when it returns (appends are fsynced, whole files replaced
 * atomically), so that a power loss after a save leaves the journal describing what the save wrote.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './atomicFile.js';
import { assertWriteLock } from './writeLock.js';

/**
 * Reads `file` from the offset `since` picks once it has seen the file's first `headBytes` bytes and
 * its size (null: not a file this journal can read). 'missing' when there is no file.
 */
export async function readSince(file: string, headBytes: number, since: (head: Buffer, size: number) => number | null): Promise<{ from: number; data: Buffer } | 'missing' | 'unusable'> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    const head = Buffer.alloc(Math.min(size, headBytes));
    await handle.read(head, 0, head.length, 0);
    const from = since(head, size);
    if (from === null) return 'unusable';
    const data = Buffer.alloc(size - from);
    if (data.length > 0) await handle.read(data, 0, data.length, from);
    return { from, data };
  } finally {
    await handle.close();
  }
}

/** Writes `records` one after another from offset `at` (`afterEach`: called after each write), then fsyncs them. */
export async function writeAt(file: string, records: readonly Buffer[], at: number, afterEach?: () => void): Promise<void> {
  assertWriteLock(path.dirname(file));
  const handle = await fs.open(file, 'r+');
  try {
    for (const record of records) {
      await handle.write(record, 0, record.length, at);
      at += record.length;
      afterEach?.();
    }
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Cuts the file at `length` (a record cut short by a kill or a power loss), durably. */
export async function truncateAt(file: string, length: number): Promise<void> {
  assertWriteLock(path.dirname(file));
  const handle = await fs.open(file, 'r+');
  try {
    await handle.truncate(length);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Replaces the whole file (a new generation), atomically. */
export async function replaceWhole(file: string, data: Buffer): Promise<void> {
  assertWriteLock(path.dirname(file));
  await writeFileAtomic(file, data);
}
