/**
 * Chunks do not depend on how often a session is saved: message by message, two at a time or at once,
 * the session ends with the same chunks, and each save re-embeds at most the one chunk it reopens.
 */
import { describe, expect, it } from 'vitest';
import type { MessageInput, SessionInput } from '../shared/domain.js';
import { realisticConversation } from '../scripts/transcriptGenerator.js';
import { conversation, hashEngineTestBed } from './helpers/engine.js';

// The subject is chunking, not embedding: the hashing stand-in embeds, and no model loads.
const bed = hashEngineTestBed();

async function chunksAfter(input: SessionInput, step: number | null): Promise<{ chunkIds: string[]; texts: string[]; embeddings: number; maxPerSave: number }> {
  const engine = await bed.open(bed.dataDir());
  let embeddings = 0;
  let maxPerSave = 0;
  const sizes = step === null ? [input.messages.length] : Array.from({ length: Math.ceil(input.messages.length / step) }, (_, i) => Math.min(input.messages.length, (i + 1) * step));
  let previousChunks = 0;
  for (const size of sizes) {
    const report = await engine.save({ ...input, messages: input.messages.slice(0, size) });
    embeddings += report.embeddingsComputed;
    // Beyond the chunks holding only new messages, at most one more (the reopened one).
    const detail = await engine.showSession(input.sessionId);
    maxPerSave = Math.max(maxPerSave, report.embeddingsComputed - Math.max(0, detail.chunks.length - previousChunks));
    previousChunks = detail.chunks.length;
  }
  const detail = await engine.showSession(input.sessionId);
  expect((await engine.verify()).problems).toEqual([]);
  await engine.close();
  return { chunkIds: detail.chunks.map((c) => c.chunkId), texts: detail.chunks.map((c) => c.text), embeddings, maxPerSave };
}

describe('chunks independent of save cadence', () => {
  it('two messages at a time, one at a time and at once give the same chunks', async () => {
    const input = conversation(40, { sessionId: 'cadence' });
    const once = await chunksAfter(input, null);
    const pairs = await chunksAfter(input, 2);
    const singles = await chunksAfter(input, 1);
    expect(pairs.chunkIds).toEqual(once.chunkIds);
    expect(singles.chunkIds).toEqual(once.chunkIds);
    expect(pairs.maxPerSave).toBeLessThanOrEqual(1);
    expect(singles.maxPerSave).toBeLessThanOrEqual(1);
  });

  it('holds for long answers split into parts across chunks, and for messages without ids', async () => {
    const input = realisticConversation('cadence-long', 60, 11);
    const idless: SessionInput = { ...input, messages: input.messages.map(({ role, content }): MessageInput => ({ role, content })) };
    const once = await chunksAfter(idless, null);
    const byThree = await chunksAfter(idless, 3);
    expect(byThree.chunkIds).toEqual(once.chunkIds);
    expect(byThree.texts).toEqual(once.texts);
  });
});
