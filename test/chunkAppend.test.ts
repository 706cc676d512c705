/**
 * New chunks of new messages are appended to the chunks table, not merged into it: a merge joins
 * them with the chunk ids of the whole table, a read that grows with the store (on a bucket, a
 * request per fragment), where an append reads nothing. The reopened last chunk of an append is
 * rewritten in place (its row found through the chunk_id index); chunks rebuilt around an edit are
 * still merged, and no chunk is ever stored twice.
 */
import type * as lancedb from '@lancedb/lancedb';
import { describe, expect, it, vi } from 'vitest';
import type { MemoryEngine } from '../electron/engine/engine.js';
import { conversation, engineTestBed } from './helpers/engine.js';

const bed = engineTestBed();

/** The store's chunks table, watched: which writes a save makes to it. */
function watchChunks(engine: MemoryEngine): { table: lancedb.Table; merges: () => number; appends: () => number; rewrites: () => number; reset: () => void } {
  const table = (engine.store as unknown as { chunks: lancedb.Table }).chunks;
  const merge = vi.spyOn(table, 'mergeInsert');
  const add = vi.spyOn(table, 'add');
  const update = vi.spyOn(table, 'update');
  return { table, merges: () => merge.mock.calls.length, appends: () => add.mock.calls.length, rewrites: () => update.mock.calls.length, reset: () => (merge.mockClear(), add.mockClear(), update.mockClear()) };
}

async function storedIds(table: lancedb.Table): Promise<string[]> {
  return ((await table.query().select(['chunk_id']).toArray()) as Array<{ chunk_id: string }>).map((r) => r.chunk_id);
}

describe('writing new chunks', () => {
  it('appends the chunks of a new session and of new messages, rewrites the reopened one, merges only those rebuilt around an edit, and stores none twice', async () => {
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

      // One more message of the same turn: the session's last chunk grows by it, rewritten in place
      // as the chunk that takes it over (one commit), not merged.
      chunks.reset();
      const followed = conversation(40);
      followed.messages.push({ msgId: 'msg-follow-up', role: 'assistant', content: 'One more thing: write the plan down before the week starts.' });
      const grown = await engine.save(followed);
      expect([grown.new, grown.chunksWritten, grown.chunksDeleted]).toEqual([1, 1, 1]);
      expect(chunks.rewrites()).toBe(1);
      expect(chunks.merges()).toBe(0);
      expect(chunks.appends()).toBe(0);

      chunks.reset();
      const edited = { ...followed, messages: [...followed.messages] };
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
