/**
 * Crash at any point, on a shared store: the crash suite's first-save trials (test/crash.test.ts)
 * against an `s3+ddb://` store on real S3 and DynamoDB servers. `save` runs in a child process and
 * is killed with SIGKILL at exact moments (creating the tables, before and after commits, while the
 * history is appended, inside a compaction) and at random times; the same save run again must leave
 * what one clean run leaves, and the write lease the killed process held is taken over at once.
 * Forgetting messages killed between its save and its purge is finished by running it again, and
 * the forgotten text is then in no object of the bucket. The run after a kill is the same machine
 * (its local folder and name) and runs the CLI's code in the test's process (runCliInProcess): it
 * needs no process of its own, only another one than the dead holder of the lease.
 */
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import type { MemoryEngine } from '../electron/engine/engine.js';
import { realisticConversation, seededRandom } from '../scripts/transcriptGenerator.js';
import { HASH_EMBEDDER, jsonLines, runCli, runCliInProcess } from './helpers/cli.js';
import { tempDir, withHashStore } from './helpers/engine.js';
import { lanes } from './helpers/lanes.js';
import { startObjectStoreServers, type ObjectStoreServers } from './helpers/objectStore.js';

interface Shown {
  messages: Array<{ msgId: string; contentHash: string; chunkId: string }>;
  chunks: Array<{ chunkId: string; text: string }>;
}

const SESSION = 'crash-session';
// The subject is the bucket's state after a kill, not embedding: the hashing stand-in embeds, so that
// none of the ~40 runs loads a model (test/sharedStore.test.ts saves to a bucket with the real one).
// The lease lasts 10 minutes here (a test switch; 30 s otherwise), far beyond the minute a save waits
// for one: a re-run that succeeds has taken the killed process's lease over, not waited it out,
// however long the busy machine makes the re-run itself.
const TEST_ENV = { SESSION_MEMORY_TEST_WRITE_BATCH: '8', SESSION_MEMORY_TEST_OPTIMIZE_EVERY: '4', SESSION_MEMORY_TEST_LEASE_TTL_MS: String(10 * 60_000), ...HASH_EMBEDDER };
const SEED = Number(process.env.CRASH_SEED ?? 20261204);
const TRIALS_TIMEOUT = 15 * 60_000;
/**
 * The file's three tests run at the same time (describe.concurrent), and their 17 trials two at a
 * time: while one trial's killed process saves, another's re-run, reads and checks run in this
 * process. Each trial has its own bucket, table and local folders; each test asserts with its own
 * `expect` (the test context's), as tests running at the same time must.
 */
const twoAtATime = lanes(2);

let servers: ObjectStoreServers;
let root: string;
let cleanup: () => void;
let trials = 0;
const savedEnv = { ...process.env };

beforeAll(async () => {
  servers = await startObjectStoreServers();
  // This process reads the bucket too (see snapshot), as a machine of its own.
  Object.assign(process.env, servers.env);
  ({ dir: root, cleanup } = tempDir('sm-shared-crash-'));
}, 60_000);
afterAll(async () => {
  await servers?.close();
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  cleanup?.();
});

/** Each run is a machine of its own local folder, so nothing but the bucket carries over. */
function machineEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...servers.env, ...TEST_ENV, SESSION_MEMORY_HOME: path.join(root, `home-${trials}-${Math.random().toString(36).slice(2)}`), ...extra };
}

/** A machine with nothing of its own: a new local folder for the store on the bucket, in this process. */
function onFreshMachine<T>(store: string, job: (engine: MemoryEngine) => Promise<T>): Promise<T> {
  return withHashStore(path.join(root, `reader-${Math.random().toString(36).slice(2)}`), job, { storeUri: store });
}

/** What `show <session> --json` prints on another machine, read in this process (the CLI's show is tested in cli.test.ts). */
async function snapshot(store: string, sessionId = SESSION): Promise<Shown> {
  const parsed = (await onFreshMachine(store, (engine) => engine.showSession(sessionId))) as Shown;
  return {
    messages: parsed.messages.map(({ msgId, contentHash, chunkId }) => ({ msgId, contentHash, chunkId })),
    chunks: parsed.chunks.map(({ chunkId, text }) => ({ chunkId, text })),
  };
}

async function writeJson(name: string, value: unknown): Promise<string> {
  const file = path.join(root, name);
  await fs.writeFile(file, JSON.stringify(value));
  return file;
}

describe.concurrent('a save to a shared store killed at any point, then run again, leaves what one clean run leaves', () => {
  const T: SessionInput = realisticConversation(SESSION, 120, 11);
  let file: string;
  let expected: Shown;
  let cleanMs: number;

  beforeAll(async () => {
    file = await writeJson('t.json', T);
    const { sharedUri } = await servers.newStore('clean');
    const clean = await runCliInProcess(['--data', sharedUri, 'save', file, '--json'], machineEnv());
    expect(clean.status, clean.stderr).toBe(0);
    cleanMs = (JSON.parse(clean.stdout.trim().split('\n')[0]!) as { durationMs: number }).durationMs;
    expected = await snapshot(sharedUri);
    expect(expected.messages).toHaveLength(120);
  }, TRIALS_TIMEOUT);

  async function trial(expect: ExpectStatic, label: string, point: string): Promise<void> {
    trials++;
    const { sharedUri } = await servers.newStore(`trial-${trials}`);
    // The same machine (one local folder) runs the save, is killed, and runs it again.
    const env = machineEnv({ SESSION_MEMORY_MACHINE: 'crashing' });
    const first = await runCli(['--data', sharedUri, 'save', file, '--json'], { ...env, SESSION_MEMORY_TEST_CRASH: point });
    expect(first.signal, `${label}: the crash point was not reached (${first.stderr})`).toBe('SIGKILL');
    const again = await runCliInProcess(['--data', sharedUri, 'save', file, '--json'], env);
    // Had it not taken the dead process's lease over at once, it would have given up after a minute (locked).
    expect(again.status, `${label}: re-run failed: ${again.stderr}`).toBe(0);
    const actual = await snapshot(sharedUri);
    const ids = actual.messages.map((m) => m.msgId);
    expect({ lost: expected.messages.filter((m) => !ids.includes(m.msgId)).length, duplicated: ids.length - new Set(ids).size }, label).toEqual({ lost: 0, duplicated: 0 });
    expect(actual, label).toEqual(expected);
    // Another machine, with nothing of its own, finds the store whole (what `verify --json` prints).
    expect(await onFreshMachine(sharedUri, (engine) => engine.verify()), label).toMatchObject({ ok: true, problems: [] });
  }

  // 14 kills in two tests, so that neither holds all the trials under one timeout on a busy machine.
  it('killed at 11 moments, creating the store included', async ({ expect }) => {
    const points = ['create/meta:1', 'created/meta:1', 'create/chunks:1', 'created/sessions:1', 'commit:1', 'committed:1', 'committed:4', 'rename/.archived_sessions.json:1', 'history:1', 'optimize:1:1', 'sketch:1'];
    await twoAtATime.each(points, (point) => trial(expect, `save, crash at ${point}`, point));
  }, TRIALS_TIMEOUT);

  it('killed at 3 random moments', async ({ expect }) => {
    const random = seededRandom(SEED);
    const points = [0, 1, 2].map(() => `save:1:${Math.max(1, Math.round(cleanMs * (0.05 + 0.9 * random())))}`);
    await twoAtATime.each(points, (point) => trial(expect, `save, killed at ${point}`, point));
  }, TRIALS_TIMEOUT);
});

describe.concurrent('forget --messages on a shared store, killed between its save and its purge', () => {
  it('is finished by running it again, and the text is in no object of the bucket', async ({ expect }) => {
    const FORGOTTEN = 'Marmosets-4419 adore the pomegranate orchard behind my grandmother\'s cottage';
    const base = realisticConversation('forget-crash', 40, 5);
    base.messages.splice(12, 0, { msgId: 'secret-msg', role: 'user', content: FORGOTTEN });
    const fmFile = await writeJson('forget.json', base);
    const command = ['forget', 'forget-crash', '--messages', 'secret-msg'];
    const forgetTrial = async (point: string): Promise<void> => {
      trials++;
      const { sharedUri, bucket } = await servers.newStore(`forget-${trials}`);
      const env = machineEnv({ SESSION_MEMORY_MACHINE: 'forgetting' });
      expect((await runCliInProcess(['--data', sharedUri, 'save', fmFile], env)).status).toBe(0);
      const holding = (await servers.objects(bucket)).filter((o) => o.body.includes(Buffer.from('Marmosets-4419')));
      expect(holding.length, point).toBeGreaterThan(0);
      const first = await runCli(['--data', sharedUri, ...command, '--json'], { ...env, SESSION_MEMORY_TEST_CRASH: point });
      expect(first.signal, `${point}: the crash point was not reached (${first.stderr})`).toBe('SIGKILL');
      const again = await runCliInProcess(['--data', sharedUri, ...command, '--json'], env);
      expect(again.status, `${point}: ${again.stderr}`).toBe(0);
      expect(jsonLines(again.stdout), point).toEqual([{ sessionId: 'forget-crash', messagesRemoved: 1, chunksRemoved: expect.any(Number) }]);
      const left = (await servers.objects(bucket)).filter((o) => o.body.toString('latin1').toLowerCase().includes('marmosets-4419'));
      expect(left.map((o) => o.key), point).toEqual([]);
      expect((await snapshot(sharedUri, 'forget-crash')).messages, point).toHaveLength(40);
    };
    await twoAtATime.each(['forget-messages-saved:1', 'purge:1', 'purge-rewritten:1'], forgetTrial);
  }, TRIALS_TIMEOUT);
});
