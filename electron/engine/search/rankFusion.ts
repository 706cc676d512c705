/** The constant of reciprocal rank fusion: a hit at rank r (from 0) in one list scores 1 / (K + r + 1). */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: merges ranked lists into one, a hit per id, best first. A hit found by
 * several lists adds up their scores (each list's times its weight, 1 unless given); the first list
 * that has it supplies the hit itself.
 */
export function fuseByRank<T extends { chunkId: string }>(lists: ReadonlyArray<readonly T[]>, k = RRF_K, weights: readonly number[] = []): Array<{ hit: T; score: number }> {
  const fused = new Map<string, { hit: T; score: number }>();
  lists.forEach((list, i) => {
    const weight = weights[i] ?? 1;
    list.forEach((hit, rank) => {
      const current = fused.get(hit.chunkId) ?? { hit, score: 0 };
      current.score += weight / (k + rank + 1);
      fused.set(hit.chunkId, current);
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}
