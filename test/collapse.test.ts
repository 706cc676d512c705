import { describe, expect, it } from 'vitest';
import { collapseDuplicates, cosine, sameWords, wordSet } from '../electron/engine/search/collapse.js';

const unit = (...xs: number[]): Float32Array => {
  const v = Float32Array.from(xs);
  const n = Math.hypot(...xs);
  return v.map((x) => x / n);
};
const hit = (chunkId: string, sessionId: string, textHash: string, vector?: Float32Array, text = 'user: the same words') => ({ chunkId, sessionId, textHash, text, ...(vector ? { vector } : {}) });

describe('each memory once', () => {
  it('folds identical texts and near-identical vectors into the best hit, and fills the list with distinct results', () => {
    const ranked = [
      { hit: hit('a1', 'A', 'h-same', unit(1, 0, 0)), score: 0.9 },
      { hit: hit('b1', 'B', 'h-same', unit(1, 0, 0)), score: 0.85 },
      { hit: hit('c1', 'C', 'h-near', unit(1, 0.1, 0), 'user:  The same words!'), score: 0.8 }, // cosine 0.995 with a1, the same words
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

describe('the same memory, not a similar one', () => {
  it('keeps a near-identical vector apart when its words say something else', () => {
    const a = unit(1, 0, 0);
    const b = unit(1, 0.05, 0); // cosine 0.999
    const ranked = [
      { hit: hit('a', 'A', 'x', a, 'user: Maya: My dentist appointment got moved to Tuesday at 3pm.'), score: 1 },
      { hit: hit('b', 'B', 'y', b, 'user: Maya: My dentist appointment got moved to Thursday at 4pm.'), score: 0.9 },
    ];
    expect(collapseDuplicates(ranked, 10).map((r) => r.hit.chunkId)).toEqual(['a', 'b']);
  });

  it('folds the same words in other case, spacing and punctuation, and nothing with a number of its own', () => {
    const long = 'we agreed to move the weekly planning call to the morning so that everyone in Lisbon and Berlin can join before lunch and the notes go out the same day';
    expect(sameWords(wordSet(`user: ${long}.`), wordSet(`USER:  ${long.replace('weekly', 'Weekly')}!`))).toBe(true);
    // One more word in a long text is a slip; a number is a fact.
    expect(sameWords(wordSet(`user: ${long}`), wordSet(`user: ${long} too`))).toBe(true);
    expect(sameWords(wordSet(`user: ${long}`), wordSet(`user: ${long} at 9`))).toBe(false);
    expect(sameWords(wordSet('user: the sprint ends March 29'), wordSet('user: the sprint ends March 22'))).toBe(false);
    expect(sameWords(wordSet('user: I painted a sunset over the lake'), wordSet('user: I painted a sunrise over the lake'))).toBe(false);
  });
});
