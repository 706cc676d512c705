import * as lancedb from '@lancedb/lancedb';
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import type { MessageInput, SessionInput } from '../../shared/domain.js';
import { WorkerEmbedder, type Embedder } from '../../electron/embedding/embedder.js';
import { HashEmbedder } from '../../electron/embedding/hashEmbedder.js';
import { MemoryEngine, type MemoryEngineOptions } from '../../electron/engine/engine.js';
import { TEST_MODELS_DIR } from './model.js';

export function tempDir(prefix = 'sm-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Temporary folders for the tests of one file, removed after them. Call at the top level of a test file. */
export function scratchDirs(prefix: string): () => string {
  const cleanups: Array<() => void> = [];
  afterAll(() => cleanups.forEach((cleanup) => cleanup()));
  return () => {
    const { dir, cleanup } = tempDir(prefix);
    cleanups.push(cleanup);
    return dir;
  };
}

/**
 * What most engine tests of a file share: the real offline model, started once, and data folders
 * removed after the file's tests. Call at the top level of a test file.
 */
export function engineTestBed(): { embedder: () => WorkerEmbedder; dataDir: () => string; open: (dataDir: string, extra?: Partial<MemoryEngineOptions>) => Promise<MemoryEngine> } {
  let embedder: WorkerEmbedder | undefined;
  const cleanups: Array<() => void> = [];
  beforeAll(async () => {
    embedder = await startTestEmbedder();
  });
  afterAll(async () => {
    await embedder?.close();
    for (const cleanup of cleanups) cleanup();
  });
  return {
    embedder: () => embedder!,
    dataDir: () => {
      const { dir, cleanup } = tempDir();
      cleanups.push(cleanup);
      return dir;
    },
    open: (dataDir, extra = {}) => openEngine(dataDir, embedder!, extra),
  };
}

/**
 * `engineTestBed` for a file whose subject is not embedding: the engines embed with the hashing
 * stand-in (electron/embedding/hashEmbedder.ts), so the file loads no model. Call at the top level.
 */
export function hashEngineTestBed(): { dataDir: () => string; open: (dataDir: string, extra?: Partial<MemoryEngineOptions>) => Promise<MemoryEngine> } {
  const embedder = new HashEmbedder();
  const cleanups: Array<() => void> = [];
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });
  return {
    dataDir: () => {
      const { dir, cleanup } = tempDir();
      cleanups.push(cleanup);
      return dir;
    },
    open: (dataDir, extra = {}) => openEngine(dataDir, embedder, extra),
  };
}

/** The real offline model in a worker thread, shared by the tests of one file. */
export function startTestEmbedder(): Promise<WorkerEmbedder> {
  return WorkerEmbedder.start('use-lite-en', { modelsDir: TEST_MODELS_DIR });
}

export function openEngine(dataDir: string, embedder: Embedder, extra: Partial<MemoryEngineOptions> = {}): Promise<MemoryEngine> {
  return MemoryEngine.open({ dataDir, embedder, modelsDir: TEST_MODELS_DIR, lockWaitMs: 5_000, ...extra });
}

/**
 * Opens a store the CLI built with the hashing stand-in (`HASH_EMBEDDER`) in this process, runs `job`
 * and closes it: what `show --json` or `verify --json` print, without starting a process for each.
 * A store on object storage is given as `storeUri` (this process then needs the servers' endpoints in
 * its environment), with `dataDir` as the machine's own folder.
 */
export async function withHashStore<T>(dataDir: string, job: (engine: MemoryEngine) => Promise<T>, extra: Partial<MemoryEngineOptions> = {}): Promise<T> {
  const engine = await MemoryEngine.open({ dataDir, embedder: new HashEmbedder(), lockWaitMs: 5_000, ...extra });
  try {
    return await job(engine);
  } finally {
    await engine.close();
  }
}

const TOPICS = [
  ['garden', 'tomatoes', 'watering', 'soil', 'compost', 'seedlings'],
  ['database', 'index', 'query', 'table', 'rows', 'compaction'],
  ['travel', 'train', 'tickets', 'Lisbon', 'hotel', 'luggage'],
  ['cooking', 'risotto', 'stock', 'parmesan', 'stirring', 'rice'],
  ['running', 'marathon', 'pace', 'training', 'shoes', 'recovery'],
];

/** A deterministic, readable conversation: user questions and assistant answers about a few topics. */
export function conversation(count: number, options: { withIds?: boolean; start?: number; sessionId?: string; topicEvery?: number } = {}): SessionInput {
  const start = options.start ?? 0;
  const messages: MessageInput[] = [];
  for (let i = start; i < start + count; i++) {
    const topic = TOPICS[Math.floor(i / (options.topicEvery ?? 6)) % TOPICS.length]!;
    const w = (k: number) => topic[(i + k) % topic.length]!;
    const role = i % 2 === 0 ? 'user' : 'assistant';
    const content =
      role === 'user'
        ? `Question ${i}: how should I think about ${w(0)} and ${w(1)} when the ${w(2)} changes?`
        : `Answer ${i}: keep the ${w(0)} steady, check the ${w(3)} each week, and note how the ${w(4)} responds before changing the ${w(5)}.`;
    messages.push({ ...(options.withIds === false ? {} : { msgId: `msg-${i}` }), role, content });
  }
  return { sessionId: options.sessionId ?? 'session-a', title: 'A test conversation', messages };
}

/**
 * Turns a closed store's chunks back into the layout of stores written before `part` had a column of
 * its own: `seq` packs position * 1000 + part, and there is no part column.
 */
export async function packChunkPlaces(dataDir: string): Promise<void> {
  const db = await lancedb.connect(path.join(dataDir, 'lancedb'));
  try {
    const chunks = await db.openTable('chunks');
    await chunks.update({ valuesSql: { seq: 'seq * 1000 + part' } });
    await chunks.dropColumns(['part']);
  } finally {
    db.close();
  }
}
