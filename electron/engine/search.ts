/** Finding chunks: the hybrid search, and one chunk with its nearest neighbours. */
import type { ChunkDetail, SearchHit } from '../../shared/domain.js';
import type { EngineContext } from './context.js';
import { EngineError } from './errors.js';
import { fuseByRank, RRF_K } from './rankFusion.js';

/** Vector search and full-text search (see ChunkStore.textSearch), merged by reciprocal rank; one hit per chunk. */
export async function searchChunks(ctx: EngineContext, query: string, options: { limit?: number; sessionId?: string } = {}): Promise<SearchHit[]> {
  const limit = Math.max(1, Math.min(options.limit ?? 10, 200));
  if (!query.trim()) throw new EngineError('invalid_input', 'the search query is empty');
  const [vector] = await (await ctx.embedder()).embed([query]);
  const [byVector, byText] = await Promise.all([
    ctx.store.vectorSearch(vector!, limit * 2, options.sessionId),
    ctx.store.textSearch(query, limit * 2, options.sessionId).catch(() => []),
  ]);
  // Scores are scaled so that a chunk ranked first by both searches scores 1.
  const best = 2 / (RRF_K + 1);
  return fuseByRank([byVector, byText])
    .slice(0, limit)
    .map(({ hit, score }) => ({ chunkId: hit.chunkId, sessionId: hit.sessionId, text: hit.text, msgIds: hit.msgIds, score: Math.round((score / best) * 10_000) / 10_000 }));
}

export async function inspectChunk(ctx: EngineContext, chunkId: string, similarCount = 5): Promise<ChunkDetail> {
  const chunk = await ctx.store.chunk(chunkId);
  if (!chunk) throw new EngineError('not_found', `no chunk "${chunkId}" in this store`);
  const similar = await ctx.store.vectorSearch(chunk.vector, similarCount, undefined, chunkId);
  return {
    chunkId: chunk.chunkId,
    sessionId: chunk.sessionId,
    text: chunk.text,
    msgIds: chunk.msgIds,
    createdAt: new Date(chunk.createdAt).toISOString(),
    model: ctx.store.model.model,
    vector: Array.from(chunk.vector),
    similar: similar.map((h) => ({ chunkId: h.chunkId, sessionId: h.sessionId, text: h.text, msgIds: h.msgIds, score: Math.round((1 - h.distance) * 10_000) / 10_000 })),
  };
}
