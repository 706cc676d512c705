/**
 * `.archived_sessions.json`: one entry per archived session, so that a save of a session that is
 * already stored in full returns at once. It is only a fast path. It records the store version it
 * was written against; when that differs from the store's (a save that died before updating it, a
 * write by a process of an older version), or the file is missing or unreadable, it is rebuilt from
 * the store rather than trusted.
 *
 * Every save that writes rewrites it, so it holds a few hundred bytes per session and nothing per
 * chunk: with each session's chunk ids it grew with the store (about 7 MB at 200,000 chunks, written
 * and made durable by every save). A record written before, with them, is read all the same.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import type { ArchiveEntry } from '../../../shared/domain.js';
import { writeFileAtomic } from '../files/atomicFile.js';

import { ARCHIVE_RECORD_FILE } from '../files/layout.js';
export { ARCHIVE_RECORD_FILE };

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

export type RecordReadResult = { record: ArchiveRecord } | { record: null; problem: string };

export async function readArchiveRecord(dataDir: string): Promise<RecordReadResult> {
  const file = path.join(dataDir, ARCHIVE_RECORD_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
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
  return { record: parsed.data as ArchiveRecord };
}

export async function writeArchiveRecord(dataDir: string, record: ArchiveRecord): Promise<void> {
  await writeFileAtomic(path.join(dataDir, ARCHIVE_RECORD_FILE), JSON.stringify(record));
}
