/**
 * One SQLite reader (electron/importers/readers/sqlite.ts) with two backends. Inside Electron (the packaged
 * app, and its CLI run with ELECTRON_RUN_AS_NODE) better-sqlite3's native module, built for the
 * system's Node, does not load, and Node's own `node:sqlite` reads every tool's database. This runs
 * the readers in a Node 24 (installed by the test setup: test/helpers/node24.ts), which has
 * `node:sqlite` but not the ABI better-sqlite3 was built for, and checks it reads the same as here.
 */
import { execFile } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../electron/importers/index.js';
import { backendOrder, sqliteBackend } from '../../electron/importers/readers/sqlite.js';
import { REPO } from '../helpers/cli.js';
import { node24Ready, NODE24_MISSING } from '../helpers/node24.js';
import { fixture, readAll, tempDir } from './helpers.js';

describe('the SQLite backend', () => {
  it("is node:sqlite inside Electron (whose Node has it, and not better-sqlite3's ABI), better-sqlite3 in Node 20", () => {
    expect(backendOrder({ electron: '41.0.0', node: '24.11.1' } as { electron?: string })).toEqual(['node:sqlite', 'better-sqlite3']);
    expect(backendOrder({})).toEqual(['better-sqlite3', 'node:sqlite']);
    // This test runs in Node 20: no node:sqlite, better-sqlite3 loads.
    expect(sqliteBackend()).toBe('better-sqlite3');
  });
});

describe.skipIf(NODE24_MISSING !== undefined)(`every tool's database read with node:sqlite (${NODE24_MISSING ?? 'Node 24 from the test setup'})`, () => {
  it("reads OpenClaw's, opencode's and Cursor's databases, and recognises them by their bytes, exactly as better-sqlite3 does", async () => {
    const folder = tempDir();
    for (const name of ['upgraded', 'cold', 'zstd']) cpSync(fixture('openclaw-sqlite', name), path.join(folder, name), { recursive: true });
    const opencode = path.join(folder, 'opencode.db');
    cpSync(fixture('opencode', 'opencode.db'), opencode);
    const cursor2024 = path.join(folder, 'workspace.vscdb');
    cpSync(fixture('cursor', 'workspace-2024', 'state.vscdb'), cursor2024);
    const cursor2025 = path.join(folder, 'global.vscdb');
    cpSync(fixture('cursor', 'global-2025', 'state.vscdb'), cursor2025);
    const paths = [path.join(folder, 'upgraded'), path.join(folder, 'cold'), path.join(folder, 'zstd', 'openclaw-agent.sqlite'), opencode, cursor2024, cursor2025];
    const { stdout } = await promisify(execFile)(await node24Ready(), ['--import', 'tsx', path.join(REPO, 'test', 'helpers', 'read-databases.mts'), ...paths], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
    const child = JSON.parse(stdout) as { driver: string; files: unknown[]; detected: unknown[] };
    expect(child.driver).toBe('node:sqlite');
    const results = await readAll(paths);
    const here = results.map((result) => ('error' in result ? { file: result.file, error: result.error.message } : { file: result.file, sessions: result.sessions }));
    expect(child.files).toEqual(JSON.parse(JSON.stringify(here)));
    const reset = '1e2d3c4b-0000-4aaa-8bbb-123456789abc.jsonl.reset.2026-01-10T08-00-00.000Z';
    expect(results.map((result) => [path.basename(result.file), 'error' in result ? result.error.message : result.sessions.length])).toEqual([
      ['openclaw-agent.sqlite', 2], [reset, 1], ['openclaw-agent.sqlite', 1], ['d00d0000-aaaa-4bbb-8ccc-000000000002.jsonl.deleted.2026-03-02T10-00-00.000Z', 1],
      ['openclaw-agent.sqlite', 2], [reset, 1], ['openclaw-agent.sqlite', 2], ['opencode.db', 2], ['workspace.vscdb', 4], ['global.vscdb', 1],
    ]);
    expect(child.detected).toEqual([null, 'opencode', 'cursor', 'cursor']);
    expect(child.detected.slice(1)).toEqual([opencode, cursor2024, cursor2025].map((file) => detectFormat(readFileSync(file))));
  }, 120_000);
});
