/**
 * OpenClaw's per-agent database (`agents/<agentId>/agent/openclaw-agent.sqlite`, OpenClaw 2026.8 and
 * later), read-only and while OpenClaw runs (see sqlite.ts).
 *
 * - `transcript_events(session_id, seq, event_json | event_zstd)`: the lines the session's `.jsonl`
 *   file held, one row each (`event_zstd` is the line zstd-compressed). They are mapped exactly like
 *   the file (openclaw.ts), so a session and its messages keep the ids they had when read from the
 *   file before the upgrade: saving both is one memory.
 * - Idle sessions move to cold archives (`session_transcript_cold_archives`: a file
 *   `sessions/cold/<sha256>.jsonl.zst` or a blob), their rows deleted; read from there.
 * - Reset and deleted sessions are archived (`session_transcript_archives`) and published as
 *   `sessions/<id>.jsonl.reset.<ts>[.zst]` files; archives not (or no longer) on disk are read from
 *   the database, the others are left to the files.
 * - Titles: the session's own name (`session_info`), else the label a person gave it, else OpenClaw's
 *   display name (`session_nodes`, `session_windows`); the channel (Telegram, Slack...) follows it.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SessionInput } from '../../../shared/domain.js';
import { ImportError, ShapeError } from '../errors.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { readJsonlRecords } from '../readers/jsonl.js';
import { mapOpenClawSession, openClawEvent } from './openclaw.js';
import type { ImportedFile, ReadMapping, SkippedPart } from '../read-types.js';
import { openReadOnlyDatabase, type ReadOnlyDatabase } from '../readers/sqlite.js';
import { decompressZstd } from '../readers/zstd.js';

export const OPENCLAW_DATABASE_NAME = 'openclaw-agent.sqlite';

/** Where a session's lines are: rows of `transcript_events`, a cold archive, or a reset/deleted archive. */
export type StoredSessionPlace =
  | { kind: 'events'; lastSeq: number }
  | { kind: 'cold'; storage: 'file' | 'sqlite'; archiveName: string; sha256: string; lastSeq: number }
  | { kind: 'archive'; archiveName: string; encoding: 'identity' | 'zstd' };

export interface StoredSession {
  sessionId: string;
  place: StoredSessionPlace;
  /** The title OpenClaw's session tables give it, with the channel. */
  title?: string;
}

interface WindowRow {
  session_id: string;
  session_key?: string | null;
  display_name?: string | null;
  channel?: string | null;
}
interface NodeRow {
  session_key: string;
  label?: string | null;
  display_name?: string | null;
}

/** The folder beside `agent/` where OpenClaw publishes archives and keeps cold files. */
export function sessionsFolderOf(databaseFile: string): string {
  const folder = path.dirname(databaseFile);
  return path.basename(folder) === 'agent' ? path.join(path.dirname(folder), 'sessions') : folder;
}

/** Every session the database holds, and where its lines are. Cheap: no transcript is read. */
export function storedSessions(db: ReadOnlyDatabase, file: string): StoredSession[] {
  const tables = db.tables();
  if (!tables.has('transcript_events')) throw new ImportError(file, 'unknown-format', 'an SQLite database, but not an OpenClaw agent database (it has no transcript_events table)');
  const titles = sessionTitles(db, tables);
  const sessions: StoredSession[] = [];
  const withTitle = (sessionId: string, place: StoredSessionPlace): StoredSession => {
    const title = titles.get(sessionId);
    return { sessionId, place, ...(title !== undefined ? { title } : {}) };
  };
  const hot = new Set<string>();
  for (const row of db.all<{ session_id: string; last_seq: number }>('SELECT session_id, max(seq) AS last_seq FROM transcript_events GROUP BY session_id ORDER BY session_id')) {
    hot.add(row.session_id);
    sessions.push(withTitle(row.session_id, { kind: 'events', lastSeq: row.last_seq }));
  }
  if (tables.has('session_transcript_cold_archives')) {
    const cold = db.all<{ session_id: string; storage: string; archive_name: string; archive_sha256: string; last_seq: number }>(
      'SELECT session_id, storage, archive_name, archive_sha256, last_seq FROM session_transcript_cold_archives ORDER BY session_id',
    );
    for (const row of cold) {
      if (hot.has(row.session_id)) continue; // being restored: the rows are back
      sessions.push(withTitle(row.session_id, { kind: 'cold', storage: row.storage === 'sqlite' ? 'sqlite' : 'file', archiveName: row.archive_name, sha256: row.archive_sha256, lastSeq: row.last_seq }));
    }
  }
  if (tables.has('session_transcript_archives')) {
    const sessionsFolder = sessionsFolderOf(file);
    const archives = db.all<{ session_id: string; archive_name: string; encoding: string }>('SELECT session_id, archive_name, encoding FROM session_transcript_archives ORDER BY created_at, session_id');
    for (const row of archives) {
      // Published archives are read as the files they are (and stay readable if the database goes).
      if (existsSync(path.join(sessionsFolder, path.basename(row.archive_name)))) continue;
      sessions.push(withTitle(row.session_id, { kind: 'archive', archiveName: row.archive_name, encoding: row.encoding === 'zstd' ? 'zstd' : 'identity' }));
    }
  }
  return sessions;
}

function sessionTitles(db: ReadOnlyDatabase, tables: Set<string>): Map<string, string> {
  const titles = new Map<string, string>();
  if (!tables.has('session_windows')) return titles;
  const nodes = new Map<string, NodeRow>();
  if (tables.has('session_nodes')) for (const node of db.all<NodeRow>(`SELECT ${columns(db, 'session_nodes', ['session_key', 'label', 'display_name'])} FROM session_nodes`)) nodes.set(node.session_key, node);
  for (const window of db.all<WindowRow>(`SELECT ${columns(db, 'session_windows', ['session_id', 'session_key', 'display_name', 'channel'])} FROM session_windows`)) {
    const node = window.session_key ? nodes.get(window.session_key) : undefined;
    const name = text(node?.label) ?? text(window.display_name) ?? text(node?.display_name);
    const channel = text(window.channel);
    const title = name !== undefined && channel !== undefined && !name.toLowerCase().includes(channel.toLowerCase()) ? `${name} (${channel})` : (name ?? channel);
    if (title !== undefined) titles.set(window.session_id, title);
  }
  return titles;
}

/** The columns of `wanted` the table has (OpenClaw's tables gain columns between versions): only those are read, not every column of every row. */
function columns(db: ReadOnlyDatabase, table: string, wanted: string[]): string {
  const present = new Set(db.all<{ name: string }>('SELECT name FROM pragma_table_info(?)', table).map((row) => row.name));
  return wanted.filter((column) => present.has(column)).join(', ') || 'NULL AS none';
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The lines of one stored session, as the records of its file. */
export async function storedSessionRecords(db: ReadOnlyDatabase, file: string, session: StoredSession, maxBytes: number): Promise<JsonlRecord[]> {
  const where = `${file} (session ${session.sessionId})`;
  const place = session.place;
  switch (place.kind) {
    case 'events': {
      const rows = db.all<{ seq: number; event_json: string | null; event_zstd: Uint8Array | null; event_utf8_bytes: number | null }>(
        'SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? AND seq <= ? ORDER BY seq',
        session.sessionId,
        place.lastSeq,
      );
      return rows.map((row) => openClawEvent(row.seq, row.event_json ?? decodeEvent(where, row.seq, row.event_zstd, row.event_utf8_bytes, maxBytes)));
    }
    case 'cold': {
      const bytes = place.storage === 'sqlite' ? coldBlob(db, session.sessionId) : await coldFile(where, path.join(sessionsFolderOf(file), 'cold', path.basename(place.archiveName)));
      if (createHash('sha256').update(bytes).digest('hex') !== place.sha256) throw new ShapeError(`cold archive ${place.archiveName} does not match the checksum OpenClaw recorded`);
      return jsonlLines(where, decompressZstd(where, bytes, maxBytes));
    }
    case 'archive': {
      const row = db.get<{ archive_blob: Uint8Array }>('SELECT archive_blob FROM session_transcript_archives WHERE archive_name = ?', place.archiveName);
      if (row === undefined) throw new ImportError(file, 'changed', `the archive ${place.archiveName} was removed while it was read`);
      const bytes = Buffer.from(row.archive_blob);
      return jsonlLines(where, place.encoding === 'zstd' ? decompressZstd(where, bytes, maxBytes) : bytes);
    }
  }
}

function decodeEvent(where: string, seq: number, compressed: Uint8Array | null, utf8Bytes: number | null, maxBytes: number): string {
  if (compressed === null) throw new ShapeError(`line ${seq + 1}: the event has neither event_json nor event_zstd`);
  const bytes = decompressZstd(`${where} line ${seq + 1}`, compressed, Math.min(maxBytes, utf8Bytes ?? maxBytes));
  if (utf8Bytes !== null && bytes.length !== utf8Bytes) throw new ShapeError(`line ${seq + 1}: the compressed event is ${bytes.length} bytes, not the ${utf8Bytes} recorded`);
  return bytes.toString('utf8');
}

function coldBlob(db: ReadOnlyDatabase, sessionId: string): Buffer {
  const row = db.get<{ archive_blob: Uint8Array | null }>('SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = ?', sessionId);
  if (row?.archive_blob == null) throw new ShapeError('the cold archive was restored or removed while it was read');
  return Buffer.from(row.archive_blob);
}

async function coldFile(where: string, archive: string): Promise<Buffer> {
  try {
    return await readFile(archive);
  } catch (error) {
    throw new ImportError(where, 'unreadable', `cannot read its cold archive ${archive}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
}

async function jsonlLines(where: string, bytes: Buffer): Promise<JsonlRecord[]> {
  return (await readJsonlRecords(where, [bytes], false)) ?? [];
}

/**
 * What changes whenever a stored session may have: where its lines are and its last event's number
 * (events are only ever appended), so that a sync reads only the sessions that moved.
 */
export function storedSessionMark(session: StoredSession): string {
  const place = session.place;
  switch (place.kind) {
    case 'events':
      return `events:${place.lastSeq}`;
    case 'cold':
      return `cold:${place.lastSeq}:${place.sha256}`;
    case 'archive':
      return `archive:${place.archiveName}`;
  }
}

/** One session mapped, or why it cannot be. */
export async function mapStoredSession(db: ReadOnlyDatabase, file: string, session: StoredSession, mapping: ReadMapping, maxBytes: number): Promise<SessionInput> {
  let mapped: SessionInput;
  try {
    mapped = mapOpenClawSession(await storedSessionRecords(db, file, session, maxBytes), mapping, session.title);
  } catch (error) {
    if (error instanceof ShapeError) throw new ImportError(file, 'wrong-shape', `session ${session.sessionId}: ${error.message}`);
    if (error instanceof ImportError && error.file !== file) throw new ImportError(file, error.code, `session ${session.sessionId}: ${error.problem}`, { cause: error });
    throw error;
  }
  if (mapped.sessionId !== session.sessionId) throw new ImportError(file, 'wrong-shape', `session ${session.sessionId}: its first event names another session (${mapped.sessionId})`);
  return mapped;
}

/**
 * The sessions of an OpenClaw agent database. Every session is read and checked before the first
 * is handed out (a damaged one is skipped and named, or refuses the database with `strict`); the
 * sessions are then read again one at a time, each only up to the last event the check saw.
 */
export async function readOpenClawDatabase(file: string, mapping: ReadMapping, maxBytes: number): Promise<ImportedFile> {
  const skipped: SkippedPart[] = [];
  const good: StoredSession[] = [];
  const db = openReadOnlyDatabase(file);
  try {
    for (const session of storedSessions(db, file)) {
      try {
        if ((await mapStoredSession(db, file, session, mapping, maxBytes)).messages.length > 0) good.push(session);
      } catch (error) {
        if (!(error instanceof ImportError) || mapping.strict || error.file !== file) throw error;
        skipped.push({ file, session: session.sessionId, error: error.problem });
      }
    }
  } finally {
    db.close();
  }
  if (good.length === 0) throw new ImportError(file, 'empty', skipped.length > 0 ? `no session could be read (${skipped[0]!.error})` : 'no messages to import');
  return {
    file,
    format: 'openclaw',
    sessionCount: good.length,
    skipped,
    sessions: {
      async *[Symbol.asyncIterator]() {
        const again = openReadOnlyDatabase(file);
        try {
          for (const session of good) yield await mapStoredSession(again, file, session, mapping, maxBytes);
        } finally {
          again.close();
        }
      },
    },
  };
}
