/**
 * Database sources read incrementally: a tool's database (here OpenClaw's, of a couple of hundred
 * sessions) is read again only for the sessions whose mark moved, in the database reader's worker
 * thread, and a turn that is still only in the write-ahead log is seen.
 */
import { afterAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { SaveReport, SessionInput } from '../shared/domain.js';
import { SourceCursors } from '../electron/sources/cursors.js';
import { closeDatabaseReader } from '../electron/sources/databaseReader.js';
import { syncFile, type SourceSyncResult, type SyncOptions } from '../electron/sources/sync.js';
import { appendOpenClawTurn, openClawSessionId, writeOpenClawDatabase } from '../scripts/openclawSessions.js';
import { scratchDirs } from './helpers/engine.js';

const scratch = scratchDirs('sm-dbsources-');
afterAll(closeDatabaseReader);

/** An engine double that records what it is asked to save. */
function recordingEngine() {
  const saved: SessionInput[] = [];
  return {
    saved,
    engine: async () => ({
      save: async (session: SessionInput): Promise<SaveReport> => {
        saved.push(session);
        return { sessionId: session.sessionId, total: session.messages.length, new: session.messages.length } as SaveReport;
      },
    }),
  };
}

async function sync(file: string, kind: 'database' | 'files', data: string) {
  const recorder = recordingEngine();
  const result: SourceSyncResult = { id: 'openclaw', filesSaved: 0, sessionsSaved: 0, errors: [] };
  const options: SyncOptions = { cursors: await SourceCursors.load(data), engine: recorder.engine, onReport: () => {}, onError: (_s, _f, message) => result.errors.push(message) };
  const read = await syncFile('openclaw', file, kind, options, result);
  return { read, result, saved: recorder.saved };
}

/** A writer that keeps its connection open and never checkpoints: its turns stay in the WAL file. */
function liveWriter(file: string) {
  const db = new Database(file, { timeout: 0 });
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  return db;
}

describe('a database source', () => {
  it('after one session got a turn, reads and saves only that session, with its 2 new events', async () => {
    const file = path.join(scratch(), 'openclaw-agent.sqlite');
    const ids = writeOpenClawDatabase(file, 200);
    const data = scratch();

    const first = await sync(file, 'database', data);
    expect(first.result.errors).toEqual([]);
    // The template's own 2 sessions and the 200 written.
    expect(first.result.sessionsRead).toBe(202);
    expect(first.saved).toHaveLength(202);

    expect((await sync(file, 'database', data)).read).toBe(false);

    const moved = openClawSessionId(57);
    const writer = liveWriter(file);
    try {
      // Message ids are OpenClaw's event ids under the session's.
      const events = appendOpenClawTurn(writer, moved, 4).map((id) => `${moved}:${id}`);
      const again = await sync(file, 'database', data);
      expect(again.result.errors).toEqual([]);
      expect(again.result.sessionsRead).toBe(1);
      expect(again.saved.map((session) => session.sessionId)).toEqual([moved]);
      const messages = again.saved[0]!.messages;
      expect(messages.map((message) => message.msgId)).toEqual(expect.arrayContaining(events));
      expect(messages.slice(-2).map((message) => [message.msgId, message.role])).toEqual([[events[0], 'user'], [events[1], 'assistant']]);
    } finally {
      writer.close();
    }

    // Nothing moved since: the writer's checkpoint on close changed the files, not a session.
    const after = await sync(file, 'database', data);
    expect([after.result.sessionsRead ?? 0, after.saved.length]).toEqual([0, 0]);
    expect(ids).toContain(moved);
  });

  it('named to a hook as a file, sees a turn that is still only in the write-ahead log', async () => {
    const file = path.join(scratch(), 'openclaw-agent.sqlite');
    writeOpenClawDatabase(file, 3);
    const data = scratch();
    const writer = liveWriter(file);
    try {
      expect((await sync(file, 'files', data)).saved).toHaveLength(5);
      const events = appendOpenClawTurn(writer, openClawSessionId(1), 4).map((id) => `${openClawSessionId(1)}:${id}`);
      const hook = await sync(file, 'files', data);
      expect(hook.saved.map((session) => session.sessionId)).toEqual([openClawSessionId(1)]);
      expect(hook.saved[0]!.messages.slice(-2).map((message) => message.msgId)).toEqual(events);
    } finally {
      writer.close();
    }
  });
});
