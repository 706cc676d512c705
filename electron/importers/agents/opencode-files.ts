/**
 * Reading opencode's database and its older `storage/` folder (the records are described in
 * opencode.ts). The database is read while opencode may be writing it (see database-sessions.ts).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SessionInput } from '../../../shared/domain.js';
import { ImportError } from '../errors.js';
import { parseRecord, readDatabaseSessions, type DatabaseSessions } from '../database-sessions.js';
import { mapOpencodeSession, type OpencodeMessageRecord, type OpencodeSessionRecord } from './opencode.js';
import { sessionsResult, type ImportedFile, type ReadMapping, type SkippedPart } from '../read-types.js';
import { isObject, optionalText, type JsonObject } from '../shape.js';
import { unreadableError } from '../readers/sources.js';
import type { ReadOnlyDatabase } from '../readers/sqlite.js';

const OPENCODE_TABLES = ['session', 'message', 'part'];

export function isOpencodeDatabase(db: ReadOnlyDatabase): boolean {
  const tables = db.tables();
  return OPENCODE_TABLES.every((table) => tables.has(table));
}

interface SessionRow {
  id: string;
  parent_id: string | null;
  title: string | null;
  /** The session's own time, and the newest time and count of its messages and parts: a new or changed one moves them. */
  updated: number | null;
  messages: number;
  messages_updated: number | null;
  parts: number;
  parts_updated: number | null;
}

/**
 * Kilo's CLI (and the Kilo Code extension built on it) is a fork of opencode that keeps the same
 * database as `kilo.db` (`kilo-<channel>.db`) in its own data folder: its sessions are Kilo Code's.
 */
const KILO_DATABASE = /^kilo(?:-[\w.-]+)?\.db$/i;

/** opencode's database, session by session; `file` tells opencode's from Kilo's. */
export function opencodeDatabaseSessions(file: string): DatabaseSessions<SessionRow> {
  const source = KILO_DATABASE.test(path.basename(file)) ? 'kilo-code' : 'opencode';
  return { ...opencodeSessionReader, session: (db, row, mapping) => ({ ...mapDatabaseSession(db, row, mapping), source }) };
}

const opencodeSessionReader: DatabaseSessions<SessionRow> = {
  format: 'opencode',
  keys: (db) =>
    db.all<SessionRow>(
      `SELECT s.id, s.parent_id, s.title, s.time_updated AS updated,
         (SELECT count(*) FROM message m WHERE m.session_id = s.id) AS messages, (SELECT max(m.time_updated) FROM message m WHERE m.session_id = s.id) AS messages_updated,
         (SELECT count(*) FROM part p WHERE p.session_id = s.id) AS parts, (SELECT max(p.time_updated) FROM part p WHERE p.session_id = s.id) AS parts_updated
       FROM session s ORDER BY s.time_created, s.id`,
    ),
  session: mapDatabaseSession,
  name: (row) => row.id,
  mark: (row) => [row.updated, row.messages, row.messages_updated, row.parts, row.parts_updated, row.title].join(':'),
};

export function readOpencodeDatabase(file: string, mapping: ReadMapping): ImportedFile {
  return readDatabaseSessions<SessionRow>(file, mapping, opencodeDatabaseSessions(file));
}

function mapDatabaseSession(db: ReadOnlyDatabase, row: SessionRow, mapping: ReadMapping): SessionInput {
  const messageRows = db.all<{ id: string; time_created: number; data: string }>('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id', row.id);
  const partRows = db.all<{ id: string; message_id: string; data: string }>('SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id', row.id);
  const partsByMessage = new Map<string, JsonObject[]>();
  for (const part of partRows) {
    const list = partsByMessage.get(part.message_id) ?? [];
    list.push(parseRecord(part.data, `part ${part.id}`));
    partsByMessage.set(part.message_id, list);
  }
  const records: OpencodeMessageRecord[] = messageRows.map((message) => ({
    id: message.id,
    data: parseRecord(message.data, `message ${message.id}`),
    parts: partsByMessage.get(message.id) ?? [],
    createdAt: message.time_created,
  }));
  return mapOpencodeSession(sessionRecord(row.id, row.title, row.parent_id), records, mapping);
}

function sessionRecord(id: string, title: unknown, parentId: unknown): OpencodeSessionRecord {
  const parent = optionalText(parentId);
  const name = optionalText(title);
  return { id, ...(name !== undefined ? { title: name } : {}), ...(parent !== undefined ? { parentId: parent } : {}) };
}

/** A folder laid out as opencode's `storage/` before 1.2 (its `session/` folder may be gone: the messages are what counts). */
export function isOpencodeStorage(folderNames: ReadonlySet<string>): boolean {
  return folderNames.has('message') && folderNames.has('part');
}

export async function readOpencodeStorage(folder: string, mapping: ReadMapping): Promise<ImportedFile> {
  const skipped: SkippedPart[] = [];
  const sessions: SessionInput[] = [];
  const infos = new Map<string, OpencodeSessionRecord>();
  for (const project of await subfolders(path.join(folder, 'session'))) {
    for (const file of await jsonFiles(path.join(folder, 'session', project))) {
      const info = await readRecord(path.join(folder, 'session', project, file), skipped, mapping);
      const id = info === undefined ? undefined : optionalText(info.id);
      if (info !== undefined && id !== undefined) infos.set(id, sessionRecord(id, info.title, info.parentID));
    }
  }
  // Sessions whose info file is gone still have their messages.
  const sessionIds = new Set([...infos.keys(), ...(await subfolders(path.join(folder, 'message')))]);
  for (const sessionId of [...sessionIds].sort()) {
    const records: OpencodeMessageRecord[] = [];
    const messageFolder = path.join(folder, 'message', sessionId);
    for (const file of await jsonFiles(messageFolder)) {
      const data = await readRecord(path.join(messageFolder, file), skipped, mapping);
      const id = data === undefined ? undefined : optionalText(data.id);
      if (data === undefined || id === undefined) continue;
      const partFolder = (await subfolders(path.join(folder, 'part', sessionId))).includes(id) ? path.join(folder, 'part', sessionId, id) : path.join(folder, 'part', id);
      const parts: JsonObject[] = [];
      for (const partFile of await jsonFiles(partFolder)) {
        const part = await readRecord(path.join(partFolder, partFile), skipped, mapping);
        if (part !== undefined) parts.push(part);
      }
      records.push({ id, data, parts });
    }
    records.sort((a, b) => createdOf(a) - createdOf(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    sessions.push(mapOpencodeSession(infos.get(sessionId) ?? { id: sessionId }, records, mapping));
  }
  return sessionsResult(folder, 'opencode', sessions, skipped);
}

function createdOf(record: OpencodeMessageRecord): number {
  const created = isObject(record.data.time) ? record.data.time.created : undefined;
  return typeof created === 'number' ? created : 0;
}

async function readRecord(file: string, skipped: SkippedPart[], mapping: ReadMapping): Promise<JsonObject | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw unreadableError(file, error);
  }
  try {
    const value: unknown = JSON.parse(text);
    if (isObject(value)) return value;
  } catch {
    // Reported below.
  }
  const problem = 'not a JSON object (a damaged or half-written file)';
  if (mapping.strict) throw new ImportError(file, 'invalid-json', problem);
  skipped.push({ file, error: problem });
  return undefined;
}

async function subfolders(folder: string): Promise<string[]> {
  try {
    return (await readdir(folder, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw unreadableError(folder, error);
  }
}

async function jsonFiles(folder: string): Promise<string[]> {
  try {
    return (await readdir(folder, { withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.json')).map((entry) => entry.name).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw unreadableError(folder, error);
  }
}
