/**
 * New chunks of new messages are appended to the chunks table, not merged into it: a merge joins
 * them with the chunk ids of the whole table, a read that grows with the store (on a bucket, a
 * request per fragment), where an append reads nothing. Chunks that replace stored ones (the
 * reopened last chunk of an append, chunks rebuilt around an edit) are still merged, and no chunk
 * is ever stored twice.
 */
import type * as lancedb from '@lancedb/lancedb';
import { describe, expect, it, vi } from 'vitest';
import type { MemoryEngine } from '../electron/engine/engine.js';
import { conversation, hashEngineTestBed } from './helpers/engine.js';

// The subject is chunking, not embedding: the hashing stand-in embeds, and no model loads.
const bed = hashEngineTestBed();

/** The store's chunks table, watched: which writes a save makes to it. */
function watchChunks(engine: MemoryEngine): { table: lancedb.Table; merges: () => number; appends: () => number; reset: () => void } {
  const table = (engine.store as unknown as { chunks: lancedb.Table }).chunks;
  const merge = vi.spyOn(table, 'mergeInsert');
  const add = vi.spyOn(table, 'add');
  return { table, merges: () => merge.mock.calls.length, appends: () => add.mock.calls.length, reset: () => (merge.mockClear(), add.mockClear()) };
}

async function storedIds(table: lancedb.Table): Promise<string[]> {
  return ((await table.query().select(['chunk_id']).toArray()) as Array<{ chunk_id: string }>).map((r) => r.chunk_id);
}

describe('writing new chunks', () => {
  it('appends the chunks of a new session and of new messages, merges only those that replace stored ones, and stores none twice', async () => {
    const engine = await bed.open(bed.dataDir(), { writeBatchChunks: 4 });
    try {
      const chunks = watchChunks(engine);
      const first = await engine.save(conversation(30));
      expect(first.chunksWritten).toBeGreaterThan(4);
      // Several commits, each an append.
      expect(chunks.merges()).toBe(0);
      expect(chunks.appends()).toBeGreaterThan(1);

      chunks.reset();
      const appended = await engine.save(conversation(40));
      expect(appended.new).toBe(10);
      expect(chunks.appends()).toBeGreaterThan(0);

      chunks.reset();
      const edited = conversation(40);
      edited.messages[3] = { ...edited.messages[3]!, content: `${edited.messages[3]!.content} (edited)` };
      expect((await engine.save(edited)).updated).toBe(1);
      // The chunk around the edit replaces the stored one.
      expect(chunks.merges()).toBeGreaterThan(0);
      expect(chunks.appends()).toBe(0);

      const ids = await storedIds(chunks.table);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe((await engine.store.sessionHeads(first.sessionId)).length);
      // The same as a store that saved the final conversation in one go.
      const fresh = await bed.open(bed.dataDir());
      try {
        await fresh.save(edited);
        expect((await fresh.store.sessionHeads(first.sessionId)).map((h) => h.chunkId).sort()).toEqual([...ids].sort());
      } finally {
        await fresh.close();
      }
    } finally {
      await engine.close();
    }
  }, 120_000);
});
