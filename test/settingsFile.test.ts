/**
 * The desktop app's settings: written atomically, an unreadable file is reported and kept (never silently
 * replaced by defaults, which would switch data folders), and the model is saved only once the person chose one.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { MemoryHost } from '../electron/host/memoryHost.js';
import { loadSettingsFile, saveSettingsFile, type PersistedSettings } from '../electron/host/settingsFile.js';
import { REPO } from './helpers/cli.js';
import { tempDir } from './helpers/engine.js';
import { TEST_MODELS_DIR } from './helpers/model.js';

const { dir: root, cleanup } = tempDir('sm-settings-');
afterAll(cleanup);
let n = 0;
const fresh = async (): Promise<string> => {
  const dir = path.join(root, `case-${n++}`);
  await fs.mkdir(dir, { recursive: true });
  return dir;
};

describe('settings file', () => {
  it('round-trips what was chosen, and leaves no temporary file', async () => {
    const dir = await fresh();
    const file = path.join(dir, 'settings.json');
    await saveSettingsFile(file, { dataDir: '/data/memory', language: 'zh-CN', theme: 'dark' });
    expect(await loadSettingsFile(file)).toEqual({ settings: { dataDir: '/data/memory', language: 'zh-CN', theme: 'dark' } });
    expect(await fs.readdir(dir)).toEqual(['settings.json']);
  });

  it('a save killed before its rename leaves the previous file whole', async () => {
    const dir = await fresh();
    const file = path.join(dir, 'settings.json');
    await saveSettingsFile(file, { dataDir: '/data/old' });
    const script = `import { saveSettingsFile } from './electron/host/settingsFile.ts'; await saveSettingsFile(${JSON.stringify(file)}, { dataDir: '/data/new' });`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO,
      env: { ...process.env, SESSION_MEMORY_TEST_CRASH: 'rename/settings.json:1' },
      encoding: 'utf8',
    });
    expect(run.signal).toBe('SIGKILL');
    expect(await loadSettingsFile(file)).toEqual({ settings: { dataDir: '/data/old' } });
  });

  it('an empty or broken file is reported and kept aside, not replaced in silence', async () => {
    for (const [content, reason] of [
      ['', /it is empty/],
      ['{"dataDir": "/data/mem', /not JSON/],
      ['{"dataDir": 42}', /dataDir/],
    ] as const) {
      const dir = await fresh();
      const file = path.join(dir, 'settings.json');
      await fs.writeFile(file, content);
      const loaded = await loadSettingsFile(file);
      expect(loaded.settings).toEqual({});
      expect(loaded.problem).toMatch(reason);
      expect(loaded.problem).toContain(file);
      expect(await fs.readFile(`${file}.unreadable`, 'utf8')).toBe(content);
    }
  });

  it('one invalid field costs only itself: the data folder and the rest are kept, and the field is named', async () => {
    const dir = await fresh();
    const file = path.join(dir, 'settings.json');
    const content = '{"dataDir": "/data/memory", "theme": "purple", "language": "zh-CN", "redactSecrets": false}';
    await fs.writeFile(file, content);
    const loaded = await loadSettingsFile(file);
    expect(loaded.settings).toEqual({ dataDir: '/data/memory', language: 'zh-CN', redactSecrets: false });
    expect(loaded.problem).toContain(file);
    expect(loaded.problem).toMatch(/theme: .*theme is back to the default/);
    expect(loaded.problem).not.toMatch(/dataDir/);
    expect(await fs.readFile(`${file}.unreadable`, 'utf8')).toBe(content);
  });

  it('a missing file is simply the defaults', async () => {
    expect(await loadSettingsFile(path.join(await fresh(), 'settings.json'))).toEqual({ settings: {} });
  });
});

describe('what the app saves', () => {
  it('changing the theme does not pin the model; choosing a model saves it', async () => {
    const saved: PersistedSettings[] = [];
    const host = new MemoryHost({ dataDir: path.join(await fresh(), 'memory'), modelsDir: TEST_MODELS_DIR, onSettingsChanged: (s) => saved.push(s) });
    try {
      await host.handlers['settings:set']({ theme: 'dark' });
      expect(saved.at(-1)).not.toHaveProperty('model');
      expect(saved.at(-1)).toMatchObject({ theme: 'dark' });
      await host.handlers['settings:set']({ model: 'use-lite-en' });
      expect(saved.at(-1)).toMatchObject({ theme: 'dark', model: 'use-lite-en' });
    } finally {
      await host.close();
    }
  });
});
