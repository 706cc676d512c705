/**
 * Reading OpenClaw's database while OpenClaw writes to it: another process appends turns in WAL
 * mode with no busy timeout (test/helpers/openclaw-writer.mjs), so a lock of ours that got in its way
 * would fail its write; every read meanwhile sees whole turns, in order, never an error.
 */
import { spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixture, readAll, tempDir } from './helpers.js';
import { listOpenClawTranscriptSources } from '../../electron/importers/openclaw/openclaw-store.js';

const TRIP = 'c0ffee00-2222-4333-8444-555566667777';
const WRITER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../helpers/openclaw-writer.mjs');
const TURNS = 150;

describe('an OpenClaw database written while it is read', () => {
  it('never blocks the writer, and each read sees a consistent prefix of the session', async () => {
    const state = path.join(tempDir(), 'state');
    cpSync(fixture('openclaw-sqlite', 'upgraded'), state, { recursive: true });
    const database = path.join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite');

    const writer = spawn(process.execPath, [WRITER, database, TRIP, String(TURNS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    writer.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    writer.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => writer.on('close', resolve));
    let running = true;
    void exited.then(() => (running = false));
    // Reads start once the writer has the database open, as OpenClaw has while it runs: the first
    // connection to a copied database (no shared-memory file yet) recovers its WAL index, and a reader
    // doing that at the same moment makes the writer's first statement fail at once (no busy timeout).
    await expect.poll(() => stdout.startsWith('open\n') || !running, { timeout: 30_000, interval: 20 }).toBe(true);

    const counts: number[] = [];
    let previous: string[] = [];
    const markers = new Set<string>();
    while (running || counts.length === 0) {
      const results = await readAll([state]);
      expect(results.filter((result) => 'error' in result)).toEqual([]);
      const trip = results.flatMap((result) => ('error' in result ? [] : result.sessions)).find((session) => session.sessionId === TRIP)!;
      const ids = trip.messages.map((message) => message.msgId!);
      // Whole turns only (each is one transaction of two events), and what was read before is still there.
      expect(ids.length % 2).toBe(0);
      expect(ids.slice(0, previous.length)).toEqual(previous);
      previous = ids;
      counts.push(ids.length);
      markers.add((await listOpenClawTranscriptSources(state)).find((source) => source.path === database)!.marker);
    }
    expect(await exited, stderr).toBe(0);
    expect(stdout.trim().split('\n').at(-1)).toBe('done');

    const final = (await readAll([database]))[0]!;
    if ('error' in final) throw final.error;
    const trip = final.sessions.find((session) => session.sessionId === TRIP)!;
    expect(trip.messages.length).toBe(4 + 2 * TURNS);
    expect(trip.messages.at(-1)).toEqual({ msgId: `${TRIP}:w00150a`, role: 'assistant', content: 'Answer 150: keep day 3 flexible.', timestamp: '2026-02-05T00:02:30.500Z' });
    // The reads overlapped the writes: they saw the session grow, and the change marker with it.
    expect(new Set(counts).size).toBeGreaterThan(1);
    expect(markers.size).toBeGreaterThan(1);
  }, 60_000);
});
