/** The constant of reciprocal rank fusion: a hit at rank r (from 0) in one list scores 1 / (K + r + 1). */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: merges ranked lists into one, a hit per id, best first. A hit found by
 * several lists adds up their scores (each list's times its weight, 1 unless given); the first list
 * that has it supplies the hit itself. A hit's rank is its place in its list unless `ranks` gives
 * that list's ranks (see byDistinctText).
 */
export function fuseByRank<T extends { chunkId: string }>(lists: ReadonlyArray<readonly T[]>, k = RRF_K, weights: readonly number[] = [], ranks: ReadonlyArray<readonly number[] | undefined> = []): Array<{ hit: T; score: number }> {
  const fused = new Map<string, { hit: T; score: number }>();
  lists.forEach((list, i) => {
    const weight = weights[i] ?? 1;
    list.forEach((hit, place) => {
      const rank = ranks[i]?.[place] ?? place;
      const current = fused.get(hit.chunkId) ?? { hit, score: 0 };
      current.score += weight / (k + rank + 1);
      fused.set(hit.chunkId, current);
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

/**
 * A ranked list as it would be in a store holding each text once: a copy of a text (same text hash)
 * takes the rank of the text's first place instead of a place of its own, and the list ends after
 * `depth` distinct texts (with their copies). So that copies of one passage in many sessions neither
 * push other texts down the fusion nor fill the list, and the fusion of the first `depth` texts of
 * each list ranks as it does in a store without copies.
 */
export function byDistinctText<T extends { textHash: string }>(list: readonly T[], depth: number): { hits: T[]; ranks: number[] } {
  const rankOf = new Map<string, number>();
  const hits: T[] = [];
  const ranks: number[] = [];
  for (const hit of list) {
    let rank = rankOf.get(hit.textHash);
    if (rank === undefined) {
      if (rankOf.size >= depth) continue;
      rank = rankOf.size;
      rankOf.set(hit.textHash, rank);
    }
    hits.push(hit);
    ranks.push(rank);
  }
  return { hits, ranks };
}
