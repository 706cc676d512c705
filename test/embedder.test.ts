/**
 * The embedding worker crashing or getting stuck in the middle of a save: the save fails with a
 * clear error and releases the write lock, the store keeps what it had, and the next save starts a
 * new worker and goes through.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { modelSessionOptions } from '../electron/embedding/embeddingThreads.js';
import { conversation, openEngine, tempDir } from './helpers/engine.js';
import { TEST_MODELS_DIR } from './helpers/model.js';

const FAULTY_WORKER = new URL('./helpers/faultyEmbedWorker.mjs', import.meta.url);
const CLOSE_WHILE_EMBEDDING = fileURLToPath(new URL('./helpers/closeWhileEmbedding.mts', import.meta.url));

afterEach(() => {
  delete process.env.SM_FAULT;
});

async function faultyEmbedder(fault: string, batchTimeoutMs?: number): Promise<WorkerEmbedder> {
  process.env.SM_FAULT = fault;
  // One worker: what its failure does to a save (two workers: below).
  const embedder = await WorkerEmbedder.start('use-lite-en', { modelsDir: TEST_MODELS_DIR, workerUrl: FAULTY_WORKER, workers: 1, ...(batchTimeoutMs ? { batchTimeoutMs } : {}) });
  // Workers started from now on are healthy.
  delete process.env.SM_FAULT;
  return embedder;
}

describe('the embedding worker fails in the middle of a save', () => {
  for (const [fault, expected, timeout] of [
    ['crash:2', /the embedding worker stopped \(exit code 3\)/, undefined],
    ['hang:2', /the embedding worker gave no answer in 2 s; it was stopped and will be restarted/, 2_000],
  ] as const) {
    it(`${fault.split(':')[0]}: the save fails with a clear error, the lock is released, nothing is half-stored, and the next save restarts the worker`, async () => {
      const { dir, cleanup } = tempDir();
      const embedder = await faultyEmbedder(fault, timeout);
      try {
        // 400 messages make several batches of chunks to embed: the worker fails at the second.
        const engine = await openEngine(dir, embedder, { lockWaitMs: 1_000 });
        await engine.save(conversation(4, { sessionId: 'before' }));
        const started = Date.now();
        await expect(engine.save(conversation(400, { sessionId: 'interrupted', topicEvery: 2 }))).rejects.toThrow(expected);
        expect(Date.now() - started).toBeLessThan(30_000);
        expect(embedder.workerStarts).toBe(1);

        // The lock is free (the next save does not wait for it), and a new worker embeds.
        const report = await engine.save(conversation(400, { sessionId: 'interrupted', topicEvery: 2 }));
        expect(embedder.workerStarts).toBe(2);
        expect(report.total).toBe(400);
        expect((await engine.showSession('interrupted')).messages).toHaveLength(400);
        expect((await engine.showSession('before')).messages).toHaveLength(4);
        const verify = await engine.verify();
        expect(verify.problems).toEqual([]);
        await engine.close();
      } finally {
        await embedder.close();
        cleanup();
      }
    });
  }

  it('close() returns within its deadline even when the worker is stuck', async () => {
    const embedder = await faultyEmbedder('hang:1', 60_000);
    const pending = embedder.embed(['a text that gets no answer']).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    const closing = Date.now();
    await embedder.close();
    expect(await pending).toMatch(/closed/);
    expect(Date.now() - closing).toBeLessThan(6_000);
  });

  it('closing while the model embeds ends the request, not the process', async () => {
    // The model runs in a synchronous native call: a worker thread terminated inside it aborted the
    // whole process as the call returned ("terminate called after throwing an instance of
    // 'Napi::Error'"). A request of 3,000 texts keeps the model busy for seconds; closing at three
    // moments of it lands inside a model call at least once.
    for (const delay of [150, 400, 800]) {
      const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', CLOSE_WHILE_EMBEDDING, TEST_MODELS_DIR, String(delay)], { timeout: 120_000 }).catch(
        (error: { code?: number; signal?: string; stdout?: string; stderr?: string }) => ({ failed: `exit ${error.code ?? error.signal}`, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
      );
      expect('failed' in run ? `${run.failed}: ${run.stderr}` : run.stderr, `closed after ${delay} ms`).not.toMatch(/terminate called|exit/);
      expect(run.stdout).toMatch(/request: the embedder was closed/);
    }
  });
});

describe('the model threads between requests', () => {
  it('sleep rather than spin unless asked, with the same vectors either way', async () => {
    // ONNX Runtime's threads spin after each model call by default, taking a core from the commit that
    // follows an edit's one embedding: the engine's sessions turn that off (embeddingThreads.ts). The
    // CPU either way is measured by scripts/bench-idle-threads.ts, not here: spinning threads spin only
    // when the scheduler gives them a core, so a figure taken beside other test files says little.
    expect(modelSessionOptions(false)).toEqual({ extra: { session: { intra_op: { allow_spinning: '0' } } } });
    expect(modelSessionOptions(true)).toEqual({});
    expect(modelSessionOptions(false, 1)).toEqual({ extra: { session: { intra_op: { allow_spinning: '0' } } }, intraOpNumThreads: 1 });
    const run = async (options: { spinning?: boolean }) => {
      const embedder = await WorkerEmbedder.start('use-lite-en', { modelsDir: TEST_MODELS_DIR, workers: 1, ...options });
      try {
        const vectors: Float32Array[] = [];
        for (let i = 0; i < 5; i++) vectors.push(...(await embedder.embed([`the message edited a moment ago, number ${i}`])));
        return vectors;
      } finally {
        await embedder.close();
      }
    };
    const spinning = await run({ spinning: true });
    const sleeping = await run({});
    expect(sleeping).toHaveLength(5);
    sleeping.forEach((v, i) => v.forEach((x, k) => expect(Math.abs(x - spinning[i]![k]!)).toBeLessThan(1e-6)));
  });
});

describe('two workers embed side by side', () => {
  const texts = Array.from({ length: 96 }, (_, i) => `message ${i}: the apple tree wants pruning before the frost, said the gardener on day ${i % 13}`);
  const requests = [texts.slice(0, 32), texts.slice(32, 64), texts.slice(64)];
  const until = async (check: () => boolean) => {
    for (let waited = 0; !check(); waited += 50) {
      if (waited > 20_000) throw new Error('the second worker did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('requests piling up on the first worker start the second; one-text requests and short bursts never do; the vectors are one worker\'s', async () => {
    const one = await WorkerEmbedder.start('use-lite-en', { modelsDir: TEST_MODELS_DIR, workers: 1 });
    const two = await WorkerEmbedder.start('use-lite-en', { modelsDir: TEST_MODELS_DIR, workers: 2 });
    try {
      for (let i = 0; i < 5; i++) await two.embed([`the message edited a moment ago, number ${i}`]);
      await Promise.all([two.embed(texts.slice(0, 32)), two.embed(texts.slice(32, 50))]);
      expect(two.workerStarts).toBe(1);
      // Three requests in flight, as a first save sends them: the third finds two under way on the first worker.
      await Promise.all(requests.map((request) => two.embed(request)));
      expect(two.workerStarts).toBe(2);
      await until(() => two.runningWorkers === 2);
      // Now both embed: the requests go to the one with fewer under way.
      const pooled = (await Promise.all(requests.map((request) => two.embed(request)))).flat();
      const alone = (await Promise.all(requests.map((request) => one.embed(request)))).flat();
      expect(pooled).toHaveLength(texts.length);
      pooled.forEach((v, i) => v.forEach((x, k) => expect(Math.abs(x - alone[i]![k]!)).toBeLessThan(1e-5)));
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('the second worker ends once it has had nothing to do for a while, and the next pile of requests starts it again', async () => {
    const embedder = await WorkerEmbedder.start('use-lite-en', { modelsDir: TEST_MODELS_DIR, workers: 2, spareIdleMs: 300 });
    try {
      await Promise.all(requests.map((request) => embedder.embed(request)));
      await until(() => embedder.runningWorkers === 2);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(embedder.runningWorkers).toBe(1);
      // The first stays, and serves alone what comes one at a time.
      expect(await embedder.embed(['a search'])).toHaveLength(1);
      expect(embedder.workerStarts).toBe(2);
      await Promise.all(requests.map((request) => embedder.embed(request)));
      expect(embedder.workerStarts).toBe(3);
    } finally {
      await embedder.close();
    }
  });

  it('a worker that crashes fails the requests it held, not the other worker\'s, and a later pile of requests starts it again', async () => {
    const embedder = await WorkerEmbedder.start('use-lite-en', { modelsDir: TEST_MODELS_DIR, workerUrl: FAULTY_WORKER, workers: 2 });
    try {
      // The second worker starts with the fault (a worker reads the environment as it starts): it exits at its first batch.
      process.env.SM_FAULT = 'crash:1';
      const first = Promise.all(requests.map((request) => embedder.embed(request)));
      delete process.env.SM_FAULT;
      expect((await first).flat()).toHaveLength(texts.length);
      await until(() => embedder.runningWorkers === 2);
      const [onFirst, onSecond] = await Promise.allSettled([embedder.embed(requests[0]!), embedder.embed(requests[1]!)]);
      expect(onFirst.status).toBe('fulfilled');
      expect(onSecond.status === 'rejected' && String(onSecond.reason)).toMatch(/the embedding worker stopped \(exit code 3\)/);
      expect(embedder.runningWorkers).toBe(1);
      const again = await Promise.all(requests.map((request) => embedder.embed(request)));
      expect(again.flat()).toHaveLength(texts.length);
      expect(embedder.workerStarts).toBe(3);
    } finally {
      await embedder.close();
    }
  });
});
