import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Result } from '../shared/ipc.js';
import { CHANNELS } from '../shared/ipc.js';
import { dispatch } from '../electron/host/dispatch.js';
import { MemoryHost } from '../electron/host/memoryHost.js';
import { startWebServer, type WebServer } from '../electron/host/webServer.js';
import { registerIpcHandlers, type IpcInvokeEventLike } from '../electron/main/ipc.js';
import { isAppUrl, isSafeExternalUrl, secureWindowOptions } from '../electron/main/windowOptions.js';
import { TEST_MODELS_DIR } from './helpers/model.js';
import { tempDir } from './helpers/engine.js';
import { folderSnapshot } from './helpers/files.js';
import { buildZip } from './importers/write-zip.js';

import { REPO as REPO_ROOT } from './helpers/cli.js';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((c) => c()));

function dir(): string {
  const t = tempDir('sm-host-');
  cleanups.push(t.cleanup);
  return t.dir;
}

const transcript = (count: number) =>
  JSON.stringify({
    session_id: 'host-session',
    title: 'Host test',
    messages: Array.from({ length: count }, (_, i) => ({ msg_id: `h${i}`, role: i % 2 ? 'assistant' : 'user', content: `Line ${i} about bread baking and oven temperature.` })),
  });

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('window security', () => {
  it('the window runs sandboxed and isolated, without Node', () => {
    const options = secureWindowOptions('/app/preload.cjs', false);
    expect(options.webPreferences).toMatchObject({
      preload: '/app/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      navigateOnDragDrop: false,
    });
  });

  it('navigation stays on our page; only http(s) links go to the browser', () => {
    const app = 'file:///opt/Session%20Memory/resources/app.asar/dist-renderer/index.html';
    expect(isAppUrl('file:///opt/Session%20Memory/resources/app.asar/dist-renderer/index.html#/sessions', app)).toBe(true);
    expect(isAppUrl('file:///etc/passwd', app)).toBe(false);
    expect(isAppUrl('https://evil.example/', app)).toBe(false);
    expect(isAppUrl('http://localhost:5173/#/search', 'http://localhost:5173/')).toBe(true);
    expect(isAppUrl('http://localhost:5174/', 'http://localhost:5173/')).toBe(false);
    expect(isAppUrl('not a url', app)).toBe(false);
    expect(isSafeExternalUrl('https://example.com/docs')).toBe(true);
    expect(isSafeExternalUrl('file:///etc/passwd')).toBe(false);
    expect(isSafeExternalUrl('javascript:alert(1)')).toBe(false);
  });
});

/**
 * A test with a host of its own whose subject is not embedding (a dropped file's staging, the vector
 * index's upkeep, redaction, a forgotten conversation, a preview's reads): that host embeds with the
 * hashing stand-in (SESSION_MEMORY_TEST_EMBEDDER, read when a host opens its engine) and loads no
 * model. The tests on the shared host (drop, preview, import, statistics) keep the real model.
 */
function itWithoutModel(name: string, body: () => Promise<void>): void {
  it(name, async () => {
    process.env.SESSION_MEMORY_TEST_EMBEDDER = 'hash';
    try {
      await body();
    } finally {
      delete process.env.SESSION_MEMORY_TEST_EMBEDDER;
    }
  });
}

describe('IPC boundary', () => {
  let host: MemoryHost;
  beforeAll(() => {
    host = new MemoryHost({ dataDir: dir(), model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
  });
  afterAll(() => host.close());

  it('unknown channels and malformed payloads get error codes, not crashes', async () => {
    expect(await dispatch(host.handlers, 'fs:delete', {})).toEqual({ ok: false, error: { code: 'invalid_request', message: 'unknown channel "fs:delete"' } });
    const cases: Array<[string, unknown]> = [
      ['sessions:show', {}],
      ['sessions:show', { sessionId: 42 }],
      ['sessions:show', { sessionId: 'a', extra: true }],
      ['search:query', { query: '' }],
      ['search:query', { query: 'x', limit: 10_000 }],
      ['import:run', { fileIds: [], mode: 'incremental' }],
      ['import:run', { fileIds: ['x'], mode: 'sideways' }],
      ['settings:set', { theme: 'neon' }],
      ['files:stage', { name: 'a.json' }],
      ['sessions:list', 'not an object'],
    ];
    for (const [channel, payload] of cases) {
      const result = await dispatch(host.handlers, channel, payload);
      expect(result.ok, `${channel} ${JSON.stringify(payload)}`).toBe(false);
      expect((result as { error: { code: string } }).error.code).toBe('invalid_request');
    }
  });

  it('errors cross as {code, message}', async () => {
    expect(await dispatch(host.handlers, 'sessions:show', { sessionId: 'nope' })).toEqual({ ok: false, error: { code: 'not_found', message: 'no session "nope" in this store' } });
    expect(await dispatch(host.handlers, 'import:preview', { fileIds: ['missing'] })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  itWithoutModel('a file dropped on the desktop app is staged by its path: read where it lies, never copied or deleted', async () => {
    const own = new MemoryHost({ dataDir: dir(), model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
    cleanups.push(() => void own.close());
    const registered = new Map<string, (event: IpcInvokeEventLike, request: unknown) => Promise<Result<unknown>>>();
    const appUrl = 'file:///app/dist-renderer/index.html';
    registerIpcHandlers({ handle: (channel, listener) => registered.set(channel, listener) }, own.handlers, appUrl, (p) => own.stagePath(p));
    const stagePath = registered.get('files:stagePath')!;
    const file = path.join(dir(), 'dropped chat.json');
    writeFileSync(file, transcript(4).replace('host-session', 'dropped-session'));
    const fromApp = { senderFrame: { url: appUrl } };
    expect(await stagePath({ senderFrame: { url: 'https://evil.example/' } }, { path: file })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await stagePath(fromApp, { path: 'relative.json' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await stagePath(fromApp, { path: path.dirname(file) })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/is not a file/) } });
    const staged = (await stagePath(fromApp, { path: file })) as { ok: true; value: { fileId: string; name: string; size: number } };
    expect(staged).toMatchObject({ ok: true, value: { name: 'dropped chat.json', size: Buffer.byteLength(readFileSync(file)) } });
    const run = await dispatch(own.handlers, 'import:run', { fileIds: [staged.value.fileId] });
    expect(run).toMatchObject({ ok: true, value: { files: [{ reports: [{ sessionId: 'dropped-session', new: 4 }] }] } });
    // The person's own file stays where it was.
    expect(readFileSync(file, 'utf8')).toContain('dropped-session');
  });

  it('only our own page may call a handler', async () => {
    const registered = new Map<string, (event: IpcInvokeEventLike, request: unknown) => Promise<Result<unknown>>>();
    const appUrl = 'file:///app/dist-renderer/index.html';
    registerIpcHandlers({ handle: (channel, listener) => registered.set(channel, listener) }, host.handlers, appUrl);
    expect([...registered.keys()].sort()).toEqual([...CHANNELS].sort());
    const list = registered.get('sessions:list')!;
    expect(await list({ senderFrame: { url: `${appUrl}#/sessions` } }, {})).toEqual({ ok: true, value: [] });
    expect(await list({ senderFrame: { url: 'https://evil.example/' } }, {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await list({ senderFrame: null }, {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  itWithoutModel('builds the vector index in the background once an import makes the store large enough, and logs it', async () => {
    const logged: string[] = [];
    const logger = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(`warning: ${m}`) };
    // A threshold of 280 chunks stands in for the 10k of a real store (the index needs 256 rows to train).
    const big = new MemoryHost({ dataDir: dir(), model: 'use-lite-en', modelsDir: TEST_MODELS_DIR, logger, vectorIndexMinRows: 280 });
    try {
      const staged = (await dispatch(big.handlers, 'files:stage', { name: 'long.json', dataBase64: b64(transcript(1200)) })) as { ok: true; value: { fileId: string } };
      const run = await dispatch(big.handlers, 'import:run', { fileIds: [staged.value.fileId] });
      expect(run.ok).toBe(true);
      const engine = await big.engine();
      for (let waited = 0; (await engine.maintenanceDue()) && waited < 120_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
      expect(await engine.maintenanceDue()).toBe(false);
      await expect.poll(() => logged.join('\n'), { timeout: 30_000 }).toMatch(/vector index built in [\d.]+ s/);
      expect(logged.filter((m) => m.startsWith('warning'))).toEqual([]);
      const hits = await dispatch(big.handlers, 'search:query', { query: 'oven temperature' });
      expect(hits.ok && (hits.value as unknown[]).length).toBeGreaterThan(0);
    } finally {
      await big.close();
    }
  });

  itWithoutModel('redacts secrets on import unless Settings turned it off, and hands the choice to the shell to keep', async () => {
    const persisted: unknown[] = [];
    const h = new MemoryHost({ dataDir: dir(), model: 'use-lite-en', modelsDir: TEST_MODELS_DIR, onSettingsChanged: (s) => persisted.push(s) });
    const call = async (channel: string, request: unknown) => {
      const result = await dispatch(h.handlers, channel, request);
      if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
      return result.value as never;
    };
    const token = 'ghp_' + 'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5';
    const leaky = (id: string) => JSON.stringify({ session_id: id, messages: [{ msg_id: 'a', role: 'user', content: `my token is ${token}` }, { msg_id: 'b', role: 'assistant', content: 'Noted.' }] });
    try {
      expect(((await call('settings:get', {})) as { redactSecrets: boolean }).redactSecrets).toBe(true);
      const first: { fileId: string } = await call('files:stage', { name: 'a.json', dataBase64: b64(leaky('on')) });
      const preview: Array<{ sessions: Array<{ redacted: number }> }> = await call('import:preview', { fileIds: [first.fileId] });
      expect(preview[0]!.sessions[0]!.redacted).toBe(1);
      const imported: { files: Array<{ reports: Array<{ redacted: number }> }> } = await call('import:run', { fileIds: [first.fileId] });
      expect(imported.files[0]!.reports[0]!.redacted).toBe(1);
      expect(((await call('sessions:show', { sessionId: 'on' })) as { messages: Array<{ content: string }> }).messages[0]!.content).toBe('my token is [REDACTED:github-token]');

      expect(((await call('settings:set', { redactSecrets: false })) as { redactSecrets: boolean }).redactSecrets).toBe(false);
      expect(persisted.at(-1)).toMatchObject({ redactSecrets: false });
      const second: { fileId: string } = await call('files:stage', { name: 'b.json', dataBase64: b64(leaky('off')) });
      await call('import:run', { fileIds: [second.fileId] });
      expect(((await call('sessions:show', { sessionId: 'off' })) as { messages: Array<{ content: string }> }).messages[0]!.content).toContain(token);
      // Turned back on, it is the default again and the settings file does not name it.
      await call('settings:set', { redactSecrets: true });
      expect(persisted.at(-1)).not.toHaveProperty('redactSecrets');
    } finally {
      await h.close();
    }
  });

  itWithoutModel('a dropped archive passes over an entry that holds no message, names one it cannot read, previews and imports the rest', async () => {
    const own = new MemoryHost({ dataDir: dir(), model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
    cleanups.push(() => void own.close());
    const call = async (channel: string, request: unknown) => {
      const result = await dispatch(own.handlers, channel, request);
      if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
      return result.value as never;
    };
    // A Claude Code log of a session closed before its first prompt, then a conversation.
    // A Claude Code log of a session closed before its first prompt, a file cut off, then a conversation.
    const zip = buildZip([
      { name: 'a-opened.jsonl', data: '{"type":"summary","summary":"New session","leafUuid":"x"}\n' },
      { name: 'b-cut.json', data: '{"session_id": "x", "messages": [' },
      { name: 'c-chat.json', data: transcript(4) },
    ]);
    const staged: { fileId: string } = await call('files:stage', { name: 'logs.zip', dataBase64: zip.toString('base64') });
    // Named as dropped, not by the staged copy's path.
    const cut = { error: 'logs.zip/b-cut.json: truncated JSON at byte 33' };
    const preview: Array<{ error?: unknown; skipped?: unknown[]; sessions: Array<{ sessionId: string; new: number }> }> = await call('import:preview', { fileIds: [staged.fileId] });
    expect(preview[0]).not.toHaveProperty('error');
    expect(preview[0]!.sessions).toMatchObject([{ sessionId: 'host-session', new: 4 }]);
    expect(preview[0]!.skipped).toEqual([cut]);
    const run: { files: Array<{ error?: unknown; skipped?: unknown[]; reports: Array<{ sessionId: string; new: number }> }> } = await call('import:run', { fileIds: [staged.fileId] });
    expect(run.files[0]).not.toHaveProperty('error');
    expect(run.files[0]!.reports).toMatchObject([{ sessionId: 'host-session', new: 4 }]);
    expect(run.files[0]!.skipped).toEqual([cut]);
    // An archive none of whose entries can be read is refused with the first error.
    const broken: { fileId: string } = await call('files:stage', { name: 'broken.zip', dataBase64: buildZip([{ name: 'b-cut.json', data: '{"session_id": "x", "messages": [' }]).toString('base64') });
    const refused: Array<{ error?: { message: string }; sessions: unknown[] }> = await call('import:preview', { fileIds: [broken.fileId] });
    expect(refused[0]).toMatchObject({ error: { message: 'broken.zip/b-cut.json: truncated JSON at byte 33' }, sessions: [] });
  });

  it('drop -> preview -> import -> statistics; the same file again is all skipped; overwrite replaces', async () => {
    const call = async (channel: string, request: unknown) => {
      const result = await dispatch(host.handlers, channel, request);
      if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
      return result.value as never;
    };
    const staged: { fileId: string; name: string } = await call('files:stage', { name: '../../etc/chat.json', dataBase64: b64(transcript(8)) });
    expect(staged.name).toBe('chat.json');
    const preview: Array<{ format: string; sessions: Array<{ sessionId: string; new: number; dryRun: boolean }> }> = await call('import:preview', { fileIds: [staged.fileId] });
    expect(preview[0]).toMatchObject({ format: 'json', sessions: [{ sessionId: 'host-session', new: 8, dryRun: true }] });
    expect(await call('sessions:list', {})).toEqual([]);

    const progress: unknown[] = [];
    const progressHost = host as unknown as { options: { emit?: (e: string, p: unknown) => void } };
    progressHost.options.emit = (_event, payload) => progress.push(payload);
    const run: { files: Array<{ reports: Array<{ new: number; chunksWritten: number }> }>; cancelled: boolean } = await call('import:run', { fileIds: [staged.fileId] });
    expect(run.cancelled).toBe(false);
    expect(run.files[0]!.reports[0]).toMatchObject({ new: 8 });
    expect(progress.length).toBeGreaterThan(0);
    const sessions: Array<{ sessionId: string; messageCount: number }> = await call('sessions:list', {});
    expect(sessions).toEqual([expect.objectContaining({ sessionId: 'host-session', messageCount: 8 })]);

    // The staged copy went with the import; the same file dropped again is all archived.
    await expect(call('import:preview', { fileIds: [staged.fileId] })).rejects.toThrow(/no staged file/);
    const restaged: { fileId: string } = await call('files:stage', { name: 'chat.json', dataBase64: b64(transcript(8)) });
    const again: Array<{ sessions: Array<{ skippedSession: boolean; skipped: number; new: number }> }> = await call('import:preview', { fileIds: [restaged.fileId] });
    expect(again[0]!.sessions[0]).toMatchObject({ skippedSession: true, skipped: 8, new: 0 });
    // A preview of a forced overwrite with a shorter file says what would be removed.
    const shorterPreview: { fileId: string } = await call('files:stage', { name: 'short-preview.json', dataBase64: b64(transcript(5)) });
    const overwritePreview: Array<{ sessions: Array<{ mode: string; deleted: number; dryRun: boolean }> }> = await call('import:preview', { fileIds: [shorterPreview.fileId], mode: 'overwrite' });
    expect(overwritePreview[0]!.sessions[0]).toMatchObject({ mode: 'overwrite', deleted: 3, dryRun: true });

    const history: Array<{ new: number }> = await call('sessions:history', { sessionId: 'host-session' });
    expect(history.map((h) => h.new)).toEqual([8]);
    const detail: { chunks: Array<{ chunkId: string }> } = await call('sessions:show', { sessionId: 'host-session' });
    const chunk: { vector: number[]; msgIds: string[] } = await call('chunks:inspect', { chunkId: detail.chunks[0]!.chunkId });
    expect(chunk.vector).toHaveLength(512);

    const shorter: { fileId: string } = await call('files:stage', { name: 'short.json', dataBase64: b64(transcript(4)) });
    const over: { files: Array<{ reports: Array<{ mode: string; deleted: number }> }> } = await call('import:run', { fileIds: [shorter.fileId], mode: 'overwrite', sessionIds: ['host-session'] });
    expect(over.files[0]!.reports[0]).toMatchObject({ mode: 'overwrite', deleted: 4 });
    const hits: Array<{ sessionId: string }> = await call('search:query', { query: 'oven temperature for bread' });
    expect(hits[0]!.sessionId).toBe('host-session');
    expect(await call('store:verify', {})).toMatchObject({ ok: true, messages: 4 });
  });

  itWithoutModel('a forgotten conversation dropped again is shown as forgotten and left out; ticked, it is saved again on purpose', async () => {
    const h = new MemoryHost({ dataDir: dir(), model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
    const call = async (channel: string, request: unknown) => {
      const result = await dispatch(h.handlers, channel, request);
      if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
      return result.value as never;
    };
    type Report = { sessionId: string; new: number; forgotten?: boolean; chunksWritten: number };
    const stage = async (name: string): Promise<string> => ((await call('files:stage', { name, dataBase64: b64(transcript(6)) })) as { fileId: string }).fileId;
    try {
      await call('import:run', { fileIds: [await stage('chat.json')] });
      await call('sessions:forget', { sessionIds: ['host-session'] });

      // The preview says what saving it again would do, and that it was forgotten.
      const preview: Array<{ sessions: Report[] }> = await call('import:preview', { fileIds: [await stage('again.json')] });
      expect(preview[0]!.sessions[0]).toMatchObject({ sessionId: 'host-session', forgotten: true, new: 6 });
      // Imported without the person's choice, it stays forgotten: nothing is written.
      const left: { files: Array<{ reports: Report[] }> } = await call('import:run', { fileIds: [await stage('again.json')] });
      expect(left.files[0]!.reports[0]).toMatchObject({ forgotten: true, new: 0, chunksWritten: 0 });
      expect(await call('sessions:list', {})).toEqual([]);
      // Ticked (unforget), it is saved, and its mark is lifted: a later preview is an ordinary one.
      const saved: { files: Array<{ reports: Report[] }> } = await call('import:run', { fileIds: [await stage('again.json')], unforget: ['host-session'] });
      expect(saved.files[0]!.reports[0]).toMatchObject({ new: 6 });
      expect(saved.files[0]!.reports[0]!.forgotten).toBeUndefined();
      expect(await call('sessions:list', {})).toEqual([expect.objectContaining({ sessionId: 'host-session', messageCount: 6 })]);
      const after: Array<{ sessions: Report[] }> = await call('import:preview', { fileIds: [await stage('later.json')] });
      expect(after[0]!.sessions[0]!.forgotten).toBeUndefined();
    } finally {
      await h.close();
    }
  });

  itWithoutModel('a preview touches no file of the data folder, even when the near-duplicate files are behind the store', async () => {
    const data = dir();
    const own = new MemoryHost({ dataDir: data, model: 'use-lite-en', modelsDir: TEST_MODELS_DIR, stagingDir: dir(), fileLog: true });
    const call = async (channel: string, request: unknown) => {
      const result = await dispatch(own.handlers, channel, request);
      if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
      return result.value as never;
    };
    try {
      const first: { fileId: string } = await call('files:stage', { name: 'chat.json', dataBase64: b64(transcript(8)) });
      await call('import:run', { fileIds: [first.fileId] });
      const other = transcript(10).replaceAll('host-session', 'other-session').replaceAll('bread baking', 'kayak touring');
      const second: { fileId: string } = await call('files:stage', { name: 'other.json', dataBase64: b64(other) });
      // A data folder from before the vector sketch: the next save builds it; a preview must not.
      rmSync(path.join(data, 'vector-sketch.bin'));
      const before = folderSnapshot(data);
      const preview: Array<{ sessions: Array<{ sessionId: string; new: number }> }> = await call('import:preview', { fileIds: [second.fileId] });
      expect(preview[0]!.sessions).toEqual([expect.objectContaining({ sessionId: 'other-session', new: 10 })]);
      expect(folderSnapshot(data)).toEqual(before);
    } finally {
      await own.close();
    }
  });

  it('the preview and the import report name the damaged lines of a log that are left out', async () => {
    const call = async (channel: string, request: unknown) => {
      const result = await dispatch(host.handlers, channel, request);
      if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
      return result.value as never;
    };
    const lines = readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'import', 'claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl'), 'utf8').split('\n');
    lines.splice(2, 0, '{"type":"user","message":{"role":"user","content":"cut off');
    const staged: { fileId: string } = await call('files:stage', { name: 'damaged.jsonl', dataBase64: b64(lines.join('\n')) });
    const preview: Array<{ format: string; sessions: unknown[]; skipped?: unknown[] }> = await call('import:preview', { fileIds: [staged.fileId] });
    expect(preview[0]!.format).toBe('claude-code');
    expect(preview[0]!.sessions).toHaveLength(1);
    expect(preview[0]!.skipped).toEqual([{ line: 3, error: expect.stringMatching(/line 3/) }]);
    const run: { files: Array<{ reports: Array<{ new: number }>; skipped?: unknown[] }> } = await call('import:run', { fileIds: [staged.fileId] });
    expect(run.files[0]!.reports[0]!.new).toBeGreaterThan(0);
    expect(run.files[0]!.skipped).toEqual(preview[0]!.skipped);
  });

  it('the preview and the import report name where an export was cut off, and import its complete conversations', async () => {
    const call = async (channel: string, request: unknown) => {
      const result = await dispatch(host.handlers, channel, request);
      if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
      return result.value as never;
    };
    const complete = readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'import', 'chatgpt', 'conversations-later.json'));
    const end = complete.length - 300;
    const staged: { fileId: string } = await call('files:stage', { name: 'conversations.json', dataBase64: complete.subarray(0, end).toString('base64') });
    const preview: Array<{ format: string; sessions: unknown[]; skipped?: unknown[] }> = await call('import:preview', { fileIds: [staged.fileId] });
    expect(preview[0]!.format).toBe('chatgpt');
    expect(preview[0]!.sessions).toHaveLength(2);
    expect(preview[0]!.skipped).toEqual([{ session: '[2]', error: expect.stringMatching(new RegExp(`^truncated: the file is cut off at byte ${end}, after 2 complete conversations; this last, partial conversation was not imported`)) }]);
    const run: { files: Array<{ reports: Array<{ new: number }>; skipped?: unknown[] }> } = await call('import:run', { fileIds: [staged.fileId] });
    expect(run.files[0]!.reports).toHaveLength(2);
    expect(run.files[0]!.skipped).toEqual(preview[0]!.skipped);
  });

  it('the preview names the encoding of a file that is not UTF-8', async () => {
    const bytes = readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'import', 'encodings', '月亮-gb18030.txt'));
    const staged = (await dispatch(host.handlers, 'files:stage', { name: '月亮.txt', dataBase64: bytes.toString('base64') })) as { ok: true; value: { fileId: string } };
    const preview = (await dispatch(host.handlers, 'import:preview', { fileIds: [staged.value.fileId] })) as { ok: true; value: Array<{ format: string; encoding?: string; sessions: Array<{ new: number }> }> };
    expect(preview.value[0]).toMatchObject({ format: 'markdown', encoding: 'GB18030', sessions: [{ new: 3 }] });
  });

  it('a file that is not a transcript is refused in the preview with one clear line', async () => {
    const staged = (await dispatch(host.handlers, 'files:stage', { name: 'photo.png', dataBase64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]).toString('base64') })) as { ok: true; value: { fileId: string } };
    const preview = (await dispatch(host.handlers, 'import:preview', { fileIds: [staged.value.fileId] })) as { ok: true; value: Array<{ error?: { message: string }; sessions: unknown[] }> };
    expect(preview.value[0]!.error!.message).toMatch(/photo\.png/);
    expect(preview.value[0]!.sessions).toEqual([]);
  });
});

describe('web mode server', () => {
  let server: WebServer;
  let host: MemoryHost;
  beforeAll(async () => {
    const root = dir();
    const staticDir = path.join(root, 'ui');
    mkdirSync(staticDir);
    writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Session Memory</title>');
    writeFileSync(path.join(root, 'secret.txt'), 'secret');
    host = new MemoryHost({ dataDir: path.join(root, 'data'), model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
    server = await startWebServer({ handlers: host.handlers, staticDir, upload: (name, body) => host.stageStream(name, body) });
  });
  afterAll(async () => {
    await server.close();
    await host.close();
  });

  const api = (channel: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${server.port}/api/${channel}`, { method: 'POST', body: '{}', ...init });

  it('listens on 127.0.0.1 and prints a URL with its token', () => {
    expect(server.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?token=[A-Za-z0-9_-]{20,}$`));
  });

  it('answers 401 without the token and 403 to other origins', async () => {
    expect((await api('sessions:list')).status).toBe(401);
    expect((await api('sessions:list', { headers: { authorization: 'Bearer wrong-token-of-the-wrong-length' } })).status).toBe(401);
    expect((await api('sessions:list', { headers: { authorization: `Bearer ${server.token}`, origin: 'https://evil.example' } })).status).toBe(403);
    const ok = await api('sessions:list', { headers: { authorization: `Bearer ${server.token}`, origin: `http://127.0.0.1:${server.port}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, value: [] });
  });

  it('validates requests like the desktop app does', async () => {
    const bad = await api('sessions:show', { headers: { authorization: `Bearer ${server.token}` }, body: '{"sessionId": 5}' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const notJson = await api('sessions:list', { headers: { authorization: `Bearer ${server.token}` }, body: '{nope' });
    expect(notJson.status).toBe(400);
  });

  it('serves the UI with a CSP, and nothing outside it', async () => {
    const index = await fetch(`http://127.0.0.1:${server.port}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect((await fetch(`http://127.0.0.1:${server.port}/..%2Fsecret.txt`)).status).toBe(404);
  });

  it('takes a file as a streamed request body, previews and imports it, and deletes its copy after the import', async () => {
    const auth = { authorization: `Bearer ${server.token}` };
    const chunks = [transcript(6).slice(0, 40), transcript(6).slice(40)];
    // A body that arrives in pieces, as a browser streams a File from disk.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const uploaded = await fetch(`http://127.0.0.1:${server.port}/api/files:upload?name=${encodeURIComponent('../chat.json')}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/octet-stream' }, body, duplex: 'half' } as RequestInit);
    const staged = (await uploaded.json()) as { ok: true; value: { fileId: string; name: string; size: number } };
    expect(staged).toMatchObject({ ok: true, value: { name: 'chat.json', size: Buffer.byteLength(transcript(6)) } });
    // Staged under the data folder, never in the OS temp folder.
    const stagingRoot = path.join(host.dataDir, 'staging');
    const copies = () => readdirSync(stagingRoot).flatMap((n) => readdirSync(path.join(stagingRoot, n)));
    expect(readdirSync(os.tmpdir()).filter((n) => n.startsWith('session-memory-staging-'))).toEqual([]);
    expect(copies()).toContain(staged.value.fileId);
    const preview = await (await api('import:preview', { headers: auth, body: JSON.stringify({ fileIds: [staged.value.fileId] }) })).json();
    expect(preview).toMatchObject({ ok: true, value: [{ sessions: [{ sessionId: 'host-session', new: 6 }] }] });
    const run = await (await api('import:run', { headers: auth, body: JSON.stringify({ fileIds: [staged.value.fileId] }) })).json();
    expect(run).toMatchObject({ ok: true, value: { files: [{ reports: [{ new: 6 }] }] } });
    expect(copies()).not.toContain(staged.value.fileId);
    expect(await (await api('import:preview', { headers: auth, body: JSON.stringify({ fileIds: [staged.value.fileId] }) })).json()).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('refuses an upload larger than the limit, by its declared length or while it streams, and keeps nothing of it', async () => {
    const auth = { authorization: `Bearer ${server.token}` };
    const declared = await fetch(`http://127.0.0.1:${server.port}/api/files:upload?name=big.json`, { method: 'POST', headers: { ...auth, 'content-length': String(9 * 1024 ** 3) }, body: 'x' }).catch((error: Error) => error);
    // Node's fetch refuses a wrong content-length itself; the server's check is what a browser meets.
    if (!(declared instanceof Error)) expect(declared.status).toBe(413);
    const { StagingArea } = await import('../electron/host/staging.js');
    const { Readable } = await import('node:stream');
    const root = dir();
    const staging = new StagingArea(root);
    await expect(staging.stageStream('big.json', Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), 1000)).rejects.toThrow(/big\.json: larger than/);
    const left = readdirSync(root).flatMap((n) => readdirSync(path.join(root, n)));
    expect(left).toEqual([]);
    await staging.close();
  });

  it('pushes events over SSE to a client with the token', async () => {
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${server.port}/api/events?token=${server.token}`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read(); // ": connected"
    server.emit('onSaveProgress', { sessionId: 's', phase: 'embedding', done: 1, total: 2, fileIndex: 0, fileCount: 1 });
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('event: onSaveProgress\ndata: {"sessionId":"s"');
    controller.abort();
  });
});
