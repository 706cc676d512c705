import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Result, SourceView } from '../shared/ipc.js';
import { dispatch } from '../electron/host/dispatch.js';
import { MemoryHost } from '../electron/host/memoryHost.js';
import { handOff, serveHandoff, TOKEN_FILE, type HandoffReply } from '../electron/sources/handoff.js';
import { scratchDirs } from './helpers/engine.js';
import { TEST_MODELS_DIR } from './helpers/model.js';

const scratch = scratchDirs('sm-sources-host-');
const FIXTURES = path.resolve(__dirname, 'fixtures/import');

function value<T>(result: Result<unknown>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as T;
}

async function until(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('sources in the app', () => {
  it('reads nothing until a source is turned on, then saves it, follows it in the background, and takes hooks\' saves', async () => {
    const home = scratch();
    const sessions = path.join(home, '.openclaw', 'agents', 'main', 'sessions');
    await fs.cp(path.join(FIXTURES, 'openclaw', 'sessions'), sessions, { recursive: true });
    const dataDir = scratch();
    const host = new MemoryHost({ dataDir, model: 'use-lite-en', modelsDir: TEST_MODELS_DIR, sources: { intervalMs: 300, serveHooks: true, discover: { env: {}, home } } });
    try {
      const listed = value<SourceView[]>(await dispatch(host.handlers, 'sources:list', {}));
      expect(listed).toEqual([expect.objectContaining({ id: 'openclaw', tool: 'OpenClaw', path: path.join(home, '.openclaw'), sessions: 2, enabled: false, imports: true, lastSync: null })]);
      // Off: a sync, asked for or in the background, saves nothing.
      await dispatch(host.handlers, 'sources:sync', {});
      await new Promise((r) => setTimeout(r, 800));
      expect(value<unknown[]>(await dispatch(host.handlers, 'sessions:list', {}))).toEqual([]);

      const on = value<SourceView[]>(await dispatch(host.handlers, 'sources:set', { id: 'openclaw', enabled: true }));
      expect(on[0]).toMatchObject({ enabled: true, sessionsSaved: 2, errors: [], lastSync: expect.stringMatching(/^\d{4}-/) });
      expect(JSON.parse(await fs.readFile(path.join(dataDir, 'sources.json'), 'utf8')).enabled).toEqual({ openclaw: true });
      const saved = value<Array<{ sessionId: string }>>(await dispatch(host.handlers, 'sessions:list', {}));
      expect(saved.map((s) => s.sessionId).sort()).toEqual(['1e2d3c4b-0000-4aaa-8bbb-123456789abc', '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6']);

      // A new session written while the app runs is saved in the background.
      const live = path.join(sessions, '9a9a9a9a-0000-4000-8000-000000000001.jsonl');
      const header = JSON.stringify({ type: 'session', version: 3, id: '9a9a9a9a-0000-4000-8000-000000000001', timestamp: '2026-11-30T10:00:00.000Z', cwd: '/home/ana' });
      const turn = (id: string, parent: string | null, role: string, text: string) =>
        JSON.stringify({ type: 'message', id, parentId: parent, timestamp: '2026-11-30T10:01:00.000Z', message: { role, content: role === 'user' ? text : [{ type: 'text', text }], timestamp: 1764496860000 } });
      await fs.writeFile(live, `${header}\n${turn('a1', null, 'user', 'Which plants like shade?')}\n${turn('a2', 'a1', 'assistant', 'Ferns and hostas like shade.')}\n`);
      const count = async () => value<unknown[]>(await dispatch(host.handlers, 'sessions:list', {})).length;
      await until(async () => (await count()) === 3);

      // A hook hands its save to the app, which answers with the report.
      await until(async () => (await fs.stat(path.join(dataDir, 'sync.token')).catch(() => null)) !== null);
      await fs.appendFile(live, `${turn('a3', 'a2', 'user', 'And which like full sun?')}\n${turn('a4', 'a3', 'assistant', 'Lavender and rosemary.')}\n`);
      const replies: HandoffReply[] = [];
      // Waiting for the answer as long as it takes here (a hook gives up after 3 s, leaving the save to the app).
      expect(await handOff(dataDir, { op: 'save', file: live }, (r) => replies.push(r), 120_000)).toBe('done');
      const news = replies.flatMap((r) => ('report' in r ? [Number(r.report.new)] : []));
      // The background look may have saved the two messages a moment before the hook asked.
      expect(news.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2);
      const detail = value<{ messages: unknown[] }>(await dispatch(host.handlers, 'sessions:show', { sessionId: '9a9a9a9a-0000-4000-8000-000000000001' }));
      expect(detail.messages).toHaveLength(4);

      const off = value<SourceView[]>(await dispatch(host.handlers, 'sources:set', { id: 'openclaw', enabled: false }));
      expect(off[0]!.enabled).toBe(false);
      expect((await dispatch(host.handlers, 'sources:set', { id: 'nope', enabled: true })).ok).toBe(false);
    } finally {
      await host.close();
    }
    expect(await fs.stat(path.join(dataDir, 'sync.token')).catch(() => null)).toBeNull();
  });

  it('takes the hooks over from a saver a hook left running, which gives way', async () => {
    const home = scratch();
    const dataDir = scratch();
    const log = path.join(scratch(), 'session.jsonl');
    await fs.copyFile(path.join(FIXTURES, 'openclaw', 'sessions', (await fs.readdir(path.join(FIXTURES, 'openclaw', 'sessions'))).find((n) => n.endsWith('.jsonl'))!), log);
    // The saver, as hookSaver.ts serves: it gives way when asked, and closes.
    const handedToSaver: string[] = [];
    let gaveWay = false;
    const saver = await serveHandoff(dataDir, async (request) => (handedToSaver.push(request.file), true), {
      onYield: () => {
        gaveWay = true;
        void saver?.close();
      },
    });
    expect(saver).not.toBeNull();
    const host = new MemoryHost({ dataDir, model: 'use-lite-en', modelsDir: TEST_MODELS_DIR, sources: { intervalMs: 0, serveHooks: true, discover: { env: {}, home } } });
    try {
      value(await dispatch(host.handlers, 'sources:list', {}));
      await until(async () => gaveWay && (await fs.readFile(path.join(dataDir, TOKEN_FILE), 'utf8').catch(() => saver!.token)) !== saver!.token);
      const replies: HandoffReply[] = [];
      expect(await handOff(dataDir, { op: 'save', file: log }, (r) => replies.push(r), 120_000)).toBe('done');
      expect(handedToSaver).toEqual([]);
      expect(replies).toEqual([expect.objectContaining({ report: expect.objectContaining({ source: 'hook', file: log }) })]);
      expect(value<unknown[]>(await dispatch(host.handlers, 'sessions:list', {}))).toHaveLength(1);
    } finally {
      await host.close();
    }
  });
});
