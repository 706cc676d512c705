/**
 * The save history: one JSON line per save, appended and fsynced. A line cut short by a crash is
 * skipped when read (and reported), never fatal.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SaveEvent } from '../../../shared/domain.js';
import { writeFileAtomic } from '../files/atomicFile.js';
import { crashPoint } from '../files/crashPoints.js';
import { assertWriteLock } from '../files/writeLock.js';

export const HISTORY_FILE = 'save-history.jsonl';

export async function appendSaveEvent(dataDir: string, event: SaveEvent): Promise<void> {
  assertWriteLock(dataDir);
  const handle = await fs.open(path.join(dataDir, HISTORY_FILE), 'a+');
  try {
    // A previous writer may have died mid-line; start on a fresh line so this event stays readable.
    const { size } = await handle.stat();
    const prefix = size > 0 && !(await endsWithNewline(handle, size)) ? '\n' : '';
    crashPoint('history');
    await handle.appendFile(`${prefix}${JSON.stringify(event)}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function endsWithNewline(handle: fs.FileHandle, size: number): Promise<boolean> {
  const buffer = Buffer.alloc(1);
  await handle.read(buffer, 0, 1, size - 1);
  return buffer[0] === 0x0a;
}

export async function readSaveEvents(dataDir: string): Promise<{ events: SaveEvent[]; damagedLines: number }> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dataDir, HISTORY_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], damagedLines: 0 };
    throw error;
  }
  const events: SaveEvent[] = [];
  let damagedLines = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const event = JSON.parse(line) as SaveEvent;
      if (typeof event.sessionId === 'string' && typeof event.at === 'string') events.push(event);
      else damagedLines++;
    } catch {
      damagedLines++;
    }
  }
  return { events, damagedLines };
}

/**
 * Forgetting: the history keeps only that the sessions were forgotten. Every other event of theirs
 * goes, and so does a damaged line that names one of them; the file is replaced atomically, so its
 * earlier content is in no file. Call with the write lock held; repeating it changes nothing.
 */
export async function dropSessionEvents(dataDir: string, sessionIds: readonly string[]): Promise<void> {
  const file = path.join(dataDir, HISTORY_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const ids = new Set(sessionIds);
  const kept = text.split('\n').filter((line) => {
    if (!line.trim()) return false;
    try {
      const event = JSON.parse(line) as Partial<SaveEvent>;
      return !ids.has(String(event.sessionId)) || event.forgotten === true;
    } catch {
      return !sessionIds.some((id) => line.includes(JSON.stringify(id).slice(1, -1)));
    }
  });
  const next = kept.map((line) => `${line}\n`).join('');
  if (next !== text) await writeFileAtomic(file, next);
}
