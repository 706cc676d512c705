import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_MODELS_DIR } from './model.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(REPO, 'bin', 'session-memory.mjs');

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The CLI's environment for a test whose subject is not embedding (crashes, locks, forgetting,
 * plumbing): the engine embeds with the hashing stand-in (electron/embedding/hashEmbedder.ts), so a
 * run loads no model. The store records the model `test-hash`.
 */
export const HASH_EMBEDDER = { SESSION_MEMORY_TEST_EMBEDDER: 'hash' } as const;

/** The variables the run of runCliInProcess under way has set, with their values outside it. */
const lent = new Map<string, string | undefined>();

/**
 * The environment of a CLI process: this process's, as it stands outside any run of runCliInProcess
 * (whose variables are this process's only while it runs: a process a concurrent test starts then
 * must not inherit them), and `extra`.
 */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const [name, value] of lent) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return { ...env, SESSION_MEMORY_MODELS_DIR: TEST_MODELS_DIR, SESSION_MEMORY_MODEL: 'use-lite-en', ...extra };
}


/** Starts `session-memory` as a user would, in its own process. */
export function startCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: REPO, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
}

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = startCli(args, env);
  return collect(child);
}

/**
 * Runs `session-memory` in this process: the CLI's own code (electron/cli/main.ts) with `env` added
 * to this process's environment for the run, its output collected. For a run that needs no process
 * of its own, such as the re-run after a killed one (whose state is all on disk), without the
 * second or so of CPU a process takes to start and load the store's code. Never with a crash or stop
 * switch: those act on the process that reads them, and this one is the test's.
 */
export async function runCliInProcess(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  if (Object.keys(env).some((name) => name === 'SESSION_MEMORY_TEST_CRASH' || name === 'SESSION_MEMORY_TEST_STOP')) throw new Error('a crash or stop switch needs a process of its own: runCli');
  // One run at a time: a run's environment is this process's for its duration, so the tests of a
  // file that run concurrently (describe.concurrent) take turns here instead of mixing theirs.
  const turn = inProcessRuns.then(() => runInThisProcess(args, env));
  inProcessRuns = turn.then(
    () => undefined,
    () => undefined,
  );
  return turn;
}

/** The in-process run under way, if any: the next one starts when it ends. */
let inProcessRuns: Promise<void> = Promise.resolve();

async function runInThisProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  const { main } = await import('../../electron/cli/main.js');
  const added: Record<string, string> = { SESSION_MEMORY_MODELS_DIR: TEST_MODELS_DIR, SESSION_MEMORY_MODEL: 'use-lite-en', ...env };
  const saved = Object.fromEntries(Object.keys(added).map((name) => [name, process.env[name]]));
  for (const [name, value] of Object.entries(saved)) lent.set(name, value);
  Object.assign(process.env, added);
  let stdout = '';
  let stderr = '';
  try {
    const status = await main([process.execPath, BIN, ...args], { out: (line) => (stdout += `${line}\n`), err: (line) => (stderr += `${line}\n`), isTTY: false });
    return { status, signal: null, stdout, stderr };
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    lent.clear();
  }
}

export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr })));
}

export function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
