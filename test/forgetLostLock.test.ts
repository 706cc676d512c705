/**
 * Forgetting (sessions or messages) and redacting whose write lock another process takes over half-way
 * (its folder replaced, as after a sleep past the stale period): they stop writing at once, with the
 * lock's error, and no file of the data folder changes after the loss. Running them again under a
 * fresh lock finishes them: nothing of the other sessions is lost, nothing of the forgotten text is left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import type { MemoryEngine } from '../electron/engine/engine.js';
import type { EngineContext } from '../electron/engine/context.js';
import { assertWriteLock, LOCK_FILE } from '../electron/engine/files/writeLock.js';
import { conversation, openEngine, tempDir } from './helpers/engine.js';
import { filesWithTrace, folderSnapshot } from './helpers/files.js';

// The subject is the write lock, not embedding: the hashing stand-in embeds, and no model loads.
let embedder: HashEmbedder;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  embedder = new HashEmbedder();
});
afterAll(async () => {
  await embedder.close();
  cleanups.forEach((c) => c());
});

const SECRET = 'Quokka-5518 is what Zephyrine whispered';
const secretSession = (): SessionInput => ({
  sessionId: 'private',
  title: 'Gate codes',
  messages: [
    { msgId: 'p1', role: 'user', content: `Remember this: ${SECRET}.` },
    { msgId: 'p2', role: 'assistant', content: 'Noted.' },
    { msgId: 'p3', role: 'user', content: 'Which roses climb best on a north wall?' },
    { msgId: 'p4', role: 'assistant', content: 'Try a rambling rose such as Albéric Barbier.' },
  ],
});
const KEY = 'sk-proj-Zq8vLm2Rt5Wx9Yb3Nc6Pd1Hf4Jg7Ks0Ua2Ve5Xi8Ol';

async function store(): Promise<{ data: string; engine: MemoryEngine; ctx: EngineContext }> {
  const t = tempDir('sm-lost-lock-');
  cleanups.push(t.cleanup);
  const engine = await openEngine(t.dir, embedder);
  await engine.save(conversation(24, { sessionId: 'kept' }));
  await engine.save(secretSession());
  // The engine's parts, reached here only to lose the lock at an exact step.
  return { data: t.dir, engine, ctx: (engine as unknown as { ctx: EngineContext }).ctx };
}

/** The data folder's files, less the lock's own (which the takeover replaced). */
function snapshot(data: string): Record<string, string> {
  return Object.fromEntries(Object.entries(folderSnapshot(data)).filter(([name]) => !name.startsWith('.write.lock')));
}

/**
 * Makes `method` of `target`, at its next call, return and then lose the lock: another process takes
 * it over, and this one learns it at its next renewal. Resolves to the data folder as it was then.
 */
function loseLockAfter<T extends object>(data: string, target: T, method: keyof T & string): Promise<Record<string, string>> {
  const original = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
  return new Promise((resolve) => {
    (target as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      (target as Record<string, unknown>)[method] = original;
      const result = await original(...args);
      await fs.rm(path.join(data, LOCK_FILE), { recursive: true, force: true });
      await expect.poll(() => lockState(data), { timeout: 10_000, interval: 50 }).toBe('lost');
      resolve(snapshot(data));
      return result;
    };
  });
}

/** The same, for the `nth` hold of the lock from now: lost as soon as it is taken. */
function loseHold(data: string, ctx: EngineContext, nth: number): Promise<Record<string, string>> {
  const original = ctx.lock;
  let holds = 0;
  return new Promise((resolve) => {
    (ctx as { lock: EngineContext['lock'] }).lock = async () => {
      const release = await original();
      if (++holds === nth) {
        (ctx as { lock: EngineContext['lock'] }).lock = original;
        await fs.rm(path.join(data, LOCK_FILE), { recursive: true, force: true });
        await expect.poll(() => lockState(data), { timeout: 10_000, interval: 50 }).toBe('lost');
        resolve(snapshot(data));
      }
      return release;
    };
  });
}

function lockState(data: string): 'held' | 'lost' {
  try {
    assertWriteLock(data);
    return 'held';
  } catch {
    return 'lost';
  }
}

/** Whether the store's state still names this journal's work as owed (record/storeState.ts). */
async function owed(engine: MemoryEngine, name: 'forget' | 'purge'): Promise<boolean> {
  return (await (engine as unknown as { ctx: EngineContext }).ctx.state.get('journal', name)) !== null;
}

const LOST = /write lock of .* was lost .*stopped writing/;

async function expectForgotten(engine: MemoryEngine, data: string): Promise<void> {
  expect((await engine.listSessions()).map((s) => s.sessionId)).toEqual(['kept']);
  expect((await engine.showSession('kept')).messages).toHaveLength(24);
  expect(filesWithTrace(data, SECRET)).toEqual([]);
  expect(await owed(engine, 'forget')).toBe(false);
  expect(await owed(engine, 'purge')).toBe(false);
  expect((await engine.history('private')).filter((e) => e.forgotten)).toHaveLength(1);
  expect((await engine.verify()).problems).toEqual([]);
}

describe('a forget or redact whose write lock is lost', () => {
  it('forgetting a session, the lock lost as soon as it is taken: nothing is written, and forgetting again does it all', async () => {
    const { data, engine, ctx } = await store();
    const atLoss = loseHold(data, ctx, 1);
    await expect(engine.forget(['private'])).rejects.toThrow(LOST);
    expect(snapshot(data)).toEqual(await atLoss);
    expect((await engine.listSessions()).map((s) => s.sessionId).sort()).toEqual(['kept', 'private']);

    expect(await engine.forget(['private'])).toEqual([{ sessionId: 'private', messagesRemoved: 4, chunksRemoved: expect.any(Number) }]);
    await expectForgotten(engine, data);
    await engine.close();
  });

  it('forgetting a session, the lock lost once the store is purged: the history and the other files are left alone, and forgetting again finishes it', async () => {
    const { data, engine, ctx } = await store();
    // The last step before the history is rewritten: the near-duplicate files drop the session.
    const atLoss = loseLockAfter(data, ctx.sketch, 'compact');
    await expect(engine.forget(['private'])).rejects.toThrow(LOST);
    expect(snapshot(data)).toEqual(await atLoss);
    // The journal still says what is being forgotten: the next writer finishes it.
    expect(await owed(engine, 'forget')).toBe(true);

    expect(await engine.forget(['private'])).toEqual([{ sessionId: 'private', messagesRemoved: 4, chunksRemoved: expect.any(Number) }]);
    await expectForgotten(engine, data);
    await engine.close();
  });

  it('forgetting messages, the lock lost as soon as it is taken: no purge is recorded as owed, and forgetting them again does it', async () => {
    const { data, engine, ctx } = await store();
    const atLoss = loseHold(data, ctx, 1);
    await expect(engine.forgetMessages('private', ['p1'])).rejects.toThrow(LOST);
    expect(snapshot(data)).toEqual(await atLoss);

    expect(await engine.forgetMessages('private', ['p1'])).toEqual({ sessionId: 'private', messagesRemoved: 1, chunksRemoved: expect.any(Number) });
    expect((await engine.showSession('private')).messages.map((m) => m.msgId)).toEqual(['p2', 'p3', 'p4']);
    expect((await engine.showSession('kept')).messages).toHaveLength(24);
    expect(filesWithTrace(data, SECRET)).toEqual([]);
    expect(await owed(engine, 'purge')).toBe(false);
    await engine.close();
  });

  it('redacting, the lock of its purge lost: the store is not rewritten under it, and redacting again finishes the purge', async () => {
    const { data, engine, ctx } = await store();
    await engine.save({ sessionId: 'keys', messages: [{ msgId: 'k1', role: 'user', content: `my key is ${KEY}, keep it safe` }, { msgId: 'k2', role: 'assistant', content: 'I will.' }] }, { redact: false });
    // Its holds: the work left owed, the session saved redacted, then the purge of the old copies.
    const atLoss = loseHold(data, ctx, 3);
    await expect(engine.redact()).rejects.toThrow(LOST);
    expect(snapshot(data)).toEqual(await atLoss);
    expect(await owed(engine, 'purge')).toBe(true);

    await engine.redact();
    expect(filesWithTrace(data, KEY)).toEqual([]);
    expect((await engine.showSession('keys')).messages[0]!.content).toMatch(/my key is \[REDACTED:[^\]]+\], keep it safe/);
    expect(await owed(engine, 'purge')).toBe(false);
    expect((await engine.showSession('kept')).messages).toHaveLength(24);
    expect((await engine.verify()).problems).toEqual([]);
    await engine.close();
  });
});
