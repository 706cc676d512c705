/**
 * The hashing stand-in that tests not about embedding use instead of the model: deterministic unit
 * vectors that bring texts sharing words closer, and an engine that takes it only in a test run that
 * asks for it (`SESSION_MEMORY_TEST_EMBEDDER=hash`), recording it as the store's model.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HASH_TEST_MODEL, HashEmbedder, hashVector } from '../electron/embedding/hashEmbedder.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import { conversation, scratchDirs } from './helpers/engine.js';
import { TEST_MODELS_DIR } from './helpers/model.js';

const dir = scratchDirs('sm-hash-');
const savedEnv = { ...process.env };
afterEach(() => {
  for (const key of ['SESSION_MEMORY_TEST_EMBEDDER', 'SESSION_MEMORY_TEST_RUN']) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
});

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);

describe('the hashing stand-in', () => {
  it('gives the same unit vector for the same text, and texts sharing words are closer than texts sharing none', async () => {
    const embedder = new HashEmbedder();
    const [a, again, near, far, han, blank] = await embedder.embed(['Water the tomatoes weekly', 'water the TOMATOES weekly!', 'the tomatoes need compost', 'train tickets to Lisbon', '我喜欢番茄', '...']);
    expect(again).toEqual(a);
    for (const v of [a!, near!, far!, han!, blank!]) expect(dot(v, v)).toBeCloseTo(1, 5);
    expect(dot(a!, near!)).toBeGreaterThan(dot(a!, far!));
    // Han characters are words of their own: a text sharing some of them is closer than one sharing none.
    expect(dot(han!, hashVector('番茄很好'))).toBeGreaterThan(dot(han!, hashVector('火车票')));
    expect(embedder.dim).toBe(a!.length);
  });

  it('is the engine\'s embedder in a test run that asks for it, and the store records it as its model', async () => {
    process.env.SESSION_MEMORY_TEST_EMBEDDER = 'hash';
    const dataDir = dir();
    const engine = await MemoryEngine.open({ dataDir, model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
    try {
      expect(engine.model).toBe(HASH_TEST_MODEL);
      expect((await engine.save(conversation(6))).embeddingsComputed).toBeGreaterThan(0);
      expect((await engine.search('tomatoes watering', { limit: 1 }))[0]?.sessionId).toBe('session-a');
    } finally {
      await engine.close();
    }
    // Its store is never read with a real model, nor a real model's store with it.
    delete process.env.SESSION_MEMORY_TEST_EMBEDDER;
    await expect(MemoryEngine.open({ dataDir, model: 'use-lite-en', modelsDir: TEST_MODELS_DIR })).rejects.toMatchObject({ code: 'model_mismatch' });
  });

  it('is never used outside a test run, whatever the environment says', async () => {
    process.env.SESSION_MEMORY_TEST_EMBEDDER = 'hash';
    delete process.env.SESSION_MEMORY_TEST_RUN;
    const engine = await MemoryEngine.open({ dataDir: path.join(dir(), 'data'), model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
    try {
      expect(engine.model).toBe('use-lite-en');
    } finally {
      await engine.close();
    }
  });
});
