/**
 * The crash trials' machinery (test/crash.test.ts, test/crashRewrite.test.ts): `session-memory` runs
 * in a child process and is killed with SIGKILL at exact moments or at random times, the same command
 * (or another writer) is run again, and the store must be what one clean run leaves. The trials are
 * split over two files so that two test workers share them. The run that is killed has a process of
 * its own; the run after it reads all it needs from the disk, and runs the CLI's code in the test's
 * process (runCliInProcess), sparing a process start per trial. So do the clean runs that build the
 * stores the trials start from and the states they are compared with: only a kill needs a process.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { cpSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { HASH_EMBEDDER, runCli, runCliInProcess } from './cli.js';
import { tempDir, withHashStore } from './engine.js';
import { lanes } from './lanes.js';

export interface Shown {
  messages: Array<{ msgId: string; contentHash: string; chunkId: string }>;
  chunks: Array<{ chunkId: string; text: string }>;
}

export const SESSION = 'crash-session';
// Small commits and frequent compaction, so that one save passes through many crash points. The
// subject is the store's state after a kill, not embedding: the hashing stand-in embeds, so that
// each of the ~110 runs loads no model (the real model's saves are killed in test/cli.test.ts).
export const TEST_ENV = { SESSION_MEMORY_TEST_WRITE_BATCH: '8', SESSION_MEMORY_TEST_OPTIMIZE_EVERY: '4', ...HASH_EMBEDDER };
export const SEED = Number(process.env.CRASH_SEED ?? 20261202);
// Each trial runs the CLI twice; a group of them takes minutes on two busy cores.
export const TRIALS_TIMEOUT = 15 * 60_000;

export interface CrashBed {
  /** The file's scratch folder. */
  root(): string;
  totals: { kills: number; lost: number; duplicated: number; trials: number; purgeKills: number };
  writeJson(name: string, value: unknown): Promise<string>;
  /** What `show <session> --json` prints of the session, read in this process (the CLI's show is tested in cli.test.ts). */
  snapshot(data: string, sessionId?: string): Promise<Shown>;
  /** Runs a save that is killed at `crash.point` (a crash point, with an optional delay), then runs it again and compares; `crash.env` is added to both runs. */
  trial(label: string, base: string | null, args: string[], expected: Shown, crash: { point: string; env?: Record<string, string> }): Promise<void>;
  /** Copies `from`, runs `args` killed at `point`, then `then` (the same command, or another writer), and checks files and store. */
  purgeTrial(label: string, from: string, args: string[], point: string, then: string[], check: (data: string, rerun: { stdout: string }) => Promise<void>): Promise<void>;
  /**
   * Runs `job` (a trial) for each item, two at a time: while one trial's killed process runs, another's
   * re-run and checks run in this process. Each trial has a data folder of its own. Fails with the first
   * failed trial once those under way have ended.
   */
  each<T>(items: readonly T[], job: (item: T) => Promise<void>): Promise<void>;
}

/** A scratch folder for the file's trials and their totals, printed after the file. */
export function crashBed(prefix: string): CrashBed {
  let root = '';
  let cleanup: () => void = () => {};
  const totals = { kills: 0, lost: 0, duplicated: 0, trials: 0, purgeKills: 0 };
  const twoAtATime = lanes(2);
  beforeAll(() => {
    ({ dir: root, cleanup } = tempDir(prefix));
  });
  afterAll(() => {
    console.log(`crash trials: ${totals.trials} runs, ${totals.kills} killed, ${totals.lost} messages lost, ${totals.duplicated} duplicated (seed ${SEED}; replay: CRASH_SEED=${SEED})`);
    cleanup();
  });

  async function writeJson(name: string, value: unknown): Promise<string> {
    const file = path.join(root, name);
    await fs.writeFile(file, JSON.stringify(value));
    return file;
  }

  async function snapshot(data: string, sessionId = SESSION): Promise<Shown> {
    const parsed = (await withHashStore(data, (engine) => engine.showSession(sessionId))) as Shown;
    return {
      messages: parsed.messages.map(({ msgId, contentHash, chunkId }) => ({ msgId, contentHash, chunkId })),
      chunks: parsed.chunks.map(({ chunkId, text }) => ({ chunkId, text })),
    };
  }

  async function trial(label: string, base: string | null, args: string[], expected: Shown, crash: { point: string; env?: Record<string, string> }): Promise<void> {
    totals.trials++;
    const data = path.join(root, `trial-${totals.trials}`);
    if (base) cpSync(base, data, { recursive: true });
    const first = await runCli(['--data', data, ...args, '--json'], { ...TEST_ENV, ...crash.env, SESSION_MEMORY_TEST_CRASH: crash.point });
    expect(first.signal, `${label}: the crash point was not reached (${first.stderr})`).toBe('SIGKILL');
    totals.kills++;

    const again = await runCliInProcess(['--data', data, ...args, '--json'], { ...TEST_ENV, ...crash.env });
    expect(again.status, `${label}: re-run failed: ${again.stderr}`).toBe(0);
    const actual = await snapshot(data);
    const ids = actual.messages.map((m) => m.msgId);
    const lost = expected.messages.filter((m) => !ids.includes(m.msgId)).length;
    const duplicated = ids.length - new Set(ids).size;
    totals.lost += lost;
    totals.duplicated += duplicated;
    expect({ lost, duplicated }, label).toEqual({ lost: 0, duplicated: 0 });
    expect(actual, label).toEqual(expected);
    expect(await withHashStore(data, (engine) => engine.verify()), label).toMatchObject({ ok: true, problems: [] });
    await fs.rm(data, { recursive: true, force: true });
  }

  async function purgeTrial(label: string, from: string, args: string[], point: string, then: string[], check: (data: string, rerun: { stdout: string }) => Promise<void>): Promise<void> {
    totals.trials++;
    const data = path.join(root, `trial-${totals.trials}`);
    cpSync(from, data, { recursive: true });
    const first = await runCli(['--data', data, ...args, '--json'], { ...TEST_ENV, SESSION_MEMORY_TEST_CRASH: point });
    expect(first.signal, `${label}: the crash point was not reached (${first.stderr})`).toBe('SIGKILL');
    totals.kills++;
    totals.purgeKills++;
    const again = await runCliInProcess(['--data', data, ...then, '--json'], TEST_ENV);
    expect(again.status, `${label}: ${then.join(' ')} failed: ${again.stderr}`).toBe(0);
    await check(data, again);
    expect(await withHashStore(data, (engine) => engine.verify()), label).toMatchObject({ ok: true, problems: [] });
    await fs.rm(data, { recursive: true, force: true });
  }

  return { root: () => root, totals, writeJson, snapshot, trial, purgeTrial, each: twoAtATime.each };
}

/**
 * A kill at a random moment of the save itself: the delay counts from the start of the engine's
 * save (not from process start, whose length varies with the machine's load) and is spread over
 * the time the same save took when it ran to the end. A delayed kill always lands (see
 * crashPoints.ts), so every trial counted here is a real kill.
 */
export function randomKill(random: () => number, cleanSaveMs: number): { point: string } {
  return { point: `save:1:${Math.max(1, Math.round(cleanSaveMs * (0.05 + 0.9 * random())))}` };
}

/** How long the save of a clean run took, from its report (the engine's own measure). */
export function saveMs(stdout: string): number {
  return (JSON.parse(stdout.trim().split('\n')[0]!) as { durationMs: number }).durationMs;
}
