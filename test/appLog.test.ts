/** The app's log: a rotating file in the data folder, fed by the host with warnings and failures. */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { openAppLog } from '../electron/host/appLog.js';
import { dispatch } from '../electron/host/dispatch.js';
import { MemoryHost } from '../electron/host/memoryHost.js';
import { tempDir } from './helpers/engine.js';
import { TEST_MODELS_DIR } from './helpers/model.js';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((c) => c()));
function dir(): string {
  const t = tempDir('sm-log-');
  cleanups.push(t.cleanup);
  return t.dir;
}

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: number; time: string; msg: string; err?: { message: string; stack: string } });

describe('the app log', () => {
  it('writes JSON lines with time and level, errors with their stack, and rotates, keeping the last files', async () => {
    const data = dir();
    const log = openAppLog(data, { maxSize: '2K', maxFiles: 3 });
    log.warn('the settings file could not be read');
    log.error('crash', new Error('worker exploded'));
    for (let i = 0; i < 200; i++) log.info(`background maintenance step ${i}`);
    await log.close();
    const files = readdirSync(path.join(data, 'logs')).filter((f) => f.endsWith('.log'));
    expect(files).toContain('session-memory.log');
    // Rotated at 2 KB, at most 3 old files kept besides the current one.
    expect(files.length).toBeGreaterThan(1);
    expect(files.length).toBeLessThanOrEqual(4);
    const kept = files.flatMap((f) => lines(path.join(data, 'logs', f)));
    const messages = kept.map((l) => l.msg);
    expect(messages).toContain('background maintenance step 199');
    expect(kept.every((l) => !Number.isNaN(Date.parse(l.time)) && l.level >= 30)).toBe(true);
    // 200 lines of about 100 bytes do not fit in 4 files of 2 KB: the oldest went first.
    expect(messages).not.toContain('the settings file could not be read');
  });

  it('keeps an error with its message and stack', async () => {
    const data = dir();
    const log = openAppLog(data);
    log.error('crash', new Error('worker exploded'));
    await log.close();
    const [entry] = lines(path.join(data, 'logs', 'session-memory.log'));
    expect(entry).toMatchObject({ level: 50, msg: 'crash', err: { message: 'worker exploded' } });
    expect(entry!.err!.stack).toMatch(/appLog\.test\.ts/);
  });

  it('the host logs to its data folder, names the folder in Settings, and opens it where it can', async () => {
    const data = dir();
    const opened: string[] = [];
    const host = new MemoryHost({ dataDir: data, model: 'use-lite-en', modelsDir: TEST_MODELS_DIR, fileLog: true, openFolder: async (folder) => void opened.push(folder) });
    try {
      const settings = (await dispatch(host.handlers, 'settings:get', {})) as { ok: true; value: { logDir: string } };
      expect(settings.value.logDir).toBe(path.join(data, 'logs'));
      host.logger.warn('building the vector index failed; the next import tries again: disk full');
      expect(await dispatch(host.handlers, 'app:openLogFolder', {})).toEqual({ ok: true, value: { opened: true, path: path.join(data, 'logs') } });
      expect(opened).toEqual([path.join(data, 'logs')]);
    } finally {
      await host.close();
    }
    expect(lines(path.join(data, 'logs', 'session-memory.log')).map((l) => l.msg)).toEqual(['building the vector index failed; the next import tries again: disk full']);

    // Without a way to open folders (web mode), the path is returned to be shown; without a log, none.
    const web = new MemoryHost({ dataDir: dir(), model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
    expect(((await dispatch(web.handlers, 'settings:get', {})) as { ok: true; value: { logDir: string | null } }).value.logDir).toBeNull();
    expect(((await dispatch(web.handlers, 'app:openLogFolder', {})) as { ok: true; value: { opened: boolean } }).value.opened).toBe(false);
    await web.close();
    expect(existsSync(path.join(data, 'logs'))).toBe(true);
  });
});
