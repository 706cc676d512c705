/**
 * Forgetting: when forget returns, no byte of the forgotten text is left in any file under the data
 * directory; the other sessions stay whole and searchable; the history keeps that it happened.
 */
import { describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { openAppLog } from '../electron/host/appLog.js';
import { watchTranscripts } from '../electron/cli/watch.js';
import { readWatchState } from '../electron/engine/record/watchState.js';
import { conversation, openEngine, tempDir } from './helpers/engine.js';
import { filesContaining, filesWithTrace, markerForms } from './helpers/files.js';

// Forgetting is the subject, not embedding: the engines in this process and the CLI's saves embed
// with the hashing stand-in, so the file loads no model but the host's (sessions:forget over IPC).
const embedder = new HashEmbedder();

const SECRET = 'Zebrafish-7731 is the name of my childhood dog';
const TITLE = 'Confidential chat';
const secretSession = (): SessionInput => ({
  sessionId: 'private',
  title: TITLE,
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
      expect(filesWithTrace(dir, SECRET)).toEqual([]);
      expect(filesWithTrace(dir, TITLE)).toEqual([]);
      expect((await engine.listSessions()).map((s) => s.sessionId).sort()).toEqual(['kept', 'other']);
      expect((await engine.search('Zebrafish childhood dog', { limit: 5 })).some((h) => h.sessionId === 'private')).toBe(false);
      expect((await engine.showSession('kept')).messages).toHaveLength(50);
      expect((await engine.search(conversation(1).messages[0]!.content, { limit: 3 }))[0]!.sessionId).toBe('kept');
      const history = await engine.history('private');
      expect(history.at(-1)).toMatchObject({ forgotten: true, deleted: 4 });
      expect((await engine.verify()).problems).toEqual([]);
      // A writer that saves it again (a sync, a hook, an import) is refused; a person saving it on purpose makes a first save.
      expect(await engine.save(secretSession())).toMatchObject({ forgotten: true, new: 0, chunksWritten: 0 });
      expect((await engine.listSessions()).map((s) => s.sessionId).sort()).toEqual(['kept', 'other']);
      expect((await engine.save(secretSession(), { unforget: true })).new).toBe(4);
      expect((await engine.save(secretSession())).forgotten).toBeUndefined();
      await engine.close();
    } finally {
      cleanup();
    }
  });

  it('leaves nothing: the history keeps only that it was forgotten; files of a killed commit, the watch state and the log lose it', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const data = path.join(dir, 'data');
      const inbox = path.join(dir, 'inbox');
      mkdirSync(inbox);
      const privateFile = path.join(inbox, 'private-notes.json');
      const toFile = (s: SessionInput) => JSON.stringify({ session_id: s.sessionId, title: s.title, messages: s.messages.map((m) => ({ msg_id: m.msgId, role: m.role, content: m.content })) });
      writeFileSync(privateFile, toFile(secretSession()));
      writeFileSync(path.join(inbox, 'kept.json'), toFile(conversation(12, { sessionId: 'kept' })));
      const engine = await openEngine(data, embedder);
      const log = openAppLog(data);
      const watch = () => watchTranscripts(engine, { dir: inbox, debounceMs: 20, onReport: () => {}, onError: (file, message) => log.error(`${file}: ${message}`) });
      let watcher = await watch();
      await watcher.ready;
      await expect.poll(async () => Object.keys((await readWatchState(data)).files).length, { timeout: 30_000 }).toBe(2);
      await watcher.close();
      // More saves of it: its history has several events.
      await engine.save({ ...secretSession(), messages: [...secretSession().messages, { msgId: 'p5', role: 'user', content: 'One more thing about the garden.' }] });
      log.warn(`could not read ${privateFile} at first: it was still being written`);
      log.warn('near-duplicate precheck of private skipped: the model was busy');
      log.warn('a line about something else');
      // What a commit killed mid-write leaves: a data file and a full-text index no version references.
      const table = path.join(data, 'lancedb', 'chunks.lance');
      const withText = readdirSync(path.join(table, 'data')).find((name) => readFileSync(path.join(table, 'data', name)).includes('Zebrafish-7731'))!;
      const strayData = `${'1'.repeat(24)}${'0'.repeat(18)}deadbeef.lance`;
      cpSync(path.join(table, 'data', withText), path.join(table, 'data', strayData));
      const wordIndex = readdirSync(path.join(table, '_indices')).find((id) => readdirSync(path.join(table, '_indices', id)).some((f) => f.endsWith('_tokens.lance')))!;
      const strayIndex = '0badc0de-0000-4000-8000-000000000001';
      cpSync(path.join(table, '_indices', wordIndex), path.join(table, '_indices', strayIndex), { recursive: true });
      expect(filesWithTrace(data, 'private-notes.json').length).toBeGreaterThan(0);
      expect((await engine.history('private')).length).toBeGreaterThan(1);

      await engine.forget(['private']);
      log.warn('a line written after the forget');
      await log.close();
      expect(filesWithTrace(data, SECRET)).toEqual([]);
      expect(filesWithTrace(data, TITLE)).toEqual([]);
      expect(filesContaining(data, 'private-notes.json')).toEqual([]);
      expect(readdirSync(path.join(table, 'data'))).not.toContain(strayData);
      expect(readdirSync(path.join(table, '_indices'))).not.toContain(strayIndex);
      expect(await engine.history('private')).toEqual([expect.objectContaining({ forgotten: true, deleted: 5 })]);
      expect((await engine.history('kept')).length).toBeGreaterThan(0);
      expect(Object.keys((await readWatchState(data)).files)).toEqual([path.join(inbox, 'kept.json')]);
      const logText = readdirSync(path.join(data, 'logs')).map((name) => readFileSync(path.join(data, 'logs', name), 'utf8')).join('');
      expect(logText).toContain('a line about something else');
      expect(logText).toContain('a line written after the forget');
      expect(logText).not.toMatch(/precheck of private|private-notes/);
      // The store is whole, and watch leaves the file alone while it is unchanged: the session stays forgotten.
      expect((await engine.verify()).problems).toEqual([]);
      expect((await engine.search('tomatoes and basil', { limit: 5 })).length).toBeGreaterThan(0);
      watcher = await watch();
      await watcher.ready;
      await new Promise((resolve) => setTimeout(resolve, 300));
      await watcher.close();
      expect((await engine.listSessions()).map((s) => s.sessionId)).toEqual(['kept']);
      await engine.close();
    } finally {
      cleanup();
    }
  });

  it('the grep looks for lower-case words and their stems, as the word index stores them', () => {
    expect(markerForms(SECRET)).toEqual([SECRET, SECRET.toLowerCase(), 'Zebrafish', 'zebrafish', 'childhood']);
    expect(markerForms('Quokkas running')).toEqual(['Quokkas running', 'quokkas running', 'Quokkas', 'quokkas', 'quokka', 'running', 'run']);
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
      expect(filesWithTrace(dir, SECRET)).toEqual([]);
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

  it('single messages of a session saved without redaction: the rest is saved again as it was, not redacted', async () => {
    const { seededChars } = await import('./helpers/random.js');
    const token = 'ghp_' + seededChars(3)('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 36);
    const { dir, cleanup } = tempDir();
    try {
      const engine = await openEngine(dir, embedder);
      const session = secretSession();
      session.messages[2] = { ...session.messages[2]!, content: `Push with ${token} when the garden plan is ready.` };
      await engine.save(session, { redact: false });
      await engine.forgetMessages('private', ['p1']);
      const detail = await engine.showSession('private');
      expect(detail.messages.map((m) => m.content)).toEqual(session.messages.slice(1).map((m) => m.content));
      expect((await engine.history('private')).at(-1)).toMatchObject({ deleted: 1 });
      await engine.close();
    } finally {
      cleanup();
    }
  });
});

describe('session-memory forget', () => {
  it('prints one line per session, refuses an unknown id, and a forget killed half-way is finished by running it again', async () => {
    const { runCli: runAnyCli, jsonLines, HASH_EMBEDDER } = await import('./helpers/cli.js');
    const runCli = (args: string[], env: Record<string, string> = {}) => runAnyCli(args, { ...HASH_EMBEDDER, ...env });
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
      expect(filesWithTrace(data, SECRET)).toEqual([]);
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
      expect(filesWithTrace(dir, SECRET)).toEqual([]);
      const listed = (await dispatch(host.handlers, 'sessions:list', {})) as { ok: true; value: Array<{ sessionId: string; messageCount: number }> };
      expect(listed.value.map((s) => [s.sessionId, s.messageCount])).toEqual([['kept', 7]]);
    } finally {
      await host.close();
      cleanup();
    }
  });
});
