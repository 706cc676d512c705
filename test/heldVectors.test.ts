/**
 * A store without a vector index is searched for nearest vectors in memory: a search view that has
 * searched before holds every chunk's vector (heldVectors.ts), reading at each later version only the
 * rows added. What it finds must be what LanceDB's search of the table finds, at every version: after
 * a save, an edit, a forget and a compaction; and a one-off search, or a store with a vector index,
 * reads the table as before.
 */
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../electron/engine/engine.js';
import type { SearchReads } from '../electron/engine/store/searchView.js';
import { rollBackToNewestReadable } from '../electron/engine/store/storeUpkeep.js';
import { conversation, hashEngineTestBed } from './helpers/engine.js';

// The subject is which rows a search compares, not the model: the hashing stand-in embeds.
const bed = hashEngineTestBed();

const reading = <T>(engine: MemoryEngine, read: (reads: SearchReads) => Promise<T> | T) => engine.store.searching(async (reads) => read(reads));

/** Searches until the view holds the vectors of every chunk (they are read beside the searches), or fails. */
async function heldAll(engine: MemoryEngine): Promise<number> {
  const chunks = await engine.store.countChunks();
  for (let i = 0; i < 100; i++) {
    if ((await reading(engine, (reads) => reads.heldVectors)) === chunks) return chunks;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the view did not come to hold the ${chunks} chunks' vectors`);
}

/**
 * The nearest candidates from memory against LanceDB's own search of the table: the same distances in
 * the same order, and the same chunks but where several lie at the last distance (the stand-in embeds
 * many chunks alike; which of those the table's search cuts at the limit is its own).
 */
async function sameAsTable(engine: MemoryEngine, vector: Float32Array, sessionId?: string): Promise<string[]> {
  const [held, table] = await reading(engine, async (reads) => [await reads.vectorCandidates(vector, 40, sessionId), await reads.vectorSearch(vector, 40, sessionId)] as const);
  expect(held).toHaveLength(table.length);
  held.forEach((c, i) => expect(c.distance).toBeCloseTo(table[i]!.distance, 5));
  const last = table[table.length - 1]!.distance;
  const within = (list: ReadonlyArray<{ chunkId: string; distance: number }>) => list.filter((h) => h.distance < last - 1e-5).map((h) => h.chunkId);
  expect(within(held)).toEqual(within(table));
  return held.map((c) => c.sessionId);
}

const lighthouse = (last: string) => ({
  sessionId: 'lighthouse',
  messages: [
    { msgId: 'l0', role: 'user' as const, content: 'When was the Skerryvore keeper relieved by the supply boat?' },
    { msgId: 'l1', role: 'assistant' as const, content: last },
  ],
});

describe('nearest vectors of a store without a vector index, held in memory', () => {
  it('finds what the table search finds, after saves, an edit, a forget and a compaction', async () => {
    const engine = await bed.open(bed.dataDir(), { optimizeEvery: 10_000 });
    try {
      await engine.save(conversation(60, { sessionId: 's0' }));
      await engine.save(conversation(60, { sessionId: 's1', start: 1000 }));
      // A one-off search reads the table: reading every vector would take longer than that search.
      expect(await reading(engine, (reads) => reads.heldVectors)).toBe(0);
      const chunks = await heldAll(engine);
      expect(chunks).toBeGreaterThan(20);

      const [s0Hit] = await reading(engine, (reads) => reads.textSearch('Question 12', 1, 's0'));
      const probe = (await engine.store.vectorsByChunkId([s0Hit!.chunkId])).get(s0Hit!.chunkId)!;
      expect(await sameAsTable(engine, probe)).toContain('s1');
      expect(new Set(await sameAsTable(engine, probe, 's1'))).toEqual(new Set(['s1']));
      const [first] = await reading(engine, (reads) => reads.vectorCandidates(probe, 1));
      expect(first).toMatchObject({ chunkId: s0Hit!.chunkId });
      expect(first!.distance).toBeCloseTo(0, 5);

      // A save: the rows added since are read, the others kept; found by their vectors.
      await engine.save(lighthouse('Every six weeks, by the boat from Hynish.'));
      expect(await heldAll(engine)).toBe(chunks + (await engine.store.countChunks(`session_id = 'lighthouse'`)));
      const [lit] = await reading(engine, (reads) => reads.textSearch('Hynish boat', 1, 'lighthouse'));
      const litVector = (await engine.store.vectorsByChunkId([lit!.chunkId])).get(lit!.chunkId)!;
      expect((await sameAsTable(engine, litVector))[0]).toBe('lighthouse');

      // An edit rewrites its chunk (the same id, a new row): its old vector is no longer held.
      expect((await reading(engine, (reads) => reads.vectorCandidates(litVector, 1)))[0]?.distance).toBeCloseTo(0, 5);
      await engine.save(lighthouse('Every month, by the tender from Scarinish.'));
      await heldAll(engine);
      expect((await reading(engine, (reads) => reads.vectorCandidates(litVector, 1)))[0]?.distance).toBeGreaterThan(0.01);
      await sameAsTable(engine, litVector);

      // A forget deletes rows of fragments read before: they go from memory too.
      await engine.forget(['s0']);
      await heldAll(engine);
      expect(await sameAsTable(engine, probe)).not.toContain('s0');

      // A compaction writes every row again in new fragments: all read again, the same answers.
      await engine.maintain();
      expect(await heldAll(engine)).toBe(await engine.store.countChunks());
      expect(await sameAsTable(engine, probe)).not.toContain('s0');
      await sameAsTable(engine, litVector, 'lighthouse');
    } finally {
      await engine.close();
    }
  });

  it('after the table is rolled back to an earlier version, holds what that version holds', async () => {
    const dataDir = bed.dataDir();
    const engine = await bed.open(dataDir, { optimizeEvery: 10_000 });
    try {
      await engine.save(conversation(60, { sessionId: 's0' }));
      await engine.save(conversation(60, { sessionId: 's1', start: 1000 }));
      await heldAll(engine);
      await engine.save(conversation(60, { sessionId: 's2', start: 2000 }));
      await heldAll(engine);
      const [s2Hit] = await reading(engine, (reads) => reads.textSearch('Question 2012', 1, 's2'));
      const probe = (await engine.store.vectorsByChunkId([s2Hit!.chunkId])).get(s2Hit!.chunkId)!;
      expect(await sameAsTable(engine, probe)).toContain('s2');
      // As `verify --repair` does: the newest version that reads whole, here the one before, restored and compacted.
      const db = await lancedb.connect(path.join(dataDir, 'lancedb'));
      const table = await db.openTable('chunks');
      try {
        expect(await rollBackToNewestReadable(table)).not.toBeNull();
      } finally {
        table.close();
        db.close();
      }
      await heldAll(engine);
      await sameAsTable(engine, probe);
      await engine.save(conversation(30, { sessionId: 's3', start: 3000 }));
      await heldAll(engine);
      await sameAsTable(engine, probe);
    } finally {
      await engine.close();
    }
  });

  it('holds nothing once the store has a vector index', async () => {
    const engine = await bed.open(bed.dataDir(), { vectorIndexMinRows: 300, optimizeEvery: 10_000 });
    try {
      for (let s = 0; s < 4; s++) await engine.save(conversation(200, { sessionId: `s${s}`, start: s * 1000 }));
      await heldAll(engine);
      expect((await engine.maintain()).vectorIndexBuilt).toBe(true);
      for (let i = 0; i < 5; i++) expect(await reading(engine, (reads) => reads.heldVectors)).toBe(0);
      expect((await engine.search('Question 1012', { limit: 3 })).length).toBe(3);
    } finally {
      await engine.close();
    }
  });
});
