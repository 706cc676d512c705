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

export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, SESSION_MEMORY_MODELS_DIR: TEST_MODELS_DIR, SESSION_MEMORY_MODEL: 'use-lite-en', ...extra };
}

/** Starts `session-memory` as a user would, in its own process. */
export function startCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: REPO, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
}

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = startCli(args, env);
  return collect(child);
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
