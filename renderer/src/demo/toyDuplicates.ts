/**
 * The demo's near-duplicate review: every pair of chunks of two sessions (not branches of each
 * other) whose toy vectors are close, joined into clusters, as the real host lists them.
 */
import { DUPLICATE_THRESHOLD, type Chunk, type DuplicateCluster, type DuplicateListing } from '../../../shared/domain.js';
import { cosine, HostError, stableHash } from './toyEngine.js';

export class ToyDuplicates {
  private readonly dismissed = new Set<string>();

  constructor(
    private readonly chunks: () => Array<Chunk & { vector: number[] }>,
    private readonly related: (a: string, b: string) => boolean,
    private readonly titleOf: (sessionId: string) => string,
  ) {}

  clusters(threshold: number): DuplicateCluster[] {
    const chunks = this.chunks();
    const parent = new Map<string, string>();
    const find = (x: string): string => (parent.get(x) === x ? x : find(parent.get(x)!));
    const weakest = new Map<string, number>();
    for (let i = 0; i < chunks.length; i++) {
      for (let j = i + 1; j < chunks.length; j++) {
        const [x, y] = [chunks[i]!, chunks[j]!];
        if (x.sessionId === y.sessionId || this.related(x.sessionId, y.sessionId)) continue;
        const similarity = x.text === y.text ? 1 : Math.round(cosine(x.vector, y.vector) * 10_000) / 10_000;
        if (similarity < threshold) continue;
        for (const id of [x.chunkId, y.chunkId]) if (!parent.has(id)) parent.set(id, id);
        const [rx, ry] = [find(x.chunkId), find(y.chunkId)];
        const low = Math.min(similarity, weakest.get(rx) ?? 1, weakest.get(ry) ?? 1);
        parent.set(rx, ry);
        weakest.set(ry, low);
      }
    }
    const groups = new Map<string, Chunk[]>();
    for (const c of chunks) if (parent.has(c.chunkId)) groups.set(find(c.chunkId), [...(groups.get(find(c.chunkId)) ?? []), c]);
    return [...groups.entries()]
      .map(([root, members]) => ({
        id: stableHash(members.map((m) => m.chunkId).sort().join('\n')),
        similarity: weakest.get(root) ?? 1,
        chunks: members.map((chunk) => ({ chunkId: chunk.chunkId, sessionId: chunk.sessionId, sessionTitle: this.titleOf(chunk.sessionId), text: chunk.text })),
      }))
      .sort((a, b) => b.similarity - a.similarity || b.chunks.length - a.chunks.length);
  }

  list({ threshold = DUPLICATE_THRESHOLD, limit = 50, includeDismissed = false }: { threshold?: number; limit?: number; includeDismissed?: boolean }): DuplicateListing {
    const clusters = this.clusters(threshold);
    const isDismissed = (c: DuplicateCluster) => this.dismissed.has(c.id);
    return {
      threshold,
      total: clusters.filter((c) => !isDismissed(c)).length,
      dismissed: clusters.filter(isDismissed).length,
      clusters: clusters
        .filter((c) => includeDismissed || !isDismissed(c))
        .slice(0, limit)
        .map((c) => (isDismissed(c) ? { ...c, dismissed: true } : c)),
    };
  }

  dismiss(clusterId: string, threshold = DUPLICATE_THRESHOLD): { dismissed: number } {
    const cluster = this.clusters(threshold).find((c) => c.id === clusterId);
    if (!cluster) throw new HostError('not_found', `no near-duplicate cluster ${clusterId} at similarity ${threshold} (list them again: sessions may have changed)`);
    this.dismissed.add(clusterId);
    return { dismissed: cluster.chunks.length };
  }

  /** How many of these chunks have a copy in another session (a save report's `nearDuplicates`). */
  countOf(chunkIds: ReadonlySet<string>): number {
    return this.clusters(DUPLICATE_THRESHOLD)
      .flatMap((c) => c.chunks)
      .filter((c) => chunkIds.has(c.chunkId)).length;
  }
}
