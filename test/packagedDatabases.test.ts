/**
 * The installed app reads opencode's and Cursor's databases: its bundles (scripts/build-electron.mjs)
 * run in Electron's Node, where better-sqlite3's native module, built for the system's Node, does not
 * load. This runs the packaged CLI (dist-electron/cli.cjs, as the app runs it with
 * ELECTRON_RUN_AS_NODE) in a Node 24 that says it is Electron 41's (whose Node is 24 too): the
 * databases are read with node:sqlite, in the unpacked database worker, and their sessions saved.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/cli.js';
import { tempDir } from './helpers/engine.js';
import { testModelDir } from './helpers/model.js';
import { node24Ready, NODE24_MISSING } from './helpers/node24.js';

const FIXTURES = path.join(REPO, 'test', 'fixtures', 'import');

describe.skipIf(NODE24_MISSING !== undefined)(`the packaged app's databases (${NODE24_MISSING ?? 'in Node 24, as in Electron 41'})`, () => {
  it("imports opencode's and Cursor's databases with node:sqlite, read in the unpacked worker", async () => {
    execFileSync(process.execPath, ['scripts/build-electron.mjs'], { cwd: REPO, stdio: 'ignore' });
    const { dir, cleanup } = tempDir('sm-packaged-db-');
    try {
      const home = path.join(dir, 'home');
      await fs.mkdir(path.join(home, '.local', 'share', 'opencode'), { recursive: true });
      await fs.copyFile(path.join(FIXTURES, 'opencode', 'opencode.db'), path.join(home, '.local', 'share', 'opencode', 'opencode.db'));
      const cursor = path.join(home, '.config', 'Cursor', 'User', 'globalStorage');
      await fs.mkdir(cursor, { recursive: true });
      await fs.copyFile(path.join(FIXTURES, 'cursor', 'global-2025', 'state.vscdb'), path.join(cursor, 'state.vscdb'));
      // What Electron's Node says of itself (the database worker inherits the preload).
      const electron = path.join(dir, 'electron-41.cjs');
      await fs.writeFile(electron, "Object.defineProperty(process.versions, 'electron', { value: '41.0.0' });\n");
      // The unpacked worker the app ships, started through a probe that notes each start.
      const probe = path.join(dir, 'worker-probe.mjs');
      const starts = path.join(dir, 'worker-starts.txt');
      const worker = pathToFileURL(path.join(REPO, 'dist-electron', 'databaseWorker.mjs')).href;
      await fs.writeFile(probe, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(starts)}, process.versions.electron + '\\n');\nawait import(${JSON.stringify(worker)});\n`);
      const env = { ...process.env, HOME: home, XDG_DATA_HOME: '', XDG_CONFIG_HOME: '', SESSION_MEMORY_MODELS_DIR: await testModelDir(), SESSION_MEMORY_MODEL: 'use-lite-en', SESSION_MEMORY_DATABASE_WORKER: probe };
      const { stdout } = await promisify(execFile)(await node24Ready(), ['--require', electron, path.join(REPO, 'dist-electron', 'cli.cjs'), '--data', path.join(dir, 'data'), 'sync', '--source', 'opencode', '--source', 'cursor', '--json'], { env, maxBuffer: 16 * 1024 * 1024 });
      const reports = stdout.trim().split('\n').map((line) => JSON.parse(line) as { source: string; sessionId?: string; new?: number; error?: string });
      expect(reports.filter((report) => report.error !== undefined)).toEqual([]);
      expect(reports.map((report) => [report.source, report.sessionId, report.new]).sort()).toEqual([
        ['cursor', '5b0e2c1a-8f3d-4e6a-9c27-1d4b7a9e3f60', 4],
        ['opencode', 'ses_dbdb5c36effeQPcURTnVeWbFXp', 2],
        ['opencode', 'ses_dbdb7c3b9ffeycEkmI5Wkhvqpo', 5],
      ]);
      // One worker, started in the "Electron" process, read both databases.
      expect(await fs.readFile(starts, 'utf8')).toBe('41.0.0\n');
    } finally {
      cleanup();
    }
  }, 300_000);
});
