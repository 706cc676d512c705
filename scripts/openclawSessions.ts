/**
 * OpenClaw agent databases of many sessions, for the database sync's benchmark and tests: a copy of
 * the database openclaw@2026.9.6 itself wrote (test/fixtures/import/openclaw-sqlite/zstd), filled with
 * sessions of a few turns each, and turns appended to one of them as OpenClaw appends them (a user
 * and an assistant event in one transaction, in WAL mode).
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export const OPENCLAW_TEMPLATE = path.resolve('test/fixtures/import/openclaw-sqlite/zstd/openclaw-agent.sqlite');
const DAY = Date.UTC(2026, 1, 5);

export function openClawSessionId(n: number): string {
  return `5e550000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** A database at `file` holding the template's sessions and `count` more of `turns` turns each; returns the new sessions' ids. */
export function writeOpenClawDatabase(file: string, count: number, turns = 3): string[] {
  copyFileSync(OPENCLAW_TEMPLATE, file);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    const ids: string[] = [];
    db.transaction(() => {
      const insert = db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)');
      // Each session has its window (OpenClaw's events refer to it), under the template's main session key.
      const window = db.prepare("INSERT INTO session_windows (session_id, session_key, created_at, updated_at, display_name) VALUES (?, 'agent:main:main', ?, ?, ?)");
      for (let n = 0; n < count; n++) {
        const sessionId = openClawSessionId(n);
        ids.push(sessionId);
        window.run(sessionId, DAY + n * 60_000, DAY + n * 60_000, `Trip planning ${n}`);
        const header = JSON.stringify({ type: 'session', version: 3, id: sessionId, timestamp: new Date(DAY + n * 60_000).toISOString(), cwd: '/home/ana/project' });
        insert.run(sessionId, 0, header, DAY + n * 60_000, Buffer.byteLength(header));
        let parentId: string | null = null;
        for (let turn = 1; turn <= turns; turn++) parentId = turnEvents(sessionId, turn, parentId, (seq, event, at) => insert.run(sessionId, seq, event, at, Buffer.byteLength(event)));
      }
    })();
    return ids;
  } finally {
    db.close();
  }
}

/** Appends turn `turn` (its 2 events) to a session of the database, as OpenClaw does; returns the events' ids. */
export function appendOpenClawTurn(db: Database.Database, sessionId: string, turn: number): string[] {
  const last = db.prepare('SELECT seq, event_json FROM transcript_events WHERE session_id = ? ORDER BY seq DESC LIMIT 1').get(sessionId) as { seq: number; event_json: string };
  const insert = db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)');
  const ids: string[] = [];
  db.transaction(() => {
    const parent = (JSON.parse(last.event_json) as { id?: string; type?: string }).type === 'session' ? null : ((JSON.parse(last.event_json) as { id: string }).id ?? null);
    turnEvents(sessionId, turn, parent, (seq, event, at) => {
      insert.run(sessionId, last.seq + seq - (turn - 1) * 2, event, at, Buffer.byteLength(event));
      ids.push((JSON.parse(event) as { id: string }).id);
    });
  })();
  return ids;
}

/** The 2 events of a turn, numbered from `turn` (seq 2·turn-1 and 2·turn), handed to `add`; returns the last one's id. */
function turnEvents(sessionId: string, turn: number, parentId: string | null, add: (seq: number, event: string, at: number) => void): string {
  let parent = parentId;
  for (const role of ['user', 'assistant'] as const) {
    const id = `${sessionId.slice(-6)}t${String(turn).padStart(4, '0')}${role === 'user' ? 'u' : 'a'}`;
    const at = DAY + turn * 1000 + (role === 'user' ? 0 : 500);
    const content = role === 'user' ? `Question ${turn} in ${sessionId.slice(-4)}: which day suits the trip to Porto?` : [{ type: 'text', text: `Answer ${turn}: keep day ${turn % 7} flexible and book the train early.` }];
    const event = JSON.stringify({ type: 'message', id, parentId: parent, timestamp: new Date(at).toISOString(), message: { role, content, timestamp: at } });
    add(2 * turn - (role === 'user' ? 1 : 0), event, at);
    parent = id;
  }
  return parent!;
}
