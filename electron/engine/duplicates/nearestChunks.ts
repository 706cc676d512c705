/**
 * Nearest chunks of other sessions, for the near-duplicate check (nearDuplicates.ts): candidates by
 * their codes in the vector sketch (vectorSketch.ts), then their stored vectors compared exactly.
 * Also keeps the sketch in line with the archive record, under the write lock.
 */
import { NEAR_DUPLICATE_FLOOR } from '../../../shared/domain.js';
import type { ArchiveRecord } from '../record/archiveRecord.js';
import { cosine } from '../search/collapse.js';
import type { EngineContext } from '../context.js';
import type { ChunkRecord } from '../store/store.js';
import type { SketchChange, VectorSketch } from './vectorSketch.js';

export interface Neighbour {
  chunkId: string;
  sessionId: string;
  /** Cosine similarity. */
  similarity: number;
}

/**
 * Candidates read per new chunk at most, the closest by their codes: when a text has many near
 * copies, the few nearest are what is kept (nearDuplicates.ts keeps 4). Each candidate is a row read
 * from the store (on a bucket, about a request each, as they lie in different fragments), so this
 * bounds a save's reads by the chunks it writes, whatever the store holds: twice the neighbours
 * kept, so that an order of codes that differs a little from the exact one still finds the nearest.
 * Copies beyond it are linked to the new chunk through those kept (a cluster is any chain of pairs).
 */
export const CANDIDATES_PER_CHUNK = 8;

/**
 * Candidates read per save at most: on average this many per new chunk, and at least
 * `CANDIDATE_READS_AT_LEAST` (a save of a few chunks reads up to CANDIDATES_PER_CHUNK for each). They
 * are chosen round by round, every chunk's nearest by its code first, then every chunk's next, so a
 * large save of text new to the store (whose candidates are mostly not copies at all) reads at most
 * a few per chunk, however many stored chunks lie near it: on a bucket, where each candidate costs
 * about a request, the reads of a save do not grow with the store. A chunk's nearest candidate is the
 * one most likely to be its copy, and copies beyond those read are linked through them (a cluster is
 * any chain of pairs).
 */
export const CANDIDATE_READS_PER_CHUNK = 2;
const CANDIDATE_READS_AT_LEAST = 16;

/** The candidates a save of `chunks` new chunks reads at most. */
function readBudget(chunks: number): number {
  return Math.max(CANDIDATE_READS_AT_LEAST, CANDIDATE_READS_PER_CHUNK * chunks);
}

/**
 * The candidates to compare, at most `budget`: those of the lists already read (`read`, within the
 * budget when they were read), then the others round by round over the chunks' lists (each nearest first).
 */
function chosenWithin(lists: readonly Candidate[][], budget: number, read: ReadonlySet<string> = new Set()): Set<string> {
  const chosen = new Set<string>();
  for (const list of lists) for (const { chunkId } of list) if (read.has(chunkId)) chosen.add(chunkId);
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let rank = 0; rank < longest && chosen.size < budget; rank++) {
    for (const list of lists) {
      const candidate = list[rank];
      if (candidate && chosen.size < budget) chosen.add(candidate.chunkId);
    }
  }
  return chosen;
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
  await catchUpSketch(ctx, record, except);
  return ctx.sketch;
}

/**
 * What `syncedSketch` does, reading at most `most` sessions from the store (a catch-up done in
 * several holds of the write lock). Returns how many sessions are still to be read.
 */
export async function catchUpSketch(ctx: EngineContext, record: ArchiveRecord, except?: string, most = Infinity): Promise<number> {
  const sketch = ctx.sketch;
  await sketch.refresh();
  const held = sketch.fingerprints();
  const changes: SketchChange[] = [];
  for (const [sessionId, fingerprint] of held) {
    if (sessionId !== except && !record.sessions[sessionId]) changes.push({ sessionId, previous: fingerprint, fingerprint: '', replace: true, removed: [], added: [] });
  }
  const behind = Object.values(record.sessions).filter((e) => e.session_id !== except && held.get(e.session_id) !== e.fingerprint);
  const stale = new Map(behind.slice(0, most).map((e) => [e.session_id, e.fingerprint] as const));
  if (stale.size > 0) {
    const started = performance.now();
    const added = new Map([...stale.keys()].map((id) => [id, [] as Array<{ chunkId: string; code: Uint32Array }>]));
    let read = 0;
    // Reading the whole store once is cheaper than many sessions one by one, unless only some are wanted.
    const scanAll = stale.size >= SCAN_ALL_FROM && stale.size === behind.length;
    for await (const row of ctx.store.sessionVectors(scanAll ? null : [...stale.keys()])) {
      const list = added.get(row.sessionId);
      if (!list || row.vector.length === 0) continue;
      list.push({ chunkId: row.chunkId, code: sketch.encode(row.vector) });
      read++;
    }
    for (const [sessionId, fingerprint] of stale) changes.push({ sessionId, previous: '', fingerprint, replace: true, removed: [], added: added.get(sessionId)! });
    ctx.logger.info(`vector sketch: ${stale.size} session(s), ${read} chunk(s) read from the store in ${Math.round(performance.now() - started)} ms`);
  }
  await sketch.append(changes);
  return behind.length - stale.size;
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

type Candidate = { chunkId: string; sessionId: string };

/** The sketch's candidates for these vectors, by chunk (indices into the sketch do not outlive a call). */
function candidatesOf(sketch: VectorSketch, vectors: readonly Float32Array[], sessionId: string): Candidate[][] {
  return sketch.candidates(vectors, sessionId, NEAR_DUPLICATE_FLOOR, CANDIDATES_PER_CHUNK).map((list) => list.map((e) => sketch.entry(e)));
}

/**
 * A save's code comparisons, run batch by batch as its new chunks are embedded: the model works in
 * its worker on one core, and these run meanwhile on the engine's thread; the candidates' stored
 * vectors are read meanwhile too (the store reads on its own threads), so that what is left after
 * the commit is comparing them. Under the write lock: no other writer removes a candidate meanwhile.
 */
export interface Precheck {
  add(hashes: readonly string[], vectors: readonly Float32Array[]): void;
  /** Candidates by text hash, for the texts added. */
  readonly found: ReadonlyMap<string, Candidate[]>;
  readonly sketch: VectorSketch;
  /** Time spent comparing codes. */
  readonly ms: number;
  /** The stored vectors of the candidates found, read as they were found (those whose read failed are missing). */
  vectors(): Promise<ReadonlyMap<string, Float32Array>>;
}

export async function startPrecheck(ctx: EngineContext, record: ArchiveRecord, sessionId: string): Promise<Precheck> {
  const sketch = await syncedSketch(ctx, record, sessionId);
  const found = new Map<string, Candidate[]>();
  const read = new Map<string, Float32Array>();
  const asked = new Set<string>();
  const reads: Array<Promise<void>> = [];
  let ms = 0;
  let chunksSeen = 0;
  return {
    sketch,
    found,
    get ms() {
      return ms;
    },
    add(hashes, vectors) {
      const started = performance.now();
      // Texts without candidates here are looked up again after the commit.
      if (vectors.every((v) => v.length === sketch.dim)) candidatesOf(sketch, vectors, sessionId).forEach((list, i) => found.set(hashes[i]!, list));
      // Read now, as far as the budget of the chunks embedded so far allows: the nearest of each chunk first.
      chunksSeen += hashes.length;
      const lists = hashes.map((hash) => (found.get(hash) ?? []).filter(({ chunkId }) => !asked.has(chunkId)));
      const ids = [...chosenWithin(lists, readBudget(chunksSeen) - asked.size)];
      for (const id of ids) asked.add(id);
      // A read that fails leaves its vectors missing: the check after the commit reads them itself.
      if (ids.length > 0) reads.push(ctx.store.vectorsByChunkId(ids).then((vectors) => vectors.forEach((v, id) => read.set(id, v)), () => {}));
      ms += performance.now() - started;
    },
    async vectors() {
      await Promise.all(reads);
      return read;
    },
  };
}

/**
 * For each vector, at most `k` chunks of sessions other than `sessionId` at cosine
 * NEAR_DUPLICATE_FLOOR or more, nearest first. Only the candidates the sketch picks (or `known`
 * picked during embedding) are read from the store.
 */
export async function nearestInOtherSessions(ctx: EngineContext, sketch: VectorSketch, vectors: readonly Float32Array[], sessionId: string, k: number, known: ReadonlyArray<Candidate[] | undefined> = [], prefetched?: Precheck): Promise<Neighbour[][]> {
  const unknown = vectors.map((_, i) => i).filter((i) => !known[i]);
  const computed = candidatesOf(sketch, unknown.map((i) => vectors[i]!), sessionId);
  const candidates = vectors.map((_, i) => known[i] ?? []);
  unknown.forEach((i, j) => (candidates[i] = computed[j]!));
  if (candidates.every((list) => list.length === 0)) return vectors.map(() => []);
  const stored = new Map(prefetched ? await prefetched.vectors() : []);
  const wanted = chosenWithin(candidates, readBudget(vectors.length), new Set(stored.keys()));
  const unread = [...wanted].filter((id) => !stored.has(id));
  if (unread.length > 0) for (const [id, vector] of await ctx.store.vectorsByChunkId(unread)) stored.set(id, vector);
  return candidates.map((list, q) => {
    const near: Neighbour[] = [];
    for (const { chunkId, sessionId: other } of list) {
      if (!wanted.has(chunkId)) continue; // beyond the save's reads
      const vector = stored.get(chunkId);
      if (!vector) continue; // removed by another process since the sketch was read
      const similarity = cosine(vectors[q]!, vector);
      if (similarity >= NEAR_DUPLICATE_FLOOR) near.push({ chunkId, sessionId: other, similarity });
    }
    return near.sort((a, b) => b.similarity - a.similarity).slice(0, k);
  });
}
