/**
 * The app's host on a memory kept on object storage (s3rver and dynalite on 127.0.0.1): saves,
 * searches and the machines that wrote, with this machine's folder holding none of the memory; a
 * plain s3:// store on a server without conditional writes is refused before the app moves to it.
 */
// First, as in the app: LanceDB's own warnings stay quiet.
import '../electron/host/lanceLog.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Result, Settings } from '../shared/ipc.js';
import type { RecentWriter, SearchHit } from '../shared/domain.js';
import { dispatch } from '../electron/host/dispatch.js';
import { MemoryHost } from '../electron/host/memoryHost.js';
import { TEST_MODELS_DIR } from './helpers/model.js';
import { tempDir } from './helpers/engine.js';
import { startObjectStoreServers, type ObjectStoreServers } from './helpers/objectStore.js';

const cleanups: Array<() => void | Promise<void>> = [];
let servers: ObjectStoreServers;
const savedEnv = { ...process.env };

beforeAll(async () => {
  servers = await startObjectStoreServers();
  Object.assign(process.env, servers.env);
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await servers?.close();
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
});

function dir(prefix: string): string {
  const t = tempDir(prefix);
  cleanups.push(t.cleanup);
  return t.dir;
}

/** A host as on one machine: its own app folder (SESSION_MEMORY_HOME) and name. */
function hostOn(machine: string, dataDir: string, options: { singleWriter?: boolean } = {}): { host: MemoryHost; home: string } {
  const home = dir(`sm-home-${machine}-`);
  process.env.SESSION_MEMORY_HOME = home;
  process.env.SESSION_MEMORY_MACHINE = machine;
  const host = new MemoryHost({ dataDir, model: 'use-lite-en', modelsDir: TEST_MODELS_DIR, cliLauncher: { command: 'session-memory', args: [] }, ...options });
  cleanups.push(() => host.close());
  return { host, home };
}

/**
 * A test whose subject is the store's place, not embedding: the hosts it opens embed with the hashing
 * stand-in (SESSION_MEMORY_TEST_EMBEDDER, read when a host opens its engine) and load no model. The
 * first test, saving and searching on a shared store, keeps the real model.
 */
function itWithoutModel(name: string, options: { timeout: number }, body: () => Promise<void>): void {
  it(name, options, async () => {
    process.env.SESSION_MEMORY_TEST_EMBEDDER = 'hash';
    try {
      await body();
    } finally {
      delete process.env.SESSION_MEMORY_TEST_EMBEDDER;
    }
  });
}

const transcript = (sessionId: string, topic: string) =>
  Buffer.from(
    JSON.stringify({
      session_id: sessionId,
      title: topic,
      messages: [
        { msg_id: `${sessionId}-1`, role: 'user', content: `How should I go about ${topic}?` },
        { msg_id: `${sessionId}-2`, role: 'assistant', content: `For ${topic}, start small and keep notes of what worked.` },
      ],
    }),
  ).toString('base64');

async function ok<T>(result: Promise<Result<unknown>>): Promise<T> {
  const settled = await result;
  if (!settled.ok) throw new Error(`${settled.error.code}: ${settled.error.message}`);
  return settled.value as T;
}

async function importAs(host: MemoryHost, sessionId: string, topic: string): Promise<void> {
  const staged = await ok<{ fileId: string }>(dispatch(host.handlers, 'files:stage', { name: `${sessionId}.json`, dataBase64: transcript(sessionId, topic) }));
  const run = await ok<{ files: Array<{ error?: unknown; reports: Array<{ sessionId: string; new: number }> }> }>(dispatch(host.handlers, 'import:run', { fileIds: [staged.fileId] }));
  expect(run.files[0]).toMatchObject({ reports: [{ sessionId, new: 2 }] });
  expect(run.files[0]!.error).toBeUndefined();
}

/** Every file under a folder, relative to it. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

describe('the app on a shared store (s3+ddb://)', () => {
  it('saves, searches and lists the machines that wrote; this machine\'s folder holds no part of the memory', { timeout: 180_000 }, async () => {
    const { bucket, sharedUri } = await servers.newStore('host-shared');
    const desk = hostOn('desk-a', sharedUri);
    const settings = await ok<Settings>(dispatch(desk.host.handlers, 'settings:get', {}));
    expect(settings.dataDir).toBe(sharedUri);
    expect(settings.storage).toMatchObject({ kind: 's3+ddb', display: `s3+ddb://${bucket}/memory`, shared: true, machine: 'desk-a' });
    expect(settings.storage.localDir.startsWith(path.join(desk.home, 'stores') + path.sep)).toBe(true);
    // Assistants are pointed at the same memory.
    expect(settings.mcpServer?.args).toEqual(['--data', sharedUri, 'mcp']);

    await importAs(desk.host, 'sourdough', 'baking sourdough bread');
    const hits = await ok<SearchHit[]>(dispatch(desk.host.handlers, 'search:query', { query: 'sourdough bread' }));
    expect(hits[0]?.sessionId).toBe('sourdough');

    // Another machine, with its own folder, saves to the same memory and sees the first one's saves.
    const laptop = hostOn('laptop-b', sharedUri);
    expect((await ok<Array<{ sessionId: string }>>(dispatch(laptop.host.handlers, 'sessions:list', {}))).map((s) => s.sessionId)).toEqual(['sourdough']);
    await importAs(laptop.host, 'tomatoes', 'growing tomatoes on a balcony');

    // Each save's history event is committed with the lease's give-back, at most 1.5 s after the save.
    let writers: RecentWriter[] = [];
    await expect.poll(async () => (writers = await ok<RecentWriter[]>(dispatch(desk.host.handlers, 'store:writers', {}))).length, { timeout: 15_000, interval: 250 }).toBe(2);
    expect(writers.map(({ machine, saves }) => ({ machine, saves }))).toEqual([
      { machine: 'laptop-b', saves: 1 },
      { machine: 'desk-a', saves: 1 },
    ]);
    expect(writers[0]!.lastAt >= writers[1]!.lastAt).toBe(true);

    // The memory is in the bucket; the machines' folders keep only what they derive from it.
    expect((await servers.objects(bucket)).some((object) => object.key.startsWith('memory/chunks.lance/'))).toBe(true);
    for (const home of [desk.home, laptop.home]) {
      const files = filesUnder(home);
      expect(files.length).toBeGreaterThan(0);
      expect(files.filter((file) => file.split(path.sep).includes('lancedb') || file.endsWith('.lance') || file.includes(`.lance${path.sep}`))).toEqual([]);
      expect(files.filter((file) => path.basename(file) === 'save-history.jsonl')).toEqual([]);
      expect(existsSync(path.join(settings.storage.localDir, 'lancedb'))).toBe(false);
    }
  });

  itWithoutModel('a bad URI is refused with the parser\'s message, credentials in a URI are refused unrepeated, a copy into the bucket moves the memory there, and a copy onto a memory is refused', { timeout: 90_000 }, async () => {
    const folder = dir('sm-folder-');
    const { host } = hostOn('desk-a', folder);
    const bad = await dispatch(host.handlers, 'store:change', { to: 's3+ddb://bucket/memory' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('an s3+ddb:// store needs exactly one query parameter, ddbTableName') } });
    const secret = await dispatch(host.handlers, 'store:change', { to: 's3://AKIAEXAMPLE:wJalrXUtnFEMI@bucket/memory' });
    expect(secret).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringMatching(/^s3:\/\/bucket\/memory: credentials do not go in the URI/) } });
    expect(JSON.stringify(secret)).not.toContain('wJalrXUtnFEMI');

    const { bucket, sharedUri } = await servers.newStore('host-copy');
    // Nothing saved yet: nothing to copy.
    expect(await dispatch(host.handlers, 'store:change', { to: sharedUri, copy: true })).toMatchObject({ ok: false, error: { code: 'invalid_input', message: `${folder} holds no memory yet: there is nothing to copy; move without copying` } });
    await importAs(host, 'sourdough', 'baking sourdough bread');
    expect(await dispatch(host.handlers, 'store:change', { to: folder, copy: true })).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('is the memory in use') } });
    expect((await servers.objects(bucket)).filter((object) => object.key.endsWith('.lance') || object.key.includes('.lance/'))).toEqual([]);
    expect(await ok<Settings>(dispatch(host.handlers, 'settings:get', {}))).toMatchObject({ dataDir: folder, storage: { kind: 'folder', display: folder, localDir: folder, shared: false } });

    // The person's choice of sources, as the Sources view keeps it.
    const chosen = { enabled: { 'claude-code': true }, folders: { aider: ['/home/ana/notes'] } };
    writeFileSync(path.join(folder, 'sources.json'), JSON.stringify({ ...chosen, status: { 'claude-code': { lastSync: new Date().toISOString(), sessionsSaved: 1, errors: [] } } }));

    // Copied, then moved there: the memory and its history are in the bucket, the choice of sources in this computer's folder for it.
    const copied = await ok<Settings>(dispatch(host.handlers, 'store:change', { to: sharedUri, copy: true }));
    expect(copied).toMatchObject({ dataDir: sharedUri, storage: { kind: 's3+ddb', shared: true, retention: { state: 'off' } } });
    expect(JSON.parse(readFileSync(path.join(copied.storage.localDir, 'sources.json'), 'utf8'))).toEqual({ ...chosen, status: {} });
    expect(copied.mcpServer?.args).toEqual(['--data', sharedUri, 'mcp']);
    expect((await servers.objects(bucket)).some((object) => object.key.startsWith('memory/chunks.lance/'))).toBe(true);
    expect((await ok<RecentWriter[]>(dispatch(host.handlers, 'store:writers', {}))).map((w) => w.machine)).toEqual(['desk-a']);
    // A place that now holds a memory is not copied over.
    const again = await dispatch(host.handlers, 'store:change', { to: folder, copy: true });
    expect(again).toMatchObject({ ok: false });
    expect(await ok<Settings>(dispatch(host.handlers, 'settings:get', {}))).toMatchObject({ dataDir: sharedUri });
  });
});

describe('a plain s3:// store on a server without conditional writes', () => {
  itWithoutModel('is refused (unsafe_store, naming s3+ddb://) before the app moves to it, and at the first save of an app opened on it', { timeout: 120_000 }, async () => {
    const { plainUri } = await servers.newStore('host-plain');
    const folder = dir('sm-folder-');
    const { host } = hostOn('desk-a', folder);
    const refused = await dispatch(host.handlers, 'store:change', { to: plainUri });
    expect(refused).toMatchObject({ ok: false, error: { code: 'unsafe_store', message: expect.stringContaining('s3+ddb://') } });
    // One line, as Settings › Storage shows it.
    expect(refused.ok ? '' : refused.error.message).toMatch(/^[^\n]+$/);
    expect(await ok<Settings>(dispatch(host.handlers, 'settings:get', {}))).toMatchObject({ dataDir: folder });
    // Asked to copy there first, it is refused the same way before anything is copied.
    await importAs(host, 'socks', 'knitting socks');
    expect(await dispatch(host.handlers, 'store:change', { to: plainUri, copy: true })).toMatchObject({ ok: false, error: { code: 'unsafe_store', message: expect.stringContaining('s3+ddb://') } });
    expect(await ok<Settings>(dispatch(host.handlers, 'settings:get', {}))).toMatchObject({ dataDir: folder });

    const opened = hostOn('desk-a', plainUri).host;
    const staged = await ok<{ fileId: string }>(dispatch(opened.handlers, 'files:stage', { name: 'a.json', dataBase64: transcript('plain', 'knitting socks') }));
    expect(await dispatch(opened.handlers, 'import:run', { fileIds: [staged.fileId] })).toMatchObject({ ok: false, error: { code: 'unsafe_store', message: expect.stringContaining('s3+ddb://') } });
    expect(await dispatch(opened.handlers, 'sessions:list', {})).toEqual({ ok: true, value: [] });
  });

  itWithoutModel('is used when only this machine writes to it (--single-writer)', { timeout: 120_000 }, async () => {
    const { plainUri } = await servers.newStore('host-single');
    const { host } = hostOn('desk-a', dir('sm-folder-'), { singleWriter: true });
    const moved = await ok<Settings>(dispatch(host.handlers, 'store:change', { to: plainUri }));
    expect(moved.mcpServer?.args).toEqual(['--data', plainUri, '--single-writer', 'mcp']);
    await importAs(host, 'single', 'writing a journal');
  });
});
