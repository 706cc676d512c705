/**
 * Near duplicates across sessions: chunks of different sessions whose texts are the same or nearly
 * (cosine similarity of their vectors at least NEAR_DUPLICATE_FLOOR), kept as pairs in
 * `near-duplicates.jsonl` (pairJournal.ts) so that `duplicates` lists them at once whatever the
 * store's size.
 *
 * The list is kept up to date by every save: the chunks it wrote are looked up against the other
 * sessions' chunks (a text another session holds, by hash; a text new to the store, by the codes
 * of the vector sketch and then exactly: nearestChunks.ts), and pairs of chunks it removed are
 * dropped. The file also records, per session, the fingerprint of the content that was checked: a
 * session whose archive entry says otherwise (a save that died before writing this file, a store
 * from before this file existed, a file lost) is checked again in full when the list is next read.
 * The file is derived data and is only ever written under the write lock.
 *
 * Pairs between a session and the sessions it branched from (or that branched from it) are not
 * listed: those copies are the shared history of a branch, shown as such in the session view.
 */
import { createHash } from 'node:crypto';
import { DUPLICATE_THRESHOLD, NEAR_DUPLICATE_FLOOR, type DuplicateCluster, type DuplicateListing } from '../../../shared/domain.js';
import type { ArchiveRecord } from '../record/archiveRecord.js';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { assertWriteLock } from '../files/writeLock.js';
import { catchUpSketch, nearestInOtherSessions, recordSaved, syncedSketch, type Precheck } from './nearestChunks.js';
import { pairKey, type Pair, type PairJournal } from './pairJournal.js';
import type { ChunkRecord } from '../store/store.js';
import type { VectorSketch } from './vectorSketch.js';

// The lowest similarity kept (`duplicates --threshold` can go down to it without a new scan) and
// the default one, shared with the IPC contract and the app.
export { DUPLICATE_THRESHOLD, NEAR_DUPLICATE_FLOOR } from '../../../shared/domain.js';
export { PAIRS_FILE as NEAR_DUPLICATES_FILE } from './pairJournal.js';
/** Nearest chunks of other sessions kept per chunk. */
const NEIGHBOURS = 4;

function makePair(x: { chunkId: string; sessionId: string }, y: { chunkId: string; sessionId: string }, similarity: number): Pair {
  const [first, second] = x.chunkId < y.chunkId ? [x, y] : [y, x];
  return { a: first.chunkId, as: first.sessionId, b: second.chunkId, bs: second.sessionId, s: Math.min(1, Math.round(similarity * 10_000) / 10_000) };
}

/**
 * The pairs between `chunks` (all of one session) and the other sessions' chunks. `freshHashes`:
 * texts embedded by this save, which no other chunk can hold; every other text is looked up by hash
 * first (the same text is similarity 1), and only texts without a copy are searched by vector.
 */
async function pairsOf(ctx: EngineContext, sketch: VectorSketch, sessionId: string, chunks: readonly ChunkRecord[], freshHashes: ReadonlySet<string>, precheck?: Precheck): Promise<Pair[]> {
  const byHash = new Map<string, ChunkRecord[]>();
  for (const chunk of chunks) {
    const same = byHash.get(chunk.textHash);
    if (same) same.push(chunk);
    else byHash.set(chunk.textHash, [chunk]);
  }
  const pairs: Pair[] = [];
  const known = [...byHash.keys()].filter((h) => !freshHashes.has(h));
  const copies = known.length > 0 ? await ctx.store.chunksWithTextHashes(known, sessionId) : [];
  const copied = new Set<string>();
  for (const copy of copies) {
    copied.add(copy.textHash);
    for (const own of byHash.get(copy.textHash)!) pairs.push(makePair(own, copy, 1));
  }
  const searched = [...byHash.entries()].filter(([hash, own]) => !copied.has(hash) && own[0]!.vector.length > 0);
  const neighbours = await nearestInOtherSessions(
    ctx,
    sketch,
    searched.map(([, own]) => own[0]!.vector),
    sessionId,
    NEIGHBOURS,
    searched.map(([hash]) => precheck?.found.get(hash)),
    precheck,
  );
  searched.forEach(([, own], i) => {
    for (const near of neighbours[i]!) for (const chunk of own) pairs.push(makePair(chunk, near, near.similarity));
  });
  return pairs;
}

/**
 * After a save (under the write lock): looks up the chunks it wrote, drops pairs of the chunks it
 * removed, and records the session as checked at `fingerprint`. A session whose earlier check is
 * missing (`previousFingerprint` differs from what the file recorded) is checked in full instead.
 * Returns how many chunks this save wrote have a copy at DUPLICATE_THRESHOLD or above in a session
 * the saved one is not a branch of.
 */
export async function checkSaved(
  ctx: EngineContext,
  record: ArchiveRecord,
  save: { sessionId: string; written: readonly ChunkRecord[]; removed: ReadonlySet<string>; freshHashes: ReadonlySet<string>; previousFingerprint: string | undefined; precheck?: Precheck | undefined },
): Promise<number> {
  const journal = ctx.pairs;
  await journal.refresh(true);
  const { sessionId } = save;
  const entry = record.sessions[sessionId];
  const sketch = save.precheck?.sketch ?? (await syncedSketch(ctx, record, sessionId));
  const complete = save.previousFingerprint === undefined || journal.checked.get(sessionId) === save.previousFingerprint;
  // A session whose earlier check is missing is checked in full: its pairs all go, and come back if found again.
  const chunks = complete ? save.written : await ctx.store.sessionChunks(sessionId, true);
  const found = await pairsOf(ctx, sketch, sessionId, chunks, complete ? save.freshHashes : new Set(), complete ? save.precheck : undefined);
  await recordSaved(ctx, sketch, { sessionId, previous: save.previousFingerprint, fingerprint: entry?.fingerprint, removed: save.removed, written: save.written });
  await journal.append({
    ...(complete ? { dropChunks: [...save.removed] } : { dropSessions: [sessionId] }),
    add: found,
    ...(entry ? { checked: { [sessionId]: entry.fingerprint } } : { unchecked: [sessionId] }),
  });
  const related = branchRelation(record);
  const written = new Set(save.written.map((c) => c.chunkId));
  const reported = new Set<string>();
  for (const pair of found) {
    if (pair.s < DUPLICATE_THRESHOLD) continue;
    const [own, other] = pair.as === sessionId ? [pair.a, pair.bs] : [pair.b, pair.as];
    if (written.has(own) && !related(sessionId, other)) reported.add(own);
  }
  return reported.size;
}

/** Whether one of two sessions branched from the other, at any depth (see forks.ts). */
function branchRelation(record: ArchiveRecord): (x: string, y: string) => boolean {
  const ancestors = new Map<string, Set<string>>();
  const of = (id: string): Set<string> => {
    let found = ancestors.get(id);
    if (found) return found;
    found = new Set();
    for (let fork = record.sessions[id]?.fork_of; fork && record.sessions[fork.session_id] && !found.has(fork.session_id) && fork.session_id !== id; fork = record.sessions[fork.session_id]?.fork_of) found.add(fork.session_id);
    ancestors.set(id, found);
    return found;
  };
  return (x, y) => of(x).has(y) || of(y).has(x);
}

/** Sessions whose codes the vector sketch reads from the store in one step of a catch-up. */
const SKETCH_SESSIONS_PER_STEP = 128;

/**
 * One step of bringing the file up to date with the archive record, under the write lock: sessions
 * forgotten since are dropped; then the vector sketch reads up to SKETCH_SESSIONS_PER_STEP sessions
 * it lacks, or, once it holds every session, one session saved since its last check (or never
 * checked) is checked in full. Each step is one line in the journal, so the write lock is held for one
 * step at a time and saves go on between steps (however many sessions an upgrade left to check).
 * Returns how many sessions are left to check, and whether this step checked one.
 */
export async function refreshStep(ctx: EngineContext, record: ArchiveRecord, first: boolean): Promise<{ left: number; checked: boolean }> {
  const journal = ctx.pairs;
  await journal.refresh(true);
  const gone = new Set([...journal.checked.keys()].filter((id) => !record.sessions[id]));
  // Pairs naming a session gone without a mark (a file older than its record): looked for once.
  if (first) for (const p of journal.pairs.values()) for (const id of [p.as, p.bs]) if (!record.sessions[id]) gone.add(id);
  if (gone.size > 0) await journal.append({ dropSessions: [...gone], unchecked: [...gone] });
  const stale = Object.values(record.sessions).filter((e) => journal.checked.get(e.session_id) !== e.fingerprint);
  if (stale.length === 0) return { left: 0, checked: false };
  if ((await catchUpSketch(ctx, record, undefined, SKETCH_SESSIONS_PER_STEP)) > 0) return { left: stale.length, checked: false };
  const entry = stale[0]!;
  const chunks = await ctx.store.sessionChunks(entry.session_id, true);
  const found = await pairsOf(ctx, ctx.sketch, entry.session_id, chunks, new Set());
  await journal.append({ dropSessions: [entry.session_id], add: found, checked: { [entry.session_id]: entry.fingerprint } });
  return { left: stale.length - 1, checked: true };
}

/**
 * After a forget (under the write lock): the forgotten sessions leave no pair, no mark and no code
 * in the files, not even in their history (both are rewritten).
 */
export async function dropSessionsFromNearDuplicates(ctx: EngineContext, sessionIds: readonly string[]): Promise<void> {
  await ctx.pairs.compact({ dropSessions: [...sessionIds], unchecked: [...sessionIds] });
  await ctx.sketch.compact(sessionIds);
}

/** After saves that replaced text (forgetting messages, redacting; under the write lock): no line of either file's history is left. */
export async function compactNearDuplicates(ctx: EngineContext): Promise<void> {
  await ctx.pairs.compact();
  await ctx.sketch.compact();
}

/** True when the file does not describe the archive record (refreshStep has work to do). */
export async function nearDuplicatesStale(ctx: EngineContext, record: ArchiveRecord): Promise<boolean> {
  const journal = ctx.pairs;
  await journal.refresh(false);
  if ([...journal.checked.keys()].some((id) => !record.sessions[id])) return true;
  return Object.values(record.sessions).some((e) => journal.checked.get(e.session_id) !== e.fingerprint);
}

export interface ListOptions {
  threshold?: number;
  limit?: number;
  /** Also list clusters a person dismissed. */
  includeDismissed?: boolean;
}

interface Grouped {
  id: string;
  chunkIds: string[];
  pairs: Pair[];
  similarity: number;
  dismissed: boolean;
}

/**
 * A cluster's id: its lowest chunk id and its size. The clusters that hold a chunk at falling
 * thresholds only grow, so no two clusters, at any threshold, share an id: a cluster keeps its id
 * at every threshold that lists it, and the id alone finds it again (`dismissNearDuplicates`).
 */
function clusterId(lowestChunkId: string, size: number): string {
  return createHash('sha256').update(`${lowestChunkId}\n${size}`).digest('hex').slice(0, 16);
}

/** Chunks linked by any chain of pairs, with each group's size and lowest chunk id. */
class Linked {
  private readonly parent = new Map<string, string>();
  private readonly size = new Map<string, number>();
  private readonly lowest = new Map<string, string>();

  find(x: string): string {
    if (!this.parent.has(x)) {
      this.parent.set(x, x);
      this.size.set(x, 1);
      this.lowest.set(x, x);
    }
    let root = x;
    while (this.parent.get(root) !== root) root = this.parent.get(root)!;
    for (let y = x; this.parent.get(y) !== root; ) {
      const next = this.parent.get(y)!;
      this.parent.set(y, root);
      y = next;
    }
    return root;
  }

  link(p: Pair): string {
    const [ra, rb] = [this.find(p.a), this.find(p.b)];
    if (ra === rb) return ra;
    const [small, big] = this.size.get(ra)! < this.size.get(rb)! ? [ra, rb] : [rb, ra];
    this.parent.set(small, big);
    this.size.set(big, this.size.get(big)! + this.size.get(small)!);
    const [la, lb] = [this.lowest.get(big)!, this.lowest.get(small)!];
    this.lowest.set(big, la < lb ? la : lb);
    return big;
  }

  idOf(root: string): string {
    return clusterId(this.lowest.get(root)!, this.size.get(root)!);
  }
}

/** The pairs `duplicates` lists at a threshold: between live sessions that are not branches of each other. */
function listedPairs(journal: PairJournal, record: ArchiveRecord, threshold: number): Pair[] {
  const related = branchRelation(record);
  return [...journal.pairs.values()].filter((p) => p.s >= threshold && p.as !== p.bs && record.sessions[p.as] && record.sessions[p.bs] && !related(p.as, p.bs));
}

function grouped(pairs: Pair[], dismissed: ReadonlySet<string>): Grouped {
  const chunkIds = [...new Set(pairs.flatMap((p) => [p.a, p.b]))].sort();
  return {
    id: clusterId(chunkIds[0]!, chunkIds.length),
    chunkIds,
    pairs,
    similarity: pairs.reduce((low, p) => Math.min(low, p.s), 1),
    dismissed: pairs.every((p) => dismissed.has(pairKey(p))),
  };
}

/** Pairs at the threshold or above, joined into clusters (chunks linked by any chain of pairs). */
function clustersOf(journal: PairJournal, record: ArchiveRecord, threshold: number, dismissed: ReadonlySet<string>): Grouped[] {
  const linked = new Linked();
  const listed = listedPairs(journal, record, threshold);
  for (const p of listed) linked.link(p);
  const groups = new Map<string, Pair[]>();
  for (const p of listed) {
    const root = linked.find(p.a);
    const group = groups.get(root);
    if (group) group.push(p);
    else groups.set(root, [p]);
  }
  return [...groups.values()].map((pairs) => grouped(pairs, dismissed));
}

/**
 * The cluster with this id at whichever threshold lists it: pairs are linked from the most similar
 * down, and each group of chunks is looked at as it forms (every cluster of every threshold forms
 * once on the way). It comes with every pair between its chunks.
 */
function clusterById(journal: PairJournal, record: ArchiveRecord, id: string, dismissed: ReadonlySet<string>): Grouped | undefined {
  const pairs = listedPairs(journal, record, NEAR_DUPLICATE_FLOOR).sort((x, y) => y.s - x.s);
  const linked = new Linked();
  for (let i = 0; i < pairs.length; ) {
    const similarity = pairs[i]!.s;
    const formed = new Set<string>();
    for (; i < pairs.length && pairs[i]!.s === similarity; i++) formed.add(linked.link(pairs[i]!));
    const root = [...formed].map((r) => linked.find(r)).find((r) => linked.idOf(r) === id);
    if (root === undefined) continue;
    // With every pair inside it: a lower threshold that lists the same chunks lists those pairs too.
    const chunks = new Set(pairs.slice(0, i).filter((p) => linked.find(p.a) === root).flatMap((p) => [p.a, p.b]));
    return grouped(pairs.filter((p) => chunks.has(p.a) && chunks.has(p.b)), dismissed);
  }
  return undefined;
}

function checkThreshold(threshold: number): void {
  if (!Number.isFinite(threshold) || threshold < NEAR_DUPLICATE_FLOOR || threshold > 1) {
    throw new EngineError('invalid_request', `the similarity threshold must be between ${NEAR_DUPLICATE_FLOOR} and 1 (near duplicates are kept from ${NEAR_DUPLICATE_FLOOR} up), not ${threshold}`);
  }
}

/**
 * The clusters, most similar first (then the largest), with each chunk's text and session title.
 * Reads only the file and the texts of the clusters returned. The caller refreshes the file first.
 */
export async function listNearDuplicates(ctx: EngineContext, record: ArchiveRecord, options: ListOptions = {}): Promise<DuplicateListing> {
  const threshold = options.threshold ?? DUPLICATE_THRESHOLD;
  checkThreshold(threshold);
  const limit = options.limit ?? 50;
  const journal = ctx.pairs;
  await journal.refresh(false);
  const all = clustersOf(journal, record, threshold, await dismissedPairs(ctx));
  const shown = all.filter((c) => options.includeDismissed || !c.dismissed).sort((x, y) => y.similarity - x.similarity || y.chunkIds.length - x.chunkIds.length || (x.id < y.id ? -1 : 1));
  const page = shown.slice(0, limit);
  const texts = await ctx.store.chunkTexts(page.flatMap((c) => c.chunkIds));
  const clusters: DuplicateCluster[] = [];
  for (const group of page) {
    const chunks = group.chunkIds
      .filter((id) => texts.has(id))
      .map((id) => {
        const { sessionId, text } = texts.get(id)!;
        return { chunkId: id, sessionId, sessionTitle: record.sessions[sessionId]?.title ?? '', text };
      });
    // A chunk removed by another process since the file was written: the cluster shows what is left.
    if (new Set(chunks.map((c) => c.sessionId)).size < 2) continue;
    clusters.push({ id: group.id, similarity: group.similarity, chunks, ...(group.dismissed ? { dismissed: true } : {}) });
  }
  return { threshold, total: shown.length, dismissed: all.filter((c) => c.dismissed).length, clusters };
}

/**
 * The pairs a person dismissed: those this machine's pairs file marks, and those the store's state
 * holds (dismissed on any machine sharing the store).
 */
async function dismissedPairs(ctx: EngineContext): Promise<Set<string>> {
  const dismissed = new Set(ctx.pairs.dismissed);
  for (const key of (await ctx.state.all('dismissed')).keys()) dismissed.add(key);
  return dismissed;
}

/** Dismisses a cluster by the id a listing gave it, at any threshold: its pairs are not listed again. */
export async function dismissNearDuplicates(ctx: EngineContext, record: ArchiveRecord, id: string): Promise<{ dismissed: number }> {
  const journal = ctx.pairs;
  await journal.refresh(true);
  const cluster = clusterById(journal, record, id, await dismissedPairs(ctx));
  if (!cluster) throw new EngineError('not_found', `no near-duplicate cluster ${id} (list them again: sessions may have changed)`);
  // The store keeps the decision for every machine; this machine's pairs file marks it too.
  assertWriteLock(ctx.dataDir);
  await ctx.state.put('dismissed', cluster.pairs.map((p) => ({ key: pairKey(p), sessions: [p.as, p.bs] as [string, string], value: { a: p.a, b: p.b } })));
  await journal.append({ dismiss: cluster.pairs.map(pairKey) });
  return { dismissed: cluster.chunkIds.length };
}
