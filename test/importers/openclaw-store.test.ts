/** Listing an OpenClaw state folder's transcript sources, with the markers a sync compares. */
import { cpSync, mkdirSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { listOpenClawTranscriptSources } from '../../electron/importers/openclaw/openclaw-store.js';
import { fixture, readAll, tempDir } from './helpers.js';

const CURRENT = '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const TRIP = 'c0ffee00-2222-4333-8444-555566667777';
const NOTES = 'd00d0000-aaaa-4bbb-8ccc-000000000001';

function copyOf(name: string): string {
  const target = path.join(tempDir(), name);
  cpSync(fixture('openclaw-sqlite', name), target, { recursive: true });
  return target;
}

describe('listOpenClawTranscriptSources', () => {
  it("lists each agent's database with its sessions' last event numbers, and the archives beside it", async () => {
    const state = copyOf('upgraded');
    // A compaction checkpoint is an earlier copy of a session the database holds: not listed.
    cpSync(fixture('openclaw', 'sessions', `${CURRENT}.jsonl`), path.join(state, 'agents', 'main', 'sessions', `${CURRENT}.checkpoint.0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0.jsonl`));
    const sources = await listOpenClawTranscriptSources(state);
    expect(sources.map(({ kind, path: file, agentId, sessions }) => ({ kind, file: path.relative(state, file), agentId, ...(sessions ? { sessions } : {}) }))).toEqual([
      {
        kind: 'database',
        file: path.join('agents', 'main', 'agent', 'openclaw-agent.sqlite'),
        agentId: 'main',
        sessions: [
          { sessionId: CURRENT, place: 'events', lastSeq: 17 },
          { sessionId: TRIP, place: 'events', lastSeq: 4 },
        ],
      },
      { kind: 'archive', file: path.join('agents', 'main', 'sessions', '1e2d3c4b-0000-4aaa-8bbb-123456789abc.jsonl.reset.2026-01-10T08-00-00.000Z'), agentId: 'main' },
      { kind: 'database', file: path.join('agents', 'work', 'agent', 'openclaw-agent.sqlite'), agentId: 'work', sessions: [{ sessionId: NOTES, place: 'events', lastSeq: 3 }] },
      { kind: 'archive', file: path.join('agents', 'work', 'sessions', 'd00d0000-aaaa-4bbb-8ccc-000000000002.jsonl.deleted.2026-03-02T10-00-00.000Z'), agentId: 'work' },
    ]);
  });

  it('keeps every marker while nothing changes, and changes only the marker of what did', async () => {
    const state = copyOf('upgraded');
    const markers = async () => new Map((await listOpenClawTranscriptSources(state)).map((source) => [path.relative(state, source.path), source.marker]));
    const before = await markers();
    expect(await markers()).toEqual(before);

    const mainDb = path.join('agents', 'main', 'agent', 'openclaw-agent.sqlite');
    const db = new Database(path.join(state, mainDb));
    const event = JSON.stringify({ type: 'message', id: 'c1000005', parentId: 'c1000004', timestamp: '2026-02-04T08:15:00.000Z', message: { role: 'user', content: 'One more thing', timestamp: 1770192900000 } });
    db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 5, ?, 1770192900000)').run(TRIP, event);
    db.close();
    const reset = path.join('agents', 'main', 'sessions', '1e2d3c4b-0000-4aaa-8bbb-123456789abc.jsonl.reset.2026-01-10T08-00-00.000Z');
    utimesSync(path.join(state, reset), new Date('2026-03-01T00:00:00Z'), new Date('2026-03-01T00:00:00Z'));

    const after = await markers();
    const changed = [...after.keys()].filter((file) => after.get(file) !== before.get(file));
    expect(changed).toEqual([mainDb, reset]);
    const main = (await listOpenClawTranscriptSources(state)).find((source) => source.kind === 'database' && source.agentId === 'main')!;
    expect(main.sessions!.find((session) => session.sessionId === TRIP)!.lastSeq).toBe(5);
  });

  it('lists cold sessions through the database, and the leftovers of the upgrade whose session the database lacks', async () => {
    const cold = copyOf('cold');
    const sources = await listOpenClawTranscriptSources(cold);
    expect(sources[0]!.sessions).toEqual([
      { sessionId: CURRENT, place: 'cold', lastSeq: 17 },
      { sessionId: TRIP, place: 'cold', lastSeq: 4 },
    ]);
    expect(sources.map((source) => path.relative(cold, source.path)).filter((file) => file.includes(path.join('sessions', 'cold')))).toEqual([]);

    const state = copyOf('upgraded');
    rmSync(path.join(state, 'agents', 'work', 'agent'), { recursive: true });
    const work = (await listOpenClawTranscriptSources(state)).filter((source) => source.agentId === 'work');
    expect(work.map((source) => [source.kind, path.basename(source.path)])).toEqual([
      ['archive', 'd00d0000-aaaa-4bbb-8ccc-000000000002.jsonl.deleted.2026-03-02T10-00-00.000Z'],
      ['import-leftover', `agent_work_main.${NOTES}.jsonl.imported-1796408637832`],
    ]);
  });

  it('lists nothing for a folder that is not an OpenClaw state folder', async () => {
    expect(await listOpenClawTranscriptSources(tempDir())).toEqual([]);
    expect(await listOpenClawTranscriptSources(path.join(tempDir(), 'missing'))).toEqual([]);
  });
});

describe('a folder that only looks like an OpenClaw state folder', () => {
  it('is read as any folder when no agent has a database, a sessions.json index or the upgrade leftovers', async () => {
    const folder = tempDir();
    const sessions = path.join(folder, 'agents', 'planner', 'sessions');
    mkdirSync(sessions, { recursive: true });
    cpSync(fixture('openclaw', 'sessions', '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6.jsonl'), path.join(sessions, 'chat.jsonl'));
    cpSync(fixture('markdown'), path.join(folder, 'notes'), { recursive: true });
    expect(await listOpenClawTranscriptSources(folder)).toEqual([]);
    const results = await readAll([folder]);
    expect(results.some((result) => result.file.startsWith(path.join(folder, 'notes')))).toBe(true);
    expect(results.some((result) => result.file === path.join(sessions, 'chat.jsonl'))).toBe(true);
  });
});
