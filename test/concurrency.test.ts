/**
 * Two writers: processes saving the same session and different sessions at the same time, over and
 * over. Every save either waits its turn or fails with a clear error; nothing is doubled or lost.
 * The processes embed with the hashing stand-in: the subject is the lock, not embedding
 * (test/cli.test.ts saves with the real model).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, promises as fs, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realisticConversation } from '../scripts/transcriptGenerator.js';
import type { Embedder } from '../electron/embedding/embedder.js';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { acquireWriteLock, assertWriteLock, LOCK_FILE } from '../electron/engine/files/writeLock.js';
import { collect, HASH_EMBEDDER, jsonLines, runCliInProcess, startCli } from './helpers/cli.js';
import { conversation, openEngine, tempDir } from './helpers/engine.js';

// The subject is the lock, not embedding: this process's engines embed with the hashing stand-in too.
let embedder: HashEmbedder;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  embedder = new HashEmbedder();
});
afterAll(async () => {
  await embedder.close();
  cleanups.forEach((c) => c());
});

function dir(): string {
  const t = tempDir('sm-conc-');
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('one writer at a time', () => {
  it('two processes saving the same and different sessions at once, three rounds: no duplicate, no lost save', async () => {
    const root = dir();
    const data = path.join(root, 'data');
    const outcomes: string[] = [];
    for (let round = 1; round <= 3; round++) {
      const shorter = path.join(root, `x-${round}-a.json`);
      const longer = path.join(root, `x-${round}-b.json`);
      const other = path.join(root, `y-${round}.json`);
      writeFileSync(shorter, JSON.stringify(realisticConversation('shared-session', 40 * round, 5)));
      writeFileSync(longer, JSON.stringify(realisticConversation('shared-session', 40 * round + 20, 5)));
      writeFileSync(other, JSON.stringify(realisticConversation(`other-${round}`, 30, round)));
      const runs = await Promise.all([shorter, longer, other].map((file) => collect(startCli(['--data', data, 'save', file, '--json'], HASH_EMBEDDER))));
      for (const run of runs) {
        // Each one waited for its turn (the default), so each succeeded.
        expect(run.status, run.stderr).toBe(0);
        outcomes.push(String(jsonLines(run.stdout)[0]!.sessionId));
      }
      // The reads after each round need no process of their own: the CLI's code runs in this one.
      const shown = JSON.parse((await runCliInProcess(['--data', data, 'show', 'shared-session', '--json'], HASH_EMBEDDER)).stdout) as { messages: Array<{ msgId: string }> };
      const ids = shown.messages.map((m) => m.msgId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(40 * round + 20);
    }
    expect(outcomes).toHaveLength(9);
    const verify = JSON.parse((await runCliInProcess(['--data', data, 'verify', '--json'], HASH_EMBEDDER)).stdout);
    expect(verify).toMatchObject({ ok: true, sessions: 4, problems: [] });
    const history = JSON.parse((await runCliInProcess(['--data', data, 'history', 'shared-session', '--json'], HASH_EMBEDDER)).stdout) as unknown[];
    expect(history).toHaveLength(6); // no save was lost
  });

  it('a writer that will not wait gets a clear error naming the holder, and the store is untouched', async () => {
    const data = dir();
    const engine = await openEngine(data, embedder, { lockWaitMs: 0 });
    await engine.save(conversation(4));
    const release = await acquireWriteLock(data, { waitMs: 0 });
    try {
      await expect(engine.save(conversation(8))).rejects.toThrow(new RegExp(`another Session Memory process is saving to .*\\(process ${process.pid} on ${os.hostname()}`));
    } finally {
      await release();
    }
    expect((await engine.showSession('session-a')).messages).toHaveLength(4);
    expect((await engine.save(conversation(8))).new).toBe(4);
    await engine.close();
  });

  it('a lock left by a process that died is taken over at once', async () => {
    const data = dir();
    mkdirSync(path.join(data, LOCK_FILE));
    // A pid that cannot be running: above the kernel's pid limit.
    await fs.writeFile(path.join(data, '.write.lock.owner'), JSON.stringify({ pid: 4_194_305, host: os.hostname(), since: new Date().toISOString() }));
    const engine = await openEngine(data, embedder, { lockWaitMs: 0 });
    const started = Date.now();
    expect((await engine.save(conversation(4))).new).toBe(4);
    expect(Date.now() - started).toBeLessThan(5_000);
    await engine.close();
  });

  it('a save whose write lock is taken over stops writing: it fails with a clear error and leaves nothing half-written', async () => {
    const data = dir();
    let sabotage = false;
    // The model's first batch of the second save: meanwhile another process takes the lock over (its folder replaced, as after a sleep past the stale period).
    const wrapped: Embedder = {
      model: embedder.model,
      dim: embedder.dim,
      maxTokens: embedder.maxTokens,
      close: async () => {},
      embed: async (texts: string[]) => {
        if (sabotage) {
          sabotage = false;
          await fs.rm(path.join(data, LOCK_FILE), { recursive: true, force: true });
          await expect.poll(() => { try { assertWriteLock(data); return 'held'; } catch { return 'lost'; } }, { timeout: 10_000, interval: 100 }).toBe('lost');
        }
        return embedder.embed(texts);
      },
    };
    const engine = await openEngine(data, embedder, { embedder: wrapped });
    await engine.save(conversation(4, { sessionId: 'before' }));
    const files = ['.archived_sessions.json', 'vector-sketch.bin', 'near-duplicates.jsonl'].map((f) => path.join(data, f));
    const sizes = async () => Promise.all(files.map(async (f) => (await fs.stat(f).catch(() => null))?.size ?? null));
    sabotage = true;
    const before = await sizes();
    await expect(engine.save(conversation(30, { sessionId: 'during' }))).rejects.toThrow(/write lock of .* was lost .*stopped writing/);
    await expect(engine.showSession('during')).rejects.toThrow(/during/);
    expect(await sizes()).toEqual(before);
    expect(await engine.history('during')).toEqual([]);
    expect((await engine.verify()).ok).toBe(true);
    // The next save takes a fresh lock and saves it whole.
    expect((await engine.save(conversation(30, { sessionId: 'during' }))).new).toBe(30);
    await engine.close();
  }, 60_000);

  it('saves inside one process are queued, never interleaved', async () => {
    const engine = await openEngine(dir(), embedder);
    const reports = await Promise.all([engine.save(conversation(6)), engine.save(conversation(10)), engine.save(conversation(6))]);
    expect(reports.map((r) => [r.new, r.skipped])).toEqual([
      [6, 0],
      [4, 6],
      [0, 6],
    ]);
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });
});
