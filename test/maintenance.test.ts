import * as lancedb from '@lancedb/lancedb';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { conversation, openEngine, tempDir } from './helpers/engine.js';

async function vectorIndex(storeDir: string): Promise<{ indexed: number; unindexed: number } | null> {
  const db = await lancedb.connect(storeDir);
  try {
    const chunks = await db.openTable('chunks');
    const index = (await chunks.listIndices()).find((i) => i.columns[0] === 'vector');
    return index ? { indexed: index.numIndexedRows ?? -1, unindexed: index.numUnindexedRows ?? -1 } : null;
  } finally {
    db.close();
  }
}
const vectorIndexed = async (storeDir: string) => (await vectorIndex(storeDir)) !== null;

describe('maintenance: the vector index of a large store', () => {
  // The subject is the index's upkeep, not the model: the hashing stand-in embeds the ~1,000 messages
  // (a text's words give its vector, so the search still finds them by their words), and no model loads.
  let embedder: HashEmbedder;
  beforeAll(async () => {
    embedder = new HashEmbedder();
  });
  afterAll(async () => {
    await embedder.close();
  });

  it('is built by maintain() while saves go on, without disturbing the archive record, and is not built by saves', async () => {
    const { dir, cleanup } = tempDir();
    try {
      // A small threshold stands in for the 50k chunks of a real store.
      const engine = await openEngine(dir, embedder, { vectorIndexMinRows: 300, optimizeEvery: 2 });
      for (let s = 0; s < 4; s++) await engine.save(conversation(240, { sessionId: `s${s}`, start: s * 1000 }));
      const chunks = await engine.store.countChunks();
      expect(chunks).toBeGreaterThanOrEqual(300);
      // Saves (and their periodic compactions, every 2 commits here) never build it: that would hold the write lock for minutes.
      expect(await vectorIndexed(path.join(dir, 'lancedb'))).toBe(false);
      expect(await engine.maintenanceDue()).toBe(true);

      const maintenance = engine.maintain();
      // Saves during the build: one new session, one grown.
      const during = await Promise.all([
        engine.save(conversation(20, { sessionId: 'during' })),
        engine.save(conversation(250, { sessionId: 's0', start: 0 })),
      ]);
      const report = await maintenance;
      expect(report.vectorIndexBuilt).toBe(true);
      expect(report.chunks).toBeGreaterThan(chunks);
      expect(during.map((r) => r.new)).toEqual([20, 10]);

      expect(await vectorIndexed(path.join(dir, 'lancedb'))).toBe(true);
      expect(await engine.maintenanceDue()).toBe(false);
      // The record still describes the store: nothing is rebuilt, nothing is reported.
      const verify = await engine.verify();
      expect(verify.problems).toEqual([]);
      expect(verify.messages).toBe(4 * 240 + 20 + 10);
      const resave = await engine.save(conversation(250, { sessionId: 's0', start: 0 }));
      expect(resave.skippedSession).toBe(true);
      expect(resave.warnings).toEqual([]);
      const hits = await engine.search('marathon training shoes', { limit: 5 });
      expect(hits.length).toBe(5);
      expect(hits[0]!.text).toMatch(/marathon|training|shoes|pace|running/);
      // Nothing more to do.
      expect((await engine.maintain()).vectorIndexBuilt).toBe(false);

      // Forgetting rewrites the files but keeps the index, covering every row that is left: search
      // right after it does not fall back to scanning every vector.
      await engine.forget(['s1']);
      const left = await engine.store.countChunks();
      expect(await vectorIndex(path.join(dir, 'lancedb'))).toEqual({ indexed: left, unindexed: 0 });
      expect(await engine.maintenanceDue()).toBe(false);
      expect((await engine.search('marathon training shoes', { limit: 5 })).length).toBe(5);
      await engine.close();
    } finally {
      cleanup();
    }
  });
});
