/**
 * `.archived_sessions.json`: one entry per archived session, so that a save of a session that is
 * already stored in full returns at once. It is only a fast path. It records the store version it
 * was written against; when that differs from the store's (a save that died before updating it, a
 * write by a process of an older version), or the file is missing or unreadable, it is rebuilt from
 * the store rather than trusted.
 *
 * It holds a few hundred bytes per session and nothing per chunk: with each session's chunk ids it
 * grew with the store (about 7 MB at 200,000 chunks). A record written before, with them, is read all
 * the same.
 *
 * A save changes one session's entry, but the file holds every session's (about 570 KB at 1,000
 * sessions): writing it whole at each save cost more than the rest of a small save's bookkeeping. A
 * save of a large record appends the entries it changed to `.archived_sessions.journal` instead,
 * one JSON line each save, and the record is written whole again once the journal has grown to half
 * its size (or when a session's entry goes, so that no forgotten session's entry outlives it there).
 * The journal's first line names the exact file its lines apply to (inode, modification time and
 * size): lines written for an earlier file (a whole write that died before removing them, a record
 * replaced by hand or by an older version) are ignored, never applied to another file. A line cut
 * short or unreadable (a power loss in the middle of an append) ends the journal: what follows it is
 * not read, and the next save writes the record whole. A line lost so leaves the record describing
 * an earlier store version, so it is rebuilt from the store, as after a save that died before
 * writing it: nothing is lost or counted twice.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import type { ArchiveEntry } from '../../../shared/domain.js';
import { writeFileAtomic } from '../files/atomicFile.js';
import { crashPoint } from '../files/crashPoints.js';
import { ARCHIVE_JOURNAL_FILE, ARCHIVE_RECORD_FILE } from '../files/layout.js';
export { ARCHIVE_JOURNAL_FILE, ARCHIVE_RECORD_FILE };

export interface ArchiveRecord {
  format: 1;
  /** The chunks table version this record describes. */
  storeVersion: number;
  /** Commits since the store was last compacted. */
  writesSinceOptimize: number;
  /**
   * The newest chunk's `created_at` (ms) this record knows of: a shared store's record catches up
   * with other machines' saves by reading the chunks created since (recordCache.ts).
   */
  newestChunkAt?: number;
  sessions: Record<string, ArchiveEntry>;
}

const entrySchema = z.object({
  session_id: z.string(),
  title: z.string().optional(),
  source: z.string().optional(),
  parent_session_id: z.string().optional(),
  archived_at: z.string(),
  last_saved_at: z.string(),
  message_count: z.number().int().nonnegative(),
  chunk_count: z.number().int().nonnegative(),
  msg_range: z.union([z.tuple([z.string(), z.string()]), z.tuple([])]),
  fingerprint: z.string(),
  input_fingerprint: z.string().optional(),
  input_total: z.number().int().nonnegative().optional(),
  head_key: z.string().optional(),
  fork_of: z.object({ session_id: z.string(), shared_messages: z.number().int().nonnegative() }).optional(),
});

const recordSchema = z.object({
  format: z.literal(1),
  storeVersion: z.number().int(),
  writesSinceOptimize: z.number().int().nonnegative(),
  newestChunkAt: z.number().optional(),
  sessions: z.record(z.string(), entrySchema),
});

/** One save's changes to the record: its new header fields and the entries it set (a save that removes one writes the record whole). */
export interface RecordChange {
  storeVersion: number;
  writesSinceOptimize: number;
  newestChunkAt?: number;
  set?: Record<string, ArchiveEntry>;
}

const changeSchema = z.object({
  storeVersion: z.number().int(),
  writesSinceOptimize: z.number().int().nonnegative(),
  newestChunkAt: z.number().optional(),
  set: z.record(z.string(), entrySchema).optional(),
});

const journalHeadSchema = z.object({ journal: z.literal(1), record: z.string() });

/** What a read found on disk: where a writer holding the lock may append the next change. */
export interface RecordOnDisk {
  /** The record file's identity (inode, modification time, size): the journal's lines apply to that file alone. */
  file: string;
  /** The record file's size in bytes. */
  bytes: number;
  /** The journal's length up to the end of its last whole line for this file; null when it has none for it. */
  journalEnd: number | null;
  /** The journal holds a line cut short or unreadable: it must be replaced, not appended to. */
  torn: boolean;
}

export type RecordReadResult = { record: ArchiveRecord; disk: RecordOnDisk } | { record: null; problem: string };

export async function readArchiveRecord(dataDir: string): Promise<RecordReadResult> {
  const file = path.join(dataDir, ARCHIVE_RECORD_FILE);
  let text: string;
  let identity: string;
  let bytes: number;
  try {
    // The identity of the very file read (not of a path another writer may have replaced since).
    const handle = await fs.open(file, 'r');
    try {
      const stat = await handle.stat({ bigint: true });
      identity = fileIdentity(stat);
      bytes = Number(stat.size);
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { record: null, problem: `${ARCHIVE_RECORD_FILE} is missing` };
    return { record: null, problem: `${ARCHIVE_RECORD_FILE} cannot be read (${(error as Error).message})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { record: null, problem: `${ARCHIVE_RECORD_FILE} is not valid JSON (${text.length} bytes)` };
  }
  const parsed = recordSchema.safeParse(json);
  if (!parsed.success) return { record: null, problem: `${ARCHIVE_RECORD_FILE} has the wrong shape (${parsed.error.issues[0]?.path.join('.') || 'root'}: ${parsed.error.issues[0]?.message})` };
  const record = parsed.data as ArchiveRecord;
  const journal = await readJournal(dataDir, identity);
  for (const change of journal.changes) applyChange(record, change);
  return { record, disk: { file: identity, bytes, journalEnd: journal.end, torn: journal.torn } };
}

/** The journal's changes for the record file `identity`, up to the first line cut short or unreadable. */
async function readJournal(dataDir: string, identity: string): Promise<{ changes: RecordChange[]; end: number | null; torn: boolean }> {
  let data: Buffer;
  try {
    data = await fs.readFile(path.join(dataDir, ARCHIVE_JOURNAL_FILE));
  } catch (error) {
    // Unreadable: as if missing; the next save writes the record whole and replaces it.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { changes: [], end: null, torn: false };
    return { changes: [], end: null, torn: true };
  }
  const lines = wholeLines(data);
  const head = lines.next();
  const named = head.done ? null : journalHeadSchema.safeParse(parseLine(data, head.value));
  if (head.done || !named?.success || named.data.record !== identity) {
    // Written for another record file (or its first line cut short): none of it applies.
    return { changes: [], end: null, torn: false };
  }
  const changes: RecordChange[] = [];
  let end = head.value.end;
  for (const line of lines) {
    const parsed = changeSchema.safeParse(parseLine(data, line));
    if (!parsed.success) return { changes, end, torn: true };
    changes.push(parsed.data as RecordChange);
    end = line.end;
  }
  return { changes, end, torn: end < data.length };
}

/** The journal's lines ended by a newline; what follows the last newline (a line cut short) is not one. */
function* wholeLines(data: Buffer): Generator<{ start: number; end: number }> {
  let start = 0;
  for (;;) {
    const newline = data.indexOf(0x0a, start);
    if (newline < 0) return;
    yield { start, end: newline + 1 };
    start = newline + 1;
  }
}

function parseLine(data: Buffer, line: { start: number; end: number }): unknown {
  try {
    return JSON.parse(data.toString('utf8', line.start, line.end - 1));
  } catch {
    return undefined;
  }
}

export function applyChange(record: ArchiveRecord, change: RecordChange): void {
  record.storeVersion = change.storeVersion;
  record.writesSinceOptimize = change.writesSinceOptimize;
  if (change.newestChunkAt === undefined) delete record.newestChunkAt;
  else record.newestChunkAt = change.newestChunkAt;
  for (const [sessionId, entry] of Object.entries(change.set ?? {})) record.sessions[sessionId] = entry;
}

/** Writes the record whole and removes the journal, whose lines it now holds. */
export async function writeArchiveRecord(dataDir: string, record: ArchiveRecord): Promise<RecordOnDisk> {
  const file = path.join(dataDir, ARCHIVE_RECORD_FILE);
  await writeFileAtomic(file, JSON.stringify(record));
  // Left behind by a kill here, the journal names the file replaced: it is ignored, then replaced.
  crashPoint(`written/${ARCHIVE_RECORD_FILE}`);
  await fs.rm(path.join(dataDir, ARCHIVE_JOURNAL_FILE), { force: true });
  const stat = await fs.stat(file, { bigint: true });
  return { file: fileIdentity(stat), bytes: Number(stat.size), journalEnd: null, torn: false };
}

/**
 * Appends one save's change to the journal of the record file `disk` describes (read or written by
 * this process under the write lock). A journal for another file, or none, is replaced by one that
 * starts with this change.
 */
export async function appendArchiveRecord(dataDir: string, disk: RecordOnDisk, change: RecordChange): Promise<RecordOnDisk> {
  const journal = path.join(dataDir, ARCHIVE_JOURNAL_FILE);
  const line = Buffer.from(`${JSON.stringify(change)}\n`);
  crashPoint(`append/${ARCHIVE_JOURNAL_FILE}`);
  if (disk.journalEnd === null || disk.torn) {
    const content = Buffer.concat([Buffer.from(`${JSON.stringify({ journal: 1, record: disk.file })}\n`), line]);
    await writeFileAtomic(journal, content);
    return { ...disk, journalEnd: content.length, torn: false };
  }
  const handle = await fs.open(journal, 'r+');
  try {
    await handle.write(line, 0, line.length, disk.journalEnd);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return { ...disk, journalEnd: disk.journalEnd + line.length };
}

/** Identifies one version of a file: the record is replaced by rename, so a new write changes the inode or modification time. */
export function fileIdentity(stat: { ino: bigint; mtimeNs: bigint; size: bigint }): string {
  return `${stat.ino}:${stat.mtimeNs}:${stat.size}`;
}
