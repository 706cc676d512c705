/**
 * Where an OpenClaw state folder keeps conversations, and a cheap way to tell whether they changed.
 *
 * The state folder is `~/.openclaw` (or `OPENCLAW_STATE_DIR`; older installs `~/.clawdbot`,
 * `~/.moltbot`). Each agent has a folder `agents/<agentId>/` holding:
 * - `agent/openclaw-agent.sqlite`: the sessions since OpenClaw 2026.8 (openclaw-db.ts reads it, with
 *   its cold archives `sessions/cold/*.jsonl.zst`);
 * - `sessions/`: `<id>.jsonl` files of earlier versions, and reset and deleted sessions archived as
 *   `<id>.jsonl.reset.<ts>` / `.deleted.<ts>`, zstd-compressed when they end in `.zst`;
 * - `session-sqlite-import-archive/`: the `.jsonl` files the upgrade moved into the database, kept as
 *   `<key>.<id>.jsonl.imported-<ms>`; one whose session the database holds is the same history and is
 *   left out.
 * Everything else there (openclaw.json, state/openclaw.sqlite, migration receipts, workspaces,
 * credentials, `sessions.json`) holds no conversation and is not read.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { OPENCLAW_DATABASE_NAME, storedSessions, type StoredSessionPlace } from './openclaw-db.js';
import { openReadOnlyDatabase } from '../readers/sqlite.js';

export type OpenClawSourceKind = 'database' | 'session-file' | 'archive' | 'import-leftover';

export interface OpenClawSessionMarker {
  sessionId: string;
  /** Where its lines are: `events` (database rows), `cold` (a cold archive) or `archive` (reset/deleted, not on disk). */
  place: StoredSessionPlace['kind'];
  /** The last event's sequence number (`events`, `cold`); grows with every new line. */
  lastSeq?: number;
}

export interface OpenClawTranscriptSource {
  kind: OpenClawSourceKind;
  /** The file to read (`readTranscripts([path])`). */
  path: string;
  agentId: string;
  /**
   * Changes whenever the source's conversations may have changed: for a database, a digest of every
   * session's last event number and archive; for a file, its size and modification time.
   */
  marker: string;
  /** For a database: its sessions and where each stands. */
  sessions?: OpenClawSessionMarker[];
  /** Why a database could not be looked into (it is still listed: reading it will say the same). */
  error?: string;
}

const ARCHIVE_NAME = /\.jsonl\.(reset|deleted)\.[^/\\]+$/;
const CHECKPOINT_NAME = /\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;
const LEFTOVER_NAME = /(?:^|\.)([^.]+)\.jsonl\.imported-\d+$/;

/** Whether a folder is an OpenClaw state folder: `agents/<id>/` with a database, a `sessions.json` index or the upgrade's leftovers. */
export async function isOpenClawStateFolder(folder: string): Promise<boolean> {
  return (await agentFolders(path.join(folder, 'agents'))).length > 0;
}

async function agentFolders(agents: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of await folderNames(agents)) {
    const agent = path.join(agents, name);
    // OpenClaw's own marks, so that another tool's `agents/x/sessions/` folder is not taken for one.
    const marks = [path.join(agent, 'agent', OPENCLAW_DATABASE_NAME), path.join(agent, 'sessions', 'sessions.json')];
    if ((await Promise.all(marks.map(isFile))).some(Boolean) || (await isFolder(path.join(agent, 'session-sqlite-import-archive')))) found.push(agent);
  }
  return found;
}

/**
 * Every transcript source under an OpenClaw state folder, agent by agent (sorted by name), each with a
 * marker a later sync compares to skip what did not change. Reads no transcript: the databases are
 * asked only for their sessions' last event numbers.
 */
export async function listOpenClawTranscriptSources(stateFolder: string): Promise<OpenClawTranscriptSource[]> {
  const sources: OpenClawTranscriptSource[] = [];
  for (const agent of await agentFolders(path.join(stateFolder, 'agents'))) sources.push(...(await agentSources(agent)));
  return sources;
}

async function agentSources(agent: string): Promise<OpenClawTranscriptSource[]> {
  const agentId = path.basename(agent);
  const sources: OpenClawTranscriptSource[] = [];
  const inDatabase = new Set<string>();
  const database = path.join(agent, 'agent', OPENCLAW_DATABASE_NAME);
  if (await isFile(database)) {
    const source = await databaseSource(database, agentId);
    for (const session of source.sessions ?? []) inDatabase.add(session.sessionId);
    sources.push(source);
  }
  const sessions = path.join(agent, 'sessions');
  for (const name of await fileNames(sessions)) {
    // Compaction checkpoints (`<id>.checkpoint.<uuid>.jsonl`) are earlier copies of a session: not read.
    const kind = CHECKPOINT_NAME.test(name) ? undefined : name.endsWith('.jsonl') ? 'session-file' : ARCHIVE_NAME.test(name.replace(/\.zst$/, '')) ? 'archive' : undefined;
    if (kind !== undefined) sources.push(await fileSource(path.join(sessions, name), kind, agentId));
  }
  // Without a database to read them through, cold archives are read as files.
  if (!sources.some((source) => source.kind === 'database')) {
    for (const name of await fileNames(path.join(sessions, 'cold'))) {
      if (name.endsWith('.jsonl.zst')) sources.push(await fileSource(path.join(sessions, 'cold', name), 'archive', agentId));
    }
  }
  const leftovers = path.join(agent, 'session-sqlite-import-archive');
  for (const name of await fileNames(leftovers)) {
    const sessionId = LEFTOVER_NAME.exec(name)?.[1];
    if (sessionId !== undefined && !inDatabase.has(sessionId)) sources.push(await fileSource(path.join(leftovers, name), 'import-leftover', agentId));
  }
  return sources;
}

async function databaseSource(file: string, agentId: string): Promise<OpenClawTranscriptSource> {
  let db;
  try {
    db = openReadOnlyDatabase(file);
  } catch (error) {
    return { kind: 'database', path: file, agentId, marker: `unreadable:${await fileMarker(file)}`, error: (error as Error).message };
  }
  try {
    const sessions: OpenClawSessionMarker[] = storedSessions(db, file).map(({ sessionId, place }) => ({
      sessionId,
      place: place.kind,
      ...(place.kind !== 'archive' ? { lastSeq: place.lastSeq } : {}),
    }));
    // A rewrite (a repair of a session's lines) keeps the last sequence number but changes the generation.
    const rewrites = db.get<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'transcript_rewrite_watermarks'")?.n
      ? db.all<{ session_id: string; generation: string }>('SELECT session_id, generation FROM transcript_rewrite_watermarks ORDER BY session_id')
      : [];
    const marker = JSON.stringify([sessions.map((session) => [session.sessionId, session.place, session.lastSeq ?? null]), rewrites.map((row) => [row.session_id, row.generation])]);
    return { kind: 'database', path: file, agentId, marker, sessions };
  } catch (error) {
    return { kind: 'database', path: file, agentId, marker: `unreadable:${await fileMarker(file)}`, error: (error as Error).message };
  } finally {
    db.close();
  }
}

async function fileSource(file: string, kind: OpenClawSourceKind, agentId: string): Promise<OpenClawTranscriptSource> {
  return { kind, path: file, agentId, marker: await fileMarker(file) };
}

async function fileMarker(file: string): Promise<string> {
  try {
    const stats = await stat(file);
    return `${stats.size}:${stats.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

async function entries(folder: string) {
  try {
    return (await readdir(folder, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

async function fileNames(folder: string): Promise<string[]> {
  return (await entries(folder)).filter((entry) => entry.isFile()).map((entry) => entry.name);
}

async function folderNames(folder: string): Promise<string[]> {
  return (await entries(folder)).filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => entry.name);
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isFile() ?? false;
}

async function isFolder(folder: string): Promise<boolean> {
  return (await stat(folder).catch(() => undefined))?.isDirectory() ?? false;
}
