// A request is embedded in groups of like token lengths, as the model pads each call to its longest
// text (the vectors are checked against one text at a time in test/useLiteEn.test.ts).
import { describe, expect, it } from 'vitest';
import { lengthGroups } from '../electron/embedding/lengthGroups.js';
import { seededRandom } from '../scripts/transcriptGenerator.js';

/** Tokens the model runs over when each call is padded to its longest text. */
const padded = (calls: number[][]) => calls.reduce((sum, call) => sum + call.length * Math.max(...call), 0);

describe('groups of like token lengths', () => {
  it('takes each text once, in groups within the budget, padding far less than one call', () => {
    const random = seededRandom(4);
    // Chunk-like lengths: 10 to 128 tokens, mixed.
    const lengths = Array.from({ length: 32 }, () => 10 + Math.floor(random() * 119));
    const groups = lengthGroups(lengths, 1024);
    expect(groups.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i));
    const calls = groups.map((g) => g.map((i) => lengths[i]!));
    for (const call of calls) expect(call.length * Math.max(...call)).toBeLessThanOrEqual(1024);
    const real = lengths.reduce((a, b) => a + b, 0);
    expect(padded([lengths]) / real).toBeGreaterThan(1.6);
    expect(padded(calls) / real).toBeLessThan(1.3);
  });

  it('keeps a text longer than the budget in a group of its own, and equal lengths in their order', () => {
    expect(lengthGroups([5, 300, 5, 5], 12)).toEqual([[0, 2], [3], [1]]);
    expect(lengthGroups([], 1024)).toEqual([]);
  });
});
