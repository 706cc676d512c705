/**
 * Forgetting: when forget returns, no byte of the forgotten text is left in any file under the data
 * directory; the other sessions stay whole and searchable; the history keeps that it happened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import type { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { conversation, openEngine, startTestEmbedder, tempDir } from './helpers/engine.js';
import { filesContaining } from './helpers/files.js';

let embedder: WorkerEmbedder;
beforeAll(async () => {
  embedder = await startTestEmbedder();
});
afterAll(async () => {
  await embedder.close();
});

const SECRET = 'Zebrafish-7731 is the name of my childhood dog';
const secretSession = (): SessionInput => ({
  sessionId: 'private',
  title: 'Private chat',
  messages: [
    { msgId: 'p1', role: 'user', content: `Remember this: ${SECRET}.` },
    { msgId: 'p2', role: 'assistant', content: 'I will keep it in mind.' },
    { msgId: 'p3', role: 'user', content: 'And what should I plant in the garden this spring?' },
    { msgId: 'p4', role: 'assistant', content: 'Tomatoes and basil do well together.' },
  ],
});

describe('forget', () => {
  it('a session: rows, data files, old versions, indexes and the record lose it; others stay whole and searchable', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const engine = await openEngine(dir, embedder);
      await engine.save(conversation(40, { sessionId: 'kept' }));
      await engine.save(secretSession());
      // More saves, so that the text also sits in older versions and compacted files.
      await engine.save(conversation(50, { sessionId: 'kept' }));
      await engine.save(conversation(10, { sessionId: 'other', start: 300 }));
      expect(filesContaining(dir, 'Zebrafish-7731').length).toBeGreaterThan(0);

      expect(await engine.forget(['private'])).toEqual([{ sessionId: 'private', messagesRemoved: 4, chunksRemoved: expect.any(Number) }]);
      expect(filesContaining(dir, 'Zebrafish-7731')).toEqual([]);
      expect(filesContaining(dir, 'Private chat')).toEqual([]);
      expect((await engine.listSessions()).map((s) => s.sessionId).sort()).toEqual(['kept', 'other']);
      expect((await engine.search('Zebrafish childhood dog', { limit: 5 })).some((h) => h.sessionId === 'private')).toBe(false);
      expect((await engine.showSession('kept')).messages).toHaveLength(50);
      expect((await engine.search(conversation(1).messages[0]!.content, { limit: 3 }))[0]!.sessionId).toBe('kept');
      const history = await engine.history('private');
      expect(history.at(-1)).toMatchObject({ forgotten: true, deleted: 4 });
      expect((await engine.verify()).problems).toEqual([]);
      // Saving it again is a first save.
      expect((await engine.save(secretSession())).new).toBe(4);
      await engine.close();
    } finally {
      cleanup();
    }
  });

  it('an unknown id removes nothing and names it', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const engine = await openEngine(dir, embedder);
      await engine.save(secretSession());
      await expect(engine.forget(['private', 'nope'])).rejects.toThrow(/no session "nope" in this store; nothing was forgotten/);
      expect((await engine.showSession('private')).messages).toHaveLength(4);
      await engine.close();
    } finally {
      cleanup();
    }
  });

  it('single messages: their text is gone from every file, the chunks around them are rebuilt', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const engine = await openEngine(dir, embedder);
      await engine.save(secretSession());
      const report = await engine.forgetMessages('private', ['p1']);
      expect(report).toMatchObject({ sessionId: 'private', messagesRemoved: 1 });
      expect(filesContaining(dir, 'Zebrafish-7731')).toEqual([]);
      const detail = await engine.showSession('private');
      expect(detail.messages.map((m) => m.msgId)).toEqual(['p2', 'p3', 'p4']);
      expect(detail.chunks.every((c) => !c.text.includes('Zebrafish'))).toBe(true);
      await expect(engine.forgetMessages('private', ['p9'])).rejects.toThrow(/has no message "p9"/);
      expect((await engine.verify()).problems).toEqual([]);
      await engine.close();
    } finally {
      cleanup();
    }
  });
});

describe('session-memory forget', () => {
  it('prints one line per session, refuses an unknown id, and a forget killed half-way is finished by running it again', async () => {
    const { runCli, jsonLines } = await import('./helpers/cli.js');
    const { writeFileSync } = await import('node:fs');
    const { dir, cleanup } = tempDir();
    try {
      const data = path.join(dir, 'data');
      const file = path.join(dir, 'private.json');
      const toFile = (s: SessionInput) => ({ session_id: s.sessionId, title: s.title, messages: s.messages.map((m) => ({ msg_id: m.msgId, role: m.role, content: m.content })) });
      writeFileSync(file, JSON.stringify([toFile(secretSession()), toFile(conversation(12, { sessionId: 'kept' }))]));
      expect((await runCli(['--data', data, 'save', file])).status).toBe(0);

      const unknown = await runCli(['--data', data, 'forget', 'private', 'nope', '--json']);
      expect(unknown.status).not.toBe(0);
      expect(unknown.stderr.trim().split('\n')).toEqual([expect.stringMatching(/no session "nope" in this store; nothing was forgotten/)]);

      // Killed after the rows were removed and the files rewritten, before the record and the history.
      const killed = await runCli(['--data', data, 'forget', 'private', '--json'], { SESSION_MEMORY_TEST_CRASH: 'forget-purged:1' });
      expect(killed.signal).toBe('SIGKILL');
      const again = await runCli(['--data', data, 'forget', 'private', '--json']);
      expect(again.status).toBe(0);
      expect(jsonLines(again.stdout)).toEqual([{ sessionId: 'private', messagesRemoved: 4, chunksRemoved: expect.any(Number) }]);
      expect(filesContaining(data, 'Zebrafish-7731')).toEqual([]);
      const sessions = JSON.parse((await runCli(['--data', data, 'sessions', '--json'])).stdout) as Array<{ sessionId: string }>;
      expect(sessions.map((s) => s.sessionId)).toEqual(['kept']);
      expect(JSON.parse((await runCli(['--data', data, 'verify', '--json'])).stdout)).toMatchObject({ ok: true });
    } finally {
      cleanup();
    }
  });
});

describe('sessions:forget over IPC', () => {
  it('forgets sessions and messages through the host, and refuses an unknown id with its code', async () => {
    const { MemoryHost } = await import('../electron/host/memoryHost.js');
    const { dispatch } = await import('../electron/host/dispatch.js');
    const { TEST_MODELS_DIR } = await import('./helpers/model.js');
    const { dir, cleanup } = tempDir();
    const host = new MemoryHost({ dataDir: dir, model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
    try {
      const engine = await host.engine();
      await engine.save(secretSession());
      await engine.save(conversation(8, { sessionId: 'kept' }));
      expect(await dispatch(host.handlers, 'sessions:forget', { sessionIds: ['nope'] })).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(await dispatch(host.handlers, 'sessions:forget', { sessionIds: ['kept'], messageIds: ['msg-0'] })).toEqual({ ok: true, value: [{ sessionId: 'kept', messagesRemoved: 1, chunksRemoved: expect.any(Number) }] });
      expect(await dispatch(host.handlers, 'sessions:forget', { sessionIds: ['private'] })).toEqual({ ok: true, value: [{ sessionId: 'private', messagesRemoved: 4, chunksRemoved: expect.any(Number) }] });
      expect(filesContaining(dir, 'Zebrafish-7731')).toEqual([]);
      const listed = (await dispatch(host.handlers, 'sessions:list', {})) as { ok: true; value: Array<{ sessionId: string; messageCount: number }> };
      expect(listed.value.map((s) => [s.sessionId, s.messageCount])).toEqual([['kept', 7]]);
    } finally {
      await host.close();
      cleanup();
    }
  });
});
