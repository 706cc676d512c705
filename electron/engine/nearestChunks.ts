/**
 * Nearest chunks of other sessions, for the near-duplicate check (nearDuplicates.ts): candidates by
 * their codes in the vector sketch (vectorSketch.ts), then their stored vectors compared exactly.
 * Also keeps the sketch in line with the archive record, under the write lock.
 */
import type { ArchiveRecord } from './archiveRecord.js';
import { cosine } from './collapse.js';
import type { EngineContext } from './context.js';
import type { ChunkRecord } from './store.js';
import type { SketchChange, VectorSketch } from './vectorSketch.js';

export interface Neighbour {
  chunkId: string;
  sessionId: string;
  /** Cosine similarity. */
  similarity: number;
}

/** Above this many sessions to read again, the whole store is read once instead of session by session. */
const SCAN_ALL_FROM = 64;

/**
 * Brings the sketch in line with the archive record, `except` one session (the one being saved,
 * recorded afterwards by `recordSaved`): sessions gone are dropped, and sessions it does not hold at
 * their current fingerprint (never seen, saved by a process that died before appending, a journal
 * lost) are read from the store. Under the write lock.
 */
export async function syncedSketch(ctx: EngineContext, record: ArchiveRecord, except?: string): Promise<VectorSketch> {
  const sketch = ctx.sketch;
  await sketch.refresh();
  const held = sketch.fingerprints();
  const changes: SketchChange[] = [];
  for (const [sessionId, fingerprint] of held) {
    if (sessionId !== except && !record.sessions[sessionId]) changes.push({ sessionId, previous: fingerprint, fingerprint: '', replace: true, removed: [], added: [] });
  }
  const stale = new Map(
    Object.values(record.sessions)
      .filter((e) => e.session_id !== except && held.get(e.session_id) !== e.fingerprint)
      .map((e) => [e.session_id, e.fingerprint] as const),
  );
  if (stale.size > 0) {
    const started = performance.now();
    const added = new Map([...stale.keys()].map((id) => [id, [] as Array<{ chunkId: string; code: Uint32Array }>]));
    let read = 0;
    for await (const row of ctx.store.sessionVectors(stale.size >= SCAN_ALL_FROM ? null : [...stale.keys()])) {
      const list = added.get(row.sessionId);
      if (!list || row.vector.length === 0) continue;
      list.push({ chunkId: row.chunkId, code: sketch.encode(row.vector) });
      read++;
    }
    for (const [sessionId, fingerprint] of stale) changes.push({ sessionId, previous: '', fingerprint, replace: true, removed: [], added: added.get(sessionId)! });
    ctx.logger.info(`vector sketch: ${stale.size} session(s), ${read} chunk(s) read from the store in ${Math.round(performance.now() - started)} ms`);
  }
  await sketch.append(changes);
  return sketch;
}

/**
 * Records a save in the sketch: the chunks it removed and wrote, at the session's new fingerprint
 * (`fingerprint` undefined: the session is gone). A sketch that did not hold the session at its
 * previous fingerprint reads the session from the store instead.
 */
export async function recordSaved(ctx: EngineContext, sketch: VectorSketch, save: { sessionId: string; previous: string | undefined; fingerprint: string | undefined; removed: ReadonlySet<string>; written: readonly ChunkRecord[] }): Promise<void> {
  const { sessionId } = save;
  const held = sketch.fingerprints().get(sessionId) ?? '';
  if (save.fingerprint === undefined) {
    await sketch.append([{ sessionId, previous: held, fingerprint: '', replace: true, removed: [], added: [] }]);
    return;
  }
  if (held === (save.previous ?? '')) {
    const added = save.written.filter((c) => c.vector.length > 0).map((c) => ({ chunkId: c.chunkId, code: sketch.encode(c.vector) }));
    await sketch.append([{ sessionId, previous: held, fingerprint: save.fingerprint, replace: false, removed: [...save.removed], added }]);
    return;
  }
  const added: Array<{ chunkId: string; code: Uint32Array }> = [];
  for await (const row of ctx.store.sessionVectors([sessionId])) if (row.vector.length > 0) added.push({ chunkId: row.chunkId, code: sketch.encode(row.vector) });
  await sketch.append([{ sessionId, previous: '', fingerprint: save.fingerprint, replace: true, removed: [], added }]);
}

/**
 * For each vector, at most `k` chunks of sessions other than `sessionId` at cosine `minSimilarity`
 * or more, nearest first. Only the candidates the sketch picks are read from the store.
 */
export async function nearestInOtherSessions(ctx: EngineContext, sketch: VectorSketch, vectors: readonly Float32Array[], sessionId: string, minSimilarity: number, k: number): Promise<Neighbour[][]> {
  const candidates = sketch.candidates(vectors, sessionId, minSimilarity);
  const wanted = new Set<number>();
  for (const list of candidates) for (const e of list) wanted.add(e);
  if (wanted.size === 0) return vectors.map(() => []);
  const entries = new Map([...wanted].map((e) => [e, sketch.entry(e)] as const));
  const stored = await ctx.store.vectorsByChunkId([...new Set([...entries.values()].map((x) => x.chunkId))]);
  return candidates.map((list, q) => {
    const near: Neighbour[] = [];
    for (const e of list) {
      const { chunkId, sessionId: other } = entries.get(e)!;
      const vector = stored.get(chunkId);
      if (!vector) continue; // removed by another process since the sketch was read
      const similarity = cosine(vectors[q]!, vector);
      if (similarity >= minSimilarity) near.push({ chunkId, sessionId: other, similarity });
    }
    return near.sort((a, b) => b.similarity - a.similarity).slice(0, k);
  });
}
