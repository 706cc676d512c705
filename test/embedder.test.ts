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
import { conversation, openEngine, tempDir } from './helpers/engine.js';
import { TEST_MODELS_DIR } from './helpers/model.js';

const FAULTY_WORKER = new URL('./helpers/faultyEmbedWorker.mjs', import.meta.url);
const CLOSE_WHILE_EMBEDDING = fileURLToPath(new URL('./helpers/closeWhileEmbedding.mts', import.meta.url));

afterEach(() => {
  delete process.env.SM_FAULT;
});

async function faultyEmbedder(fault: string, batchTimeoutMs?: number): Promise<WorkerEmbedder> {
  process.env.SM_FAULT = fault;
  // One worker: the tests follow what its failure does to a save (a second would take the save's later batches).
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
  it('sleep rather than spin: one-text requests, as an edit makes, cost a fraction of the CPU of ONNX Runtime\'s default threads, with the same vectors', async () => {
    // ONNX Runtime's threads spin after each model call by default, taking a core from the commit
    // that follows an edit's one embedding. CPU time of the whole process (the worker threads and
    // the model's threads are in it), so the machine's load does not decide the outcome.
    const run = async (options: { spinning?: boolean; workers?: number }) => {
      const embedder = await WorkerEmbedder.start('use-lite-en', { modelsDir: TEST_MODELS_DIR, ...options });
      try {
        await embedder.embed(['warm up']);
        const vectors: Float32Array[] = [];
        const before = process.cpuUsage();
        for (let i = 0; i < 20; i++) {
          vectors.push(...(await embedder.embed([`the message edited a moment ago, number ${i}`])));
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        const used = process.cpuUsage(before);
        return { cpuMs: (used.user + used.system) / 1000, vectors, workers: embedder.workersRunning };
      } finally {
        await embedder.close();
      }
    };
    // A plain transformers.js caller: one worker, ONNX Runtime's default threads.
    const plain = await run({ spinning: true, workers: 1 });
    for (const options of [{}, { workers: 1 }]) {
      const ours = await run(options);
      expect(ours.workers, 'one-text requests keep to one worker').toBe(1);
      expect(ours.cpuMs, `CPU of 20 requests (${JSON.stringify(options)}): ${ours.cpuMs.toFixed(0)} ms, ${plain.cpuMs.toFixed(0)} ms with spinning threads`).toBeLessThan(plain.cpuMs / 2);
      ours.vectors.forEach((v, i) => v.forEach((x, k) => expect(Math.abs(x - plain.vectors[i]![k]!)).toBeLessThan(1e-6)));
    }
  });
});

describe('workers side by side', () => {
  it('a save\'s batches in flight start a second worker, which embeds the same vectors and stops once idle; closing stops them all', async () => {
    const texts = Array.from({ length: 768 }, (_, i) => `chunk ${i}: the tomato seedlings go outside after the last frost, when nights stay above ${i % 15} degrees`);
    const single = await WorkerEmbedder.start('use-lite-en', { modelsDir: TEST_MODELS_DIR, workers: 1 });
    const pooled = await WorkerEmbedder.start('use-lite-en', { modelsDir: TEST_MODELS_DIR, workers: 2, idleWorkerMs: 1_500 });
    try {
      // 24 batches: the second worker loads the model while the first embeds, and takes batches once ready.
      const batches = Array.from({ length: 24 }, (_, b) => texts.slice(b * 32, b * 32 + 32));
      const alone = (await Promise.all(batches.map((batch) => single.embed(batch)))).flat();
      // Requests as a save sends them: three batches in flight, the next sent as one comes back.
      const side: Float32Array[][] = [];
      const inFlight = batches.slice(0, 3).map((batch) => pooled.embed(batch));
      for (let b = 0; b < batches.length; b++) {
        side.push(await inFlight[b]!);
        if (batches[b + 3]) inFlight.push(pooled.embed(batches[b + 3]!));
      }
      expect(single.workersRunning).toBe(1);
      expect(pooled.workersRunning).toBe(2);
      expect(pooled.workerStarts).toBe(2);
      side.flat().forEach((v, i) => v.forEach((x, k) => expect(Math.abs(x - alone[i]![k]!)).toBeLessThan(1e-6)));
      // A second worker holds the model in memory: with nothing to do it stops; the first stays.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(pooled.workersRunning).toBe(1);
      expect(await pooled.embed(['still answered'])).toHaveLength(1);
    } finally {
      await single.close();
      await pooled.close();
    }
    expect(pooled.workersRunning).toBe(0);
    await expect(pooled.embed(['after close'])).rejects.toThrow(/closed/);
  });
});
