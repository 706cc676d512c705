/**
 * Crash at any point: `session-memory save` runs in a child process and is killed with SIGKILL at
 * exact moments (before and after commits, between the archive record's write and its rename,
 * while the history is appended, in the middle of a compaction) and at random times. The same save
 * is then run again, and `show --json` and `verify --json` must show exactly what one clean run
 * leaves: every message once, every chunk's messages present, the record agreeing with the store.
 * `forget --messages` and `redact` are killed the same way, between and inside their save and purge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import { realisticConversation, seededRandom } from '../scripts/transcriptGenerator.js';
import { HASH_EMBEDDER, jsonLines, runCli } from './helpers/cli.js';
import { tempDir, withHashStore } from './helpers/engine.js';
import { filesWithTrace } from './helpers/files.js';
import { seededChars } from './helpers/random.js';

interface Shown {
  messages: Array<{ msgId: string; contentHash: string; chunkId: string }>;
  chunks: Array<{ chunkId: string; text: string }>;
}

const SESSION = 'crash-session';
// Small commits and frequent compaction, so that one save passes through many crash points. The
// subject is the store's state after a kill, not embedding: the hashing stand-in embeds, so that
// each of the ~110 runs loads no model (the real model's saves are killed in test/cli.test.ts).
const TEST_ENV = { SESSION_MEMORY_TEST_WRITE_BATCH: '8', SESSION_MEMORY_TEST_OPTIMIZE_EVERY: '4', ...HASH_EMBEDDER };
const SEED = Number(process.env.CRASH_SEED ?? 20261202);
// Each trial runs the CLI four times; a group of them takes minutes on two busy cores.
const TRIALS_TIMEOUT = 15 * 60_000;

let root: string;
let cleanup: () => void;
const totals = { kills: 0, lost: 0, duplicated: 0, trials: 0, purgeKills: 0 };

beforeAll(() => {
  ({ dir: root, cleanup } = tempDir('sm-crash-'));
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

/** What `show <session> --json` prints of the session, read in this process (the CLI's show is tested in cli.test.ts). */
async function snapshot(data: string, sessionId = SESSION): Promise<Shown> {
  const parsed = (await withHashStore(data, (engine) => engine.showSession(sessionId))) as Shown;
  return {
    messages: parsed.messages.map(({ msgId, contentHash, chunkId }) => ({ msgId, contentHash, chunkId })),
    chunks: parsed.chunks.map(({ chunkId, text }) => ({ chunkId, text })),
  };
}

/**
 * A kill at a random moment of the save itself: the delay counts from the start of the engine's
 * save (not from process start, whose length varies with the machine's load) and is spread over
 * the time the same save took when it ran to the end. A delayed kill always lands (see
 * crashPoints.ts), so every trial counted here is a real kill.
 */
function randomKill(random: () => number, cleanSaveMs: number): { point: string } {
  return { point: `save:1:${Math.max(1, Math.round(cleanSaveMs * (0.05 + 0.9 * random())))}` };
}

/** How long the save of a clean run took, from its report (the engine's own measure). */
function saveMs(stdout: string): number {
  return (JSON.parse(stdout.trim().split('\n')[0]!) as { durationMs: number }).durationMs;
}

/** Runs a save that is killed at `crash.point` (a crash point, with an optional delay), then runs it again and compares. */
async function trial(label: string, base: string | null, args: string[], expected: Shown, crash: { point: string }): Promise<void> {
  totals.trials++;
  const data = path.join(root, `trial-${totals.trials}`);
  if (base) cpSync(base, data, { recursive: true });
  const first = await runCli(['--data', data, ...args, '--json'], { ...TEST_ENV, SESSION_MEMORY_TEST_CRASH: crash.point });
  expect(first.signal, `${label}: the crash point was not reached (${first.stderr})`).toBe('SIGKILL');
  totals.kills++;

  const again = await runCli(['--data', data, ...args, '--json'], TEST_ENV);
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

describe('a save killed at any point, then run again, leaves what one clean run leaves', () => {
  const T: SessionInput = realisticConversation(SESSION, 160, 11);
  let file: string;
  let expectedFirst: Shown;
  let saved: string; // a store holding T, copied into each overwrite / sync-deletes trial
  let firstSaveMs: number;

  beforeAll(async () => {
    file = await writeJson('t.json', T);
    saved = path.join(root, 'saved');
    const clean = await runCli(['--data', saved, 'save', file, '--json'], TEST_ENV);
    expect(clean.status, clean.stderr).toBe(0);
    firstSaveMs = saveMs(clean.stdout);
    expectedFirst = await snapshot(saved);
    expect(expectedFirst.messages).toHaveLength(160);
  });

  it('first saves (incremental), killed at 26 moments, store creation included', async () => {
    // The store's tables are created when the first save opens it; a kill there must not break it.
    const creation = ['create/meta:1', 'created/meta:1', 'create/chunks:1', 'create/chunks:1:2', 'created/chunks:1', 'create/sessions:1', 'created/sessions:1'];
    for (const point of creation) await trial(`save, crash at ${point}`, null, ['save', file], expectedFirst, { point });
    const points = ['commit:1', 'commit:3', 'committed:1', 'committed:4', 'committed:9', 'rename/.archived_sessions.json:1', 'history:1', 'optimize:1:1', 'optimize:1:30', 'committed:15', 'sketch:1'];
    for (const point of points) await trial(`save, crash at ${point}`, null, ['save', file], expectedFirst, { point });
    const random = seededRandom(SEED);
    for (let i = 0; i < 8; i++) {
      const kill = randomKill(random, firstSaveMs);
      await trial(`save, killed at ${kill.point}`, null, ['save', file], expectedFirst, kill);
    }
  }, TRIALS_TIMEOUT);

  it('forced overwrites, killed at 7 moments', async () => {
    const next: SessionInput = { ...T, messages: T.messages.filter((_, i) => i % 5 !== 2).map((m, i) => (i % 7 === 0 ? { ...m, content: `${m.content} (revised)` } : m)) };
    next.messages.push(...realisticConversation(SESSION, 180, 11).messages.slice(160));
    const overwriteFile = await writeJson('overwrite.json', next);
    const reference = path.join(root, 'overwrite-ref');
    cpSync(saved, reference, { recursive: true });
    const clean = await runCli(['--data', reference, 'save', overwriteFile, '--mode', 'overwrite', '--json'], TEST_ENV);
    expect(clean.status, clean.stderr).toBe(0);
    const cleanMs = saveMs(clean.stdout);
    const expected = await snapshot(reference);
    for (const point of ['commit:1', 'committed:1', 'rename/.archived_sessions.json:1', 'history:1']) {
      await trial(`overwrite, crash at ${point}`, saved, ['save', overwriteFile, '--mode', 'overwrite'], expected, { point });
    }
    const random = seededRandom(SEED + 1);
    for (let i = 0; i < 3; i++) await trial('overwrite, killed at random', saved, ['save', overwriteFile, '--mode', 'overwrite'], expected, randomKill(random, cleanMs));
  }, TRIALS_TIMEOUT);

  it('sync-deletes saves, killed at 7 moments', async () => {
    const next: SessionInput = { ...T, messages: T.messages.filter((_, i) => i % 6 !== 1) };
    next.messages.push(...realisticConversation(SESSION, 200, 11).messages.slice(160));
    const syncFile = await writeJson('sync.json', next);
    const reference = path.join(root, 'sync-ref');
    cpSync(saved, reference, { recursive: true });
    const clean = await runCli(['--data', reference, 'save', syncFile, '--sync-deletes', '--json'], TEST_ENV);
    expect(clean.status, clean.stderr).toBe(0);
    const cleanMs = saveMs(clean.stdout);
    const expected = await snapshot(reference);
    expect(expected.messages).toHaveLength(next.messages.length);
    for (const point of ['commit:1', 'committed:1', 'committed:3', 'rename/.archived_sessions.json:1', 'optimize:1:10']) {
      await trial(`sync-deletes, crash at ${point}`, saved, ['save', syncFile, '--sync-deletes'], expected, { point });
    }
    const random = seededRandom(SEED + 2);
    for (let i = 0; i < 2; i++) await trial('sync-deletes, killed at random', saved, ['save', syncFile, '--sync-deletes'], expected, randomKill(random, cleanMs));
  }, TRIALS_TIMEOUT);

  afterAll(() => {
    // Every trial is a kill that landed: 26 first saves, 7 overwrites, 7 sync-deletes saves.
    expect(totals.kills - totals.purgeKills).toBe(40);
  });
});

/**
 * Forgetting messages and `redact` save first, then purge every file of the old text. Killed at any
 * moment between (and inside both steps), the same command run again (or another writer, such as a
 * save of another session) finishes the purge: the text is in no file, and the store is what one
 * clean run leaves.
 */
describe('forgetting messages and redact, killed at any point, are finished by the next writer', () => {
  const FORGOTTEN = 'Marmosets-4419 adore the pomegranate orchard behind my grandmother\'s cottage';
  const FM = 'forget-crash';
  const random = seededChars(11);
  const TOKEN = 'ghp_' + random('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 36);
  let base: string; // the session with the message to forget, saved
  let leaky: string; // two sessions holding a token, saved without redaction
  let otherFile: string;

  const withMessage = (s: SessionInput, at: number, msgId: string, content: string): SessionInput => ({ ...s, messages: [...s.messages.slice(0, at), { msgId, role: 'user', content }, ...s.messages.slice(at)] });

  beforeAll(async () => {
    base = path.join(root, 'forget-base');
    const fmFile = await writeJson('forget.json', withMessage(realisticConversation(FM, 40, 5), 12, 'secret-msg', FORGOTTEN));
    expect((await runCli(['--data', base, 'save', fmFile], TEST_ENV)).status).toBe(0);
    otherFile = await writeJson('other.json', realisticConversation('other', 12, 6));
    leaky = path.join(root, 'redact-base');
    for (const [i, id] of ['leaky-1', 'leaky-2'].entries()) {
      const file = await writeJson(`${id}.json`, withMessage(realisticConversation(id, 30, 7 + i), 9 + i, `${id}-token`, `Use ${TOKEN} to push the release branch.`));
      expect((await runCli(['--data', leaky, 'save', file, '--no-redact'], TEST_ENV)).status).toBe(0);
    }
    expect(filesWithTrace(base, FORGOTTEN).length).toBeGreaterThan(0);
  }, TRIALS_TIMEOUT);

  /** Copies `from`, runs `args` killed at `point`, then `then` (the same command, or another writer), and checks files and store. */
  async function purgeTrial(label: string, from: string, args: string[], point: string, then: string[], check: (data: string, rerun: { stdout: string }) => Promise<void>): Promise<void> {
    totals.trials++;
    const data = path.join(root, `trial-${totals.trials}`);
    cpSync(from, data, { recursive: true });
    const first = await runCli(['--data', data, ...args, '--json'], { ...TEST_ENV, SESSION_MEMORY_TEST_CRASH: point });
    expect(first.signal, `${label}: the crash point was not reached (${first.stderr})`).toBe('SIGKILL');
    totals.kills++;
    totals.purgeKills++;
    const again = await runCli(['--data', data, ...then, '--json'], TEST_ENV);
    expect(again.status, `${label}: ${then.join(' ')} failed: ${again.stderr}`).toBe(0);
    await check(data, again);
    expect(await withHashStore(data, (engine) => engine.verify()), label).toMatchObject({ ok: true, problems: [] });
    await fs.rm(data, { recursive: true, force: true });
  }

  it('forget --messages, killed at 7 moments, then run again or followed by a save', async () => {
    const reference = path.join(root, 'forget-ref');
    cpSync(base, reference, { recursive: true });
    const command = ['forget', FM, '--messages', 'secret-msg'];
    expect((await runCli(['--data', reference, ...command, '--json'], TEST_ENV)).status).toBe(0);
    const expected = await snapshot(reference, FM);
    expect(expected.messages).toHaveLength(40);
    const check = (label: string, reported: boolean) => async (data: string, rerun: { stdout: string }) => {
      if (reported) expect(jsonLines(rerun.stdout), label).toEqual([{ sessionId: FM, messagesRemoved: 1, chunksRemoved: expect.any(Number) }]);
      expect(filesWithTrace(data, FORGOTTEN), label).toEqual([]);
      expect(await snapshot(data, FM), label).toEqual(expected);
    };
    // Before the save, inside it (the record, the history), between save and purge, inside the purge.
    for (const point of ['forget-messages-journal:1', 'rename/.archived_sessions.json:1', 'history:1', 'forget-messages-saved:1', 'purge:1', 'purge-rewritten:1']) {
      await purgeTrial(`forget --messages, crash at ${point}`, base, command, point, command, check(point, true));
    }
    await purgeTrial('forget --messages, crash at forget-messages-saved:1, then a save of another session', base, command, 'forget-messages-saved:1', ['save', otherFile], check('a save after the kill', false));
  }, TRIALS_TIMEOUT);

  it('redact, killed at 6 moments, then run again', async () => {
    const reference = path.join(root, 'redact-ref');
    cpSync(leaky, reference, { recursive: true });
    expect((await runCli(['--data', reference, 'redact', '--json'], TEST_ENV)).status).toBe(0);
    const expected = [await snapshot(reference, 'leaky-1'), await snapshot(reference, 'leaky-2')];
    expect(expected[0]!.chunks.some((c) => c.text.includes('[REDACTED:github-token]'))).toBe(true);
    const check = (label: string) => async (data: string) => {
      expect(filesWithTrace(data, TOKEN), label).toEqual([]);
      expect([await snapshot(data, 'leaky-1'), await snapshot(data, 'leaky-2')], label).toEqual(expected);
    };
    // After the first and the second session's save, inside a save, inside the purge.
    for (const point of ['redact-saved:1', 'redact-saved:2', 'committed:1', 'history:2', 'purge:1', 'purge-rewritten:1']) {
      await purgeTrial(`redact, crash at ${point}`, leaky, ['redact'], point, ['redact'], check(point));
    }
  }, TRIALS_TIMEOUT);
});
