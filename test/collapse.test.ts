import { describe, expect, it } from 'vitest';
import { collapseDuplicates, cosine } from '../electron/engine/collapse.js';

const unit = (...xs: number[]): Float32Array => {
  const v = Float32Array.from(xs);
  const n = Math.hypot(...xs);
  return v.map((x) => x / n);
};
const hit = (chunkId: string, sessionId: string, textHash: string, vector?: Float32Array) => ({ chunkId, sessionId, textHash, ...(vector ? { vector } : {}) });

describe('each memory once', () => {
  it('folds identical texts and near-identical vectors into the best hit, and fills the list with distinct results', () => {
    const ranked = [
      { hit: hit('a1', 'A', 'h-same', unit(1, 0, 0)), score: 0.9 },
      { hit: hit('b1', 'B', 'h-same', unit(1, 0, 0)), score: 0.85 },
      { hit: hit('c1', 'C', 'h-near', unit(1, 0.1, 0)), score: 0.8 }, // cosine 0.995 with a1
      { hit: hit('d1', 'D', 'h-other', unit(0, 1, 0)), score: 0.7 },
      { hit: hit('e1', 'E', 'h-third', unit(0, 0, 1)), score: 0.6 },
      { hit: hit('f1', 'F', 'h-same'), score: 0.5 }, // a full-text hit past the limit still joins its copy
    ];
    const results = collapseDuplicates(ranked, 2);
    expect(results.map((r) => r.hit.chunkId)).toEqual(['a1', 'd1']);
    expect(results[0]!.alsoIn).toEqual([
      { sessionId: 'B', chunkId: 'b1' },
      { sessionId: 'C', chunkId: 'c1' },
      { sessionId: 'F', chunkId: 'f1' },
    ]);
    expect(results[1]!.alsoIn).toEqual([]);
  });

  it('keeps texts apart below the threshold', () => {
    const a = unit(1, 0.3, 0);
    const b = unit(1, 0, 0.3);
    expect(cosine(a, b)).toBeLessThan(0.97);
    const results = collapseDuplicates([{ hit: hit('a', 'A', 'x', a), score: 1 }, { hit: hit('b', 'B', 'y', b), score: 0.9 }], 10);
    expect(results.map((r) => r.hit.chunkId)).toEqual(['a', 'b']);
    expect(collapseDuplicates([{ hit: hit('a', 'A', 'x', a), score: 1 }, { hit: hit('b', 'B', 'y', b), score: 0.9 }], 10, 0.9)).toHaveLength(1);
  });
});
