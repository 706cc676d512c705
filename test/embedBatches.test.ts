import { describe, expect, it } from 'vitest';
import type { SessionInput } from '../shared/domain.js';
import type { Embedder } from '../electron/embedding/embedder.js';
import { sha256 } from '../electron/engine/save/index.js';
import { engineTestBed } from './helpers/engine.js';
import { seededRandom } from '../scripts/transcriptGenerator.js';

const bed = engineTestBed();

/** The test model, recording the batches a save hands it. */
function recording(inner: Embedder): Embedder & { batches: string[][] } {
  const batches: string[][] = [];
  return {
    batches,
    get model() {
      return inner.model;
    },
    get dim() {
      return inner.dim;
    },
    get maxTokens() {
      return inner.maxTokens;
    },
    embed: (texts) => {
      batches.push([...texts]);
      return inner.embed(texts);
    },
    close: async () => {},
  } as Embedder & { batches: string[][] };
}

/** Messages of words no other message uses (each its own chunk), long and short in turn. */
function longAndShort(count: number): SessionInput {
  const random = seededRandom(5);
  const word = (i: number, k: number) => `w${i}x${k}${Math.floor(random() * 1e6).toString(36)}`;
  return {
    sessionId: 'long-and-short',
    messages: Array.from({ length: count }, (_, i) => ({ role: 'user' as const, content: Array.from({ length: i % 2 === 0 ? 20 : 3 }, (_, k) => word(i, k)).join(' ') })),
  };
}

/** Characters the model is made to read, batches padded to their longest text, over those of the texts themselves. */
function paddingFactor(batches: string[][]): number {
  let padded = 0;
  let real = 0;
  for (const batch of batches) {
    padded += batch.length * Math.max(...batch.map((t) => t.length));
    real += batch.reduce((sum, t) => sum + t.length, 0);
  }
  return padded / real;
}

describe('the batches a save embeds', () => {
  it('group texts of like length, and each chunk keeps the vector of its own text', async () => {
    const model = recording(bed.embedder());
    const engine = await bed.open(bed.dataDir(), { embedder: model });
    const session = longAndShort(128);
    const report = await engine.save(session);
    expect(report.chunksWritten).toBe(128);
    const batches = model.batches.filter((b) => b.every((t) => t.startsWith('user: w')));
    expect(batches.flat()).toHaveLength(128);
    // In the order of the conversation, every batch would mix 20-word and 3-word texts (factor about 1.9).
    expect(paddingFactor(batches)).toBeLessThan(1.2);

    const chunks = (await engine.showSession(session.sessionId)).chunks;
    const stored = await engine.store.vectorsByTextHash(chunks.map((c) => sha256(c.text)));
    const own = await bed.embedder().embed(chunks.map((c) => c.text));
    chunks.forEach((c, i) => {
      const v = stored.get(sha256(c.text))!;
      const dot = v.reduce((sum, x, k) => sum + x * own[i]![k]!, 0);
      expect(dot).toBeGreaterThan(0.999);
    });
    await engine.close();
  });
});
