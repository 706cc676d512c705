// A request is embedded in groups of like token lengths (the model pads each call to its longest
// text), and the vectors come back in the order of the texts.
import { describe, expect, it } from 'vitest';
import { embedInLengthGroups, lengthGroups } from '../electron/embedding/lengthGroups.js';
import { seededRandom } from '../scripts/transcriptGenerator.js';

/** Tokens the model runs over when each call is padded to its longest text. */
const padded = (calls: number[][]) => calls.reduce((sum, call) => sum + call.length * Math.max(...call), 0);

describe('embedding in groups of like lengths', () => {
  const random = seededRandom(4);
  // Chunk-like lengths: 10 to 128 tokens, mixed as a save's request of 32 mixes them.
  const lengths = Array.from({ length: 32 }, () => 10 + Math.floor(random() * 119));
  const texts = lengths.map((n, i) => `t${i}${' x'.repeat(n - 1)}`);
  const countTokens = (text: string) => text.split(' ').length;

  it('runs each text once, in groups within the budget, padding far less than one call', async () => {
    const calls: number[][] = [];
    const vectors = await embedInLengthGroups(texts, countTokens, async (group) => {
      calls.push(group.map(countTokens));
      return group.map((t) => Float32Array.of(Number(t.slice(1, t.indexOf(' ')))));
    }, 1024);
    // In the order of the texts, whatever order the groups ran in.
    expect(vectors.map((v) => v[0])).toEqual(texts.map((_, i) => i));
    expect(calls.flat().sort((a, b) => a - b)).toEqual([...lengths].sort((a, b) => a - b));
    for (const call of calls) expect(call.length === 1 || call.length * Math.max(...call) <= 1024).toBe(true);
    const real = lengths.reduce((a, b) => a + b, 0);
    expect(padded([lengths]) / real).toBeGreaterThan(1.6);
    expect(padded(calls) / real).toBeLessThan(1.3);
  });

  it('keeps a text longer than the budget in a group of its own, and equal lengths in their order', () => {
    expect(lengthGroups([5, 300, 5, 5], 12)).toEqual([[0, 2], [3], [1]]);
    expect(lengthGroups([], 1024)).toEqual([]);
  });

  it('fails when the model returns fewer vectors than texts', async () => {
    await expect(embedInLengthGroups(texts, countTokens, async (group) => group.slice(1).map(() => new Float32Array(1)))).rejects.toThrow(/returned \d+ vectors for \d+ texts/);
  });
});
