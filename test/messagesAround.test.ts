/**
 * The messages around a search result (the request a reply part answers, the reply a request got, the
 * time of its first message) are read from the rows near the result's place in its session. They must
 * be the session's true neighbours wherever the result sits: past position 1000 of a long session, in
 * a message inserted between two, in a part of a long message, at the session's ends, and in a store
 * written when a chunk's place was one packed number.
 */
import * as lancedb from '@lancedb/lancedb';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessageInput } from '../shared/domain.js';
import type { MemoryEngine } from '../electron/engine/engine.js';
import type { VectorHit } from '../electron/engine/store/storeRows.js';
import type { ChunkPlace, MessagesAround } from '../electron/engine/store/storeLookups.js';
import { packChunkPlaces, hashEngineTestBed } from './helpers/engine.js';

// The subject is reading a result's neighbours from the rows, not embedding: the hashing stand-in
// embeds the 1,100 messages, and no model loads.
const bed = hashEngineTestBed();

const topics = ['the garden shed', 'the tax return', 'the band rehearsal', 'the kitchen tiles', 'the bike repair', 'the piano lesson', 'the server upgrade'];
const longReply = (n: number) =>
  Array.from({ length: 30 }, (_, i) => `Point ${i} about item ${n}: check the ${topics[(n + i) % topics.length]} schedule again before the weekend so nothing slips.`).join(' ');

/** 1,100 messages in turns; every 50th reply is long enough to be split into several chunks. */
function longSession(): MessageInput[] {
  return Array.from({ length: 1100 }, (_, i) => {
    const turn = Math.floor(i / 2);
    if (i % 2 === 0) return { msgId: `m${i}`, role: 'user' as const, content: `Question ${turn}: what is next for ${topics[turn % topics.length]}, item ${turn}?` };
    return { msgId: `m${i}`, role: 'assistant' as const, content: turn % 25 === 0 ? longReply(turn) : `Answer ${turn}: item ${turn} of ${topics[turn % topics.length]} is done.` };
  });
}

/** Every chunk row of a session as a search reads its place. */
async function placesOf(dataDir: string, sessionId: string): Promise<ChunkPlace[]> {
  const db = await lancedb.connect(path.join(dataDir, 'lancedb'));
  try {
    const chunks = await db.openTable('chunks');
    const hasPart = (await chunks.schema()).fields.some((f) => f.name === 'part');
    const rows = await chunks.query().where(`session_id = '${sessionId}'`).select(['seq', 'msg_ids', ...(hasPart ? ['part'] : [])]).toArray();
    return rows.map((r: Record<string, unknown>) => {
      const ids = Array.from((r.msg_ids as { toArray(): unknown[] }).toArray(), String);
      return { sessionId, seq: Number(r.seq), ...(hasPart ? { part: Number(r.part) } : {}), firstMsgId: ids[0]!, lastMsgId: ids[ids.length - 1]! };
    });
  } finally {
    db.close();
  }
}

/** What the session's order says is around each place. */
async function expectedAround(engine: MemoryEngine, places: ChunkPlace[]): Promise<Array<{ first?: string; before?: string; after?: string }>> {
  const order = (await engine.showSession(places[0]!.sessionId)).messages.map((m) => m.msgId);
  return places.map((p) => {
    const first = order.indexOf(p.firstMsgId);
    const last = order.indexOf(p.lastMsgId);
    return { first: order[first], ...(first > 0 ? { before: order[first - 1] } : {}), ...(last + 1 < order.length ? { after: order[last + 1] } : {}) };
  });
}

const ids = (found: MessagesAround[]) => found.map((m) => ({ first: m.first?.msgId, ...(m.before ? { before: m.before.msgId } : {}), ...(m.after ? { after: m.after.msgId } : {}) }));

async function around(engine: MemoryEngine, places: ChunkPlace[]): Promise<MessagesAround[]> {
  return engine.store.searching((reads) => reads.messagesAround(places));
}

async function chunksNext(engine: MemoryEngine, places: ChunkPlace[]): Promise<Array<VectorHit | undefined>> {
  return engine.store.searching((reads) => reads.chunksAfter(places));
}

async function chunksPrevious(engine: MemoryEngine, places: ChunkPlace[]): Promise<Array<VectorHit | undefined>> {
  return engine.store.searching((reads) => reads.chunksBefore(places));
}

/**
 * Whether the chunk after each place starts with the message just after it in the session, and the
 * chunk before it holds the message just before it (the other parts of its own long message skipped). The two messages inserted between m1040 and m1041
 * have a chunk of their own after the one that holds both: there the chunks' order is not the messages',
 * and the places next to them are left out.
 */
async function expectChunksAfter(engine: MemoryEngine, places: ChunkPlace[]): Promise<void> {
  const expected = await expectedAround(engine, places);
  const found = await chunksNext(engine, places);
  const previous = await chunksPrevious(engine, places);
  const nearInsertion = (id: string) => id.startsWith('ins') || (Number(id.slice(1)) >= 1036 && Number(id.slice(1)) <= 1046);
  const wrong = places.flatMap((p, i) => {
    if (nearInsertion(p.firstMsgId) || nearInsertion(p.lastMsgId)) return [];
    const [after, before] = [found[i], previous[i]];
    const { before: said, after: next } = expected[i]!;
    const beforeRight = said === undefined ? before === undefined : before?.msgIds.includes(said) === true;
    const afterRight = next === undefined ? after === undefined : after?.msgIds[0] === next;
    return beforeRight && afterRight ? [] : [`${p.firstMsgId}..${p.lastMsgId}: before ${before?.msgIds.join(',')} (want ${said}), after ${after?.msgIds.join(',')} (want ${next})`];
  });
  expect(wrong).toEqual([]);
  // Search reads both sides in one query (neighbourTurns.ts): the same chunks as read one side at a time.
  const both = await engine.store.searching((reads) => reads.chunksBeside(places, places));
  expect(both.after.map((hit) => hit?.chunkId)).toEqual(found.map((hit) => hit?.chunkId));
  expect(both.before.map((hit) => hit?.chunkId)).toEqual(previous.map((hit) => hit?.chunkId));
}

describe('the messages around a result', () => {
  it("are the session's neighbours of every chunk of a long session, with insertions, and after the layout of packed places", async () => {
    const dataDir = bed.dataDir();
    let engine = await bed.open(dataDir);
    try {
      const messages = longSession();
      await engine.save({ sessionId: 'long', messages });
      // Two messages inserted between 1040 and 1041: fractional positions.
      const inserted = [0, 1].map((n) => ({ msgId: `ins${n}`, role: 'user' as const, content: `Inserted note ${n} about the shed roof.` }));
      await engine.save({ sessionId: 'long', messages: [messages[1040]!, ...inserted, messages[1041]!] });

      const places = await placesOf(dataDir, 'long');
      expect(places.length).toBeGreaterThan(400);
      expect(places.some((p) => p.seq > 1000 && p.seq % 1 !== 0)).toBe(true);
      // Some chunks start in the middle of a long message: its start is kept in an earlier row.
      expect(places.some((p, i) => places.findIndex((q) => q.firstMsgId === p.firstMsgId) !== i)).toBe(true);
      const expected = await expectedAround(engine, places);
      expect(expected.filter((e) => !e.before)).toHaveLength(1);
      expect(expected.filter((e) => !e.after).length).toBeGreaterThanOrEqual(1);
      expect(ids(await around(engine, places))).toEqual(expected);
      await expectChunksAfter(engine, places);
      await engine.close();

      // Back to the earlier layout: `seq` packs position * 1000 + part, and there is no part column.
      await packChunkPlaces(dataDir);
      engine = await bed.open(dataDir);
      const packed = await placesOf(dataDir, 'long');
      expect(packed.every((p) => p.part === undefined)).toBe(true);
      expect(ids(await around(engine, packed))).toEqual(await expectedAround(engine, packed));
      await expectChunksAfter(engine, packed);

      // The next save adds the column (old rows marked as packed) and writes new rows with their position.
      await engine.save({ sessionId: 'long', messages: [messages[1099]!, { msgId: 'm1100', role: 'user', content: 'Question 550: and the final check of the piano?' }] });
      const mixed = await placesOf(dataDir, 'long');
      expect(mixed.some((p) => p.part === -1) && mixed.some((p) => p.part === 0)).toBe(true);
      expect(ids(await around(engine, mixed))).toEqual(await expectedAround(engine, mixed));
      await expectChunksAfter(engine, mixed);
    } finally {
      await engine.close();
    }
  });
});
