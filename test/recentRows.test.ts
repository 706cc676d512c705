/**
 * Rows saved since the store was last compacted are outside its indexes; searches hold them in
 * memory (recentRows.ts) and ask the stored table for its indexed rows only. What was just saved is
 * found as before: by its words, by its vector (exactly), with the messages around it, within a
 * session filter, and no longer once deleted.
 */
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../electron/engine/engine.js';
import { cosine } from '../electron/engine/search/collapse.js';
import type { SearchReads } from '../electron/engine/store/searchView.js';
import { conversation, hashEngineTestBed } from './helpers/engine.js';

// The subject is which rows a search reads, not the model: the hashing stand-in embeds (a text's words
// give its vector), and no model loads.
const bed = hashEngineTestBed();

const lighthouse = {
  sessionId: 'lighthouse',
  title: 'Lighthouse keepers',
  messages: [
    { msgId: 'l0', role: 'user' as const, content: 'When was the lighthouse keeper on Skerryvore relieved by the supply boat?' },
    { msgId: 'l1', role: 'assistant' as const, content: 'The Skerryvore keepers were relieved every six weeks by the supply boat from Hynish.' },
    { msgId: 'l2', role: 'user' as const, content: 'How tall is the Skerryvore tower, and who designed it?' },
    { msgId: 'l3', role: 'assistant' as const, content: 'Alan Stevenson designed the granite tower; it stands 48 metres above the reef.' },
    { msgId: 'l4', role: 'user' as const, content: 'Could the keepers see Tiree from the gallery on a clear evening?' },
    { msgId: 'l5', role: 'assistant' as const, content: 'Yes: Tiree lies eleven miles off, and on clear evenings its machair glows in the low sun.' },
  ],
};

const harbour = (last: string) => ({
  sessionId: 'harbour',
  title: 'The harbour at Hynish',
  messages: [
    { msgId: 'h0', role: 'user' as const, content: 'Which harbour did the Skerryvore supply boat sail from?' },
    { msgId: 'h1', role: 'assistant' as const, content: last },
  ],
});

const reading = <T>(engine: MemoryEngine, read: (reads: SearchReads) => Promise<T> | T) => engine.store.searching(async (reads) => read(reads));
const sessionsOf = (hits: ReadonlyArray<{ sessionId: string }>) => [...new Set(hits.map((h) => h.sessionId))];

describe('searching rows saved since the last compaction', () => {
  it('finds them by words, by vector and with their neighbours, from memory, until a compaction indexes them', async () => {
    const engine = await bed.open(bed.dataDir(), { vectorIndexMinRows: 300, optimizeEvery: 10_000 });
    try {
      for (let s = 0; s < 4; s++) await engine.save(conversation(200, { sessionId: `s${s}`, start: s * 1000 }));
      // No vector index yet: every query reads the table, as in any small store.
      expect(await reading(engine, (reads) => reads.recentRows)).toBe(0);
      expect((await engine.maintain()).vectorIndexBuilt).toBe(true);
      // Compacted: every row indexed, nothing held.
      expect(await reading(engine, (reads) => reads.recentRows)).toBe(0);

      await engine.save(lighthouse);
      const lighthouseChunks = await engine.store.countChunks(`session_id = 'lighthouse'`);
      expect(lighthouseChunks).toBeGreaterThan(0);
      expect(await reading(engine, (reads) => reads.recentRows)).toBe(lighthouseChunks);

      // By its words, through the engine's search and the full-text read, also within its session, and not in another.
      expect((await engine.search('Skerryvore lighthouse keeper supply boat', { limit: 3 }))[0]?.sessionId).toBe('lighthouse');
      expect(sessionsOf(await reading(engine, (reads) => reads.textSearch('Skerryvore granite tower', 10)))).toEqual(['lighthouse']);
      expect(sessionsOf(await reading(engine, (reads) => reads.textSearch('Skerryvore granite tower', 10, 'lighthouse')))).toEqual(['lighthouse']);
      expect(await reading(engine, (reads) => reads.textSearch('Skerryvore granite tower', 10, 's1'))).toEqual([]);
      // Indexed rows are still found beside them.
      expect(sessionsOf(await reading(engine, (reads) => reads.textSearch('marathon training shoes', 10)))).not.toContain('lighthouse');
      expect((await reading(engine, (reads) => reads.textSearch('marathon training shoes', 10))).length).toBe(10);

      // By vector: a held chunk's own vector finds it first, at distance 0, unless it is excluded; and
      // every held chunk nearer than the last hit is among the hits (the held rows are searched exactly).
      const [held] = await reading(engine, (reads) => reads.textSearch('Skerryvore granite tower', 1));
      const vector = (await engine.store.vectorsByChunkId([held!.chunkId])).get(held!.chunkId)!;
      const nearest = await reading(engine, (reads) => reads.vectorSearch(vector, 8));
      expect(nearest[0]!.chunkId).toBe(held!.chunkId);
      expect(nearest[0]!.distance).toBeCloseTo(0, 5);
      expect((await reading(engine, (reads) => reads.vectorSearch(vector, 8, undefined, held!.chunkId))).map((h) => h.chunkId)).not.toContain(held!.chunkId);
      expect(sessionsOf(await reading(engine, (reads) => reads.vectorSearch(vector, 8, 's2')))).toEqual(['s2']);
      const heldIds = (await reading(engine, (reads) => reads.textSearch('Skerryvore Tiree keepers tower boat lighthouse', 50, 'lighthouse'))).map((h) => h.chunkId);
      const heldVectors = await engine.store.vectorsByChunkId(heldIds);
      const cutoff = nearest[nearest.length - 1]!.distance;
      for (const [chunkId, v] of heldVectors) if (1 - cosine(vector, v) < cutoff - 1e-6) expect(nearest.map((h) => h.chunkId)).toContain(chunkId);

      // The messages around a held chunk and around an indexed one.
      const places = (await reading(engine, (reads) => reads.textSearch('Tiree machair clear evenings gallery', 1, 'lighthouse'))).concat(
        await reading(engine, (reads) => reads.textSearch('Question 1101', 1, 's1')),
      );
      const around = await reading(engine, (reads) =>
        reads.messagesAround(places.map((h) => ({ sessionId: h.sessionId, seq: h.seq!, part: h.part, firstMsgId: h.msgIds[0]!, lastMsgId: h.msgIds[h.msgIds.length - 1]! }))),
      );
      const byPosition = (id: string) => (id.startsWith('l') ? Number(id.slice(1)) : Number(id.slice(4)));
      for (const [i, hit] of places.entries()) {
        const first = hit.msgIds[0]!;
        const last = hit.msgIds[hit.msgIds.length - 1]!;
        const name = (n: number) => (first.startsWith('l') ? `l${n}` : `msg-${n}`);
        expect(around[i]!.first?.msgId).toBe(first);
        if (byPosition(first) > (first.startsWith('l') ? 0 : 1000)) expect(around[i]!.before?.msgId).toBe(name(byPosition(first) - 1));
        if (byPosition(last) < (first.startsWith('l') ? 5 : 1199)) expect(around[i]!.after?.msgId).toBe(name(byPosition(last) + 1));
      }
      expect(around[0]!.first?.content).toMatch(/Tiree/);
      // And the chunks after them: the chunk after starts with the message after, text and vector read.
      const near = await reading(engine, (reads) =>
        reads.chunksAfter(places.map((h) => ({ sessionId: h.sessionId, seq: h.seq!, part: h.part, firstMsgId: h.msgIds[0]!, lastMsgId: h.msgIds[h.msgIds.length - 1]! }))),
      );
      for (const [i, hit] of places.entries()) {
        const next = around[i]!.after;
        if (next) expect(near[i]?.msgIds[0]).toBe(next.msgId);
        if (next) expect(near[i]?.vector?.length).toBe(vector.length);
        expect(near[i]?.chunkId).not.toBe(hit.chunkId);
      }

      // A later save: the rows held before are kept, the new ones read; an edit replaces its row.
      await engine.save(harbour('It sailed from the small dock at Hynish, built for the lighthouse works.'));
      const bothChunks = await engine.store.countChunks(`session_id IN ('lighthouse', 'harbour')`);
      expect(await reading(engine, (reads) => reads.recentRows)).toBe(bothChunks);
      expect(sessionsOf(await reading(engine, (reads) => reads.textSearch('small dock Hynish', 10)))).toContain('harbour');
      expect((await reading(engine, (reads) => reads.textSearch('Skerryvore granite tower', 10)))[0]?.sessionId).toBe('lighthouse');
      await engine.save(harbour('It sailed from Scarinish pier, across the bay.'));
      expect(await reading(engine, (reads) => reads.recentRows)).toBe(await engine.store.countChunks(`session_id IN ('lighthouse', 'harbour')`));
      expect((await reading(engine, (reads) => reads.textSearch('small dock', 10))).filter((h) => /small dock/.test(h.text))).toEqual([]);
      expect(sessionsOf(await reading(engine, (reads) => reads.textSearch('Scarinish pier', 10)))).toEqual(['harbour']);

      // Compacted: indexed, found there, nothing held.
      await engine.maintain();
      expect(await reading(engine, (reads) => reads.recentRows)).toBe(0);
      expect((await reading(engine, (reads) => reads.textSearch('Skerryvore granite tower', 10)))[0]?.sessionId).toBe('lighthouse');
      expect((await engine.search('Skerryvore lighthouse keeper supply boat', { limit: 3 }))[0]?.sessionId).toBe('lighthouse');
    } finally {
      await engine.close();
    }
  });
});
