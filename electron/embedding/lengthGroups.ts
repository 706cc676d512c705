/**
 * Texts of like lengths in one model call. transformers.js pads every text of a call to the call's
 * longest, and the model spends its time on the padding as on real tokens: a request mixing 20-token
 * and 128-token texts runs the short ones at 128. Run as groups of like lengths, each text is padded
 * only to the longest of its group. The vectors do not change (the model masks padding; use-lite-en
 * gives a text the same vector alone and in any batch, test/useLiteEn.test.ts).
 */

/**
 * Padded tokens one model call may hold (texts x the group's longest): 8 texts of 128 tokens, 34 of 30.
 * On 512 chunk texts of the benchmark's conversation in the save's requests of 32 (`npm run bench:embed`),
 * median CPU per text against one call per request: 512 and 1,024 both 1.29x less, 2,048 1.23x less
 * (padded over real tokens 1.34 in one call, 1.05, 1.09, 1.15). Of the two best, 1,024 makes fewer calls.
 */
export const GROUP_TOKENS = 1024;

/**
 * Indices of `lengths` cut into groups: sorted by length (stable), each group as many texts as fit
 * `budget` padded tokens (at least one).
 */
export function lengthGroups(lengths: readonly number[], budget = GROUP_TOKENS): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const groups: number[][] = [];
  let group: number[] = [];
  for (const i of order) {
    // Sorted ascending, so this text is the longest of the group it joins.
    if (group.length > 0 && (group.length + 1) * Math.max(1, lengths[i]!) > budget) {
      groups.push(group);
      group = [];
    }
    group.push(i);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
