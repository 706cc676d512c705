/**
 * OpenClaw since 2026.8: sessions in a per-agent SQLite database. The fixtures are what
 * openclaw@2026.9.6 itself wrote (see test/fixtures/import/openclaw-sqlite/PROVENANCE.md); every test
 * reads a copy, since opening a WAL database creates its `-shm` file beside it.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { SessionInput } from '../../shared/domain.js';
import { DEFAULT_LIMITS } from '../../electron/importers/read.js';
import { errorOf, fixture, readAll, tempDir, type ReadResult } from './helpers.js';

const CURRENT = '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const ARCHIVED = '1e2d3c4b-0000-4aaa-8bbb-123456789abc';
const TRIP = 'c0ffee00-2222-4333-8444-555566667777';
const NOTES = 'd00d0000-aaaa-4bbb-8ccc-000000000001';
const GONE = 'd00d0000-aaaa-4bbb-8ccc-000000000002';
const RESET_FILE = `${ARCHIVED}.jsonl.reset.2026-01-10T08-00-00.000Z`;
const DELETED_FILE = `${GONE}.jsonl.deleted.2026-03-02T10-00-00.000Z`;
const MAIN_DB = path.join('agents', 'main', 'agent', 'openclaw-agent.sqlite');
const WORK_DB = path.join('agents', 'work', 'agent', 'openclaw-agent.sqlite');

/** A fresh copy of a fixture folder (or file). */
function copyOf(...parts: string[]): string {
  const target = path.join(tempDir(), parts.at(-1)!);
  cpSync(fixture('openclaw-sqlite', ...parts), target, { recursive: true });
  return target;
}

/** Each file read, relative to `root`, with its sessions' ids, or its error. */
function summary(results: ReadResult[], root: string): Array<[string, string, string[]] | string> {
  return results.map((result) => ('error' in result ? result.error.message : [path.relative(root, result.file), result.format, result.sessions.map((session) => session.sessionId)]));
}

function sessionsById(results: ReadResult[]): Map<string, SessionInput> {
  const byId = new Map<string, SessionInput>();
  for (const result of results) if (!('error' in result)) for (const session of result.sessions) byId.set(session.sessionId, session);
  return byId;
}

describe('OpenClaw state folder after the upgrade to SQLite (openclaw doctor --fix)', () => {
  it("reads every agent's database and the archives left in sessions/, and reports nothing else", async () => {
    const state = copyOf('upgraded');
    // OpenClaw's own database, state/openclaw.sqlite (left out of the fixture: it holds a device key).
    mkdirSync(path.join(state, 'state'));
    const own = new Database(path.join(state, 'state', 'openclaw.sqlite'));
    own.exec('CREATE TABLE device_identities (id TEXT PRIMARY KEY)');
    own.close();
    const results = await readAll([state]);
    // Not reported: openclaw.json, the migration receipt, the moved sessions.json, the moved .jsonl
    // files of sessions the database holds, OpenClaw's own database.
    expect(summary(results, state)).toEqual([
      [MAIN_DB, 'openclaw', [CURRENT, TRIP]],
      [path.join('agents', 'main', 'sessions', RESET_FILE), 'openclaw', [ARCHIVED]],
      [WORK_DB, 'openclaw', [NOTES]],
      [path.join('agents', 'work', 'sessions', DELETED_FILE), 'openclaw', [GONE]],
    ]);
  });

  it('gives every session the ids and messages its .jsonl file gave before the upgrade', async () => {
    for (const include of [[], ['tools', 'thinking']] as const) {
      const before = sessionsById(await readAll([copyOf('legacy')], { include: [...include] }));
      const after = sessionsById(await readAll([copyOf('upgraded')], { include: [...include] }));
      expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
      for (const [sessionId, session] of after) expect(session.messages, sessionId).toEqual(before.get(sessionId)!.messages);
      expect(after.get(CURRENT)!.messages.length).toBe(include.length === 0 ? 6 : 9);
    }
  });

  it("titles a session by its own name, else the label a person gave it, with the channel it came from", async () => {
    const sessions = sessionsById(await readAll([copyOf('upgraded')]));
    expect(sessions.get(CURRENT)!.title).toBe('Refactor 重构'); // its session_info entry
    expect(sessions.get(TRIP)!.title).toBe('Portugal trip (telegram)'); // session_nodes.label, session_windows.channel
    expect(sessions.get(NOTES)!.title).toBe('Standup notes');
    expect(sessions.get(TRIP)!.source).toBe('openclaw');
  });

  it('reads the database named directly, and a sessions folder as files', async () => {
    const state = copyOf('upgraded');
    expect(summary(await readAll([path.join(state, MAIN_DB)]), state)).toEqual([[MAIN_DB, 'openclaw', [CURRENT, TRIP]]]);
    expect(summary(await readAll([path.join(state, 'agents', 'work', 'sessions')]), state)).toEqual([[path.join('agents', 'work', 'sessions', DELETED_FILE), 'openclaw', [GONE]]]);
  });

  it('reads a moved-aside .jsonl (session-sqlite-import-archive) when the database does not hold its session', async () => {
    const state = copyOf('upgraded');
    rmSync(path.join(state, WORK_DB));
    const results = await readAll([state]);
    expect(summary(results, state).slice(2)).toEqual([
      [path.join('agents', 'work', 'sessions', DELETED_FILE), 'openclaw', [GONE]],
      [path.join('agents', 'work', 'session-sqlite-import-archive', `agent_work_main.${NOTES}.jsonl.imported-1796408637832`), 'openclaw', [NOTES]],
    ]);
  });

  it('reads the state folder as it was before the upgrade: session files and archives, not sessions.json', async () => {
    const state = copyOf('legacy');
    expect(summary(await readAll([state]), state)).toEqual([
      [path.join('agents', 'main', 'sessions', RESET_FILE), 'openclaw', [ARCHIVED]],
      [path.join('agents', 'main', 'sessions', `${CURRENT}.jsonl`), 'openclaw', [CURRENT]],
      [path.join('agents', 'main', 'sessions', `${TRIP}.jsonl`), 'openclaw', [TRIP]],
      [path.join('agents', 'work', 'sessions', `${NOTES}.jsonl`), 'openclaw', [NOTES]],
      [path.join('agents', 'work', 'sessions', DELETED_FILE), 'openclaw', [GONE]],
    ]);
  });
});

describe('OpenClaw database storage', () => {
  it('decodes events stored zstd-compressed (event_zstd)', async () => {
    const file = copyOf('zstd', 'openclaw-agent.sqlite');
    const db = new Database(file, { readonly: true });
    const compressed = db.prepare('SELECT seq FROM transcript_events WHERE session_id = ? AND event_json IS NULL AND event_zstd IS NOT NULL').all(TRIP);
    db.close();
    expect(compressed).toEqual([{ seq: 6 }]);
    const trip = sessionsById(await readAll([file])).get(TRIP)!;
    expect(trip.messages.map((message) => message.msgId).slice(-2)).toEqual([`${TRIP}:c1000005`, `${TRIP}:c1000006`]);
    expect(trip.messages.at(-1)!.content).toMatch(/^Lisbon:\n- Cervejaria Ramiro[\s\S]*Mercado do Bolhao for a market lunch\. Lunch is the better value/);
    expect(trip.messages.at(-1)!.timestamp).toBe('2026-02-04T08:15:40.000Z');
  });

  it('reads sessions moved to cold storage (sessions/cold/<sha256>.jsonl.zst), with the ids they had', async () => {
    const cold = copyOf('cold');
    const db = new Database(path.join(cold, MAIN_DB), { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM transcript_events').get()).toEqual({ n: 0 });
    db.close();
    const results = await readAll([cold]);
    expect(summary(results, cold)).toEqual([
      [MAIN_DB, 'openclaw', [CURRENT, TRIP]],
      [path.join('agents', 'main', 'sessions', RESET_FILE), 'openclaw', [ARCHIVED]],
    ]);
    const hot = sessionsById(await readAll([copyOf('upgraded')]));
    for (const [sessionId, session] of sessionsById(results)) expect(session).toEqual(hot.get(sessionId));
    // The cold files alone (no database beside them) are recognised by their content.
    const files = sessionsById(await readAll([path.join(cold, 'agents', 'main', 'sessions', 'cold')]));
    expect([...files.keys()].sort()).toEqual([CURRENT, TRIP]);
    expect(files.get(TRIP)!.messages).toEqual(hot.get(TRIP)!.messages);
  });

  it('says which cold archive is missing, and still reads the other sessions', async () => {
    const cold = copyOf('cold');
    rmSync(path.join(cold, 'agents', 'main', 'sessions', 'cold', '1959cd4b3ac6acfc12ede5ed34144589a39446660f1025022f868c8796775abb.jsonl.zst'));
    const [result] = await readAll([path.join(cold, MAIN_DB)]);
    if (!result || 'error' in result) throw new Error('expected the database to be read');
    expect(result.sessions.map((session) => session.sessionId)).toEqual([CURRENT]);
    expect(result.skipped).toEqual([{ file: path.join(cold, MAIN_DB), session: TRIP, error: expect.stringMatching(/^session c0ffee00-.*: cannot read its cold archive .*1959cd4b.*\.jsonl\.zst: ENOENT$/) }]);
  });

  it('reads zstd-compressed archives (<id>.jsonl.deleted.<ts>.zst)', async () => {
    const folder = copyOf('archives');
    const results = await readAll([folder]);
    expect(summary(results, folder)).toEqual([[`${DELETED_FILE}.zst`, 'openclaw', [GONE]]]);
    const plain = sessionsById(await readAll([copyOf('legacy', 'agents', 'work', 'sessions', DELETED_FILE)]));
    expect(sessionsById(results).get(GONE)).toEqual(plain.get(GONE));
  });

  it('skips and names a session with a damaged event; --strict refuses the database', async () => {
    const file = copyOf('upgraded', MAIN_DB);
    const db = new Database(file);
    db.prepare('UPDATE transcript_events SET event_json = ?, event_utf8_bytes = 19 WHERE session_id = ? AND seq = 3').run('{"type":"message",', TRIP);
    db.close();
    const [result] = await readAll([file]);
    if (!result || 'error' in result) throw new Error('expected the database to be read');
    expect(result.sessions.map((session) => session.sessionId)).toEqual([CURRENT]);
    expect(result.skipped).toEqual([{ file, session: TRIP, error: `session ${TRIP}: line 4: the stored event is not valid JSON` }]);
    const strict = await errorOf(file, DEFAULT_LIMITS, { strict: true });
    expect([strict.code, strict.message]).toEqual(['wrong-shape', `${file}: session ${TRIP}: line 4: the stored event is not valid JSON`]);
  });

  it('refuses an SQLite database of no tool it knows, naming it and what it understands', async () => {
    const file = path.join(tempDir(), 'other.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE notes (text TEXT)');
    db.close();
    const error = await errorOf(file);
    expect([error.code, error.message]).toEqual(['unknown-format', `${file}: a SQLite database of no tool we know (understood: OpenClaw's agent databases, opencode's opencode.db, Cursor's state.vscdb)`]);
  });

  it('refuses zstd data that decompresses beyond the limit, and damaged zstd data', async () => {
    const archive = copyOf('archives', `${DELETED_FILE}.zst`);
    const bomb = await errorOf(archive, { ...DEFAULT_LIMITS, maxEntryBytes: 100 });
    expect([bomb.code, bomb.message]).toEqual(['zip-bomb', `${archive}: refused: zstd data decompresses to more than 100 bytes`]);
    const damaged = path.join(tempDir(), `${DELETED_FILE}.zst`);
    writeFileSync(damaged, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x60, 0x41, 0x02]));
    const error = await errorOf(damaged);
    expect([error.code, error.message]).toEqual(['truncated', `${damaged}: damaged zstd data (unexpected EOF)`]);
  });
});
