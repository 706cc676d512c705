/**
 * Near duplicates across sessions: chunks of different sessions whose texts are the same or nearly
 * (cosine similarity of their vectors at least NEAR_DUPLICATE_FLOOR), kept as pairs in
 * `near-duplicates.json` so that `duplicates` lists them at once whatever the store's size.
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
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { DUPLICATE_THRESHOLD, NEAR_DUPLICATE_FLOOR, type DuplicateCluster, type DuplicateListing } from '../../shared/domain.js';
import type { ArchiveRecord } from './archiveRecord.js';
import { writeFileAtomic } from './atomicFile.js';
import type { EngineContext } from './context.js';
import { EngineError } from './errors.js';
import { nearestInOtherSessions, recordSaved, syncedSketch, type Precheck } from './nearestChunks.js';
import type { ChunkRecord } from './store.js';
import type { VectorSketch } from './vectorSketch.js';

export const NEAR_DUPLICATES_FILE = 'near-duplicates.json';
// The lowest similarity kept (`duplicates --threshold` can go down to it without a new scan) and
// the default one, shared with the IPC contract and the app.
export { DUPLICATE_THRESHOLD, NEAR_DUPLICATE_FLOOR } from '../../shared/domain.js';
/** Nearest chunks of other sessions kept per chunk. */
const NEIGHBOURS = 4;

/** One pair, `a` < `b` by chunk id. */
interface Pair {
  a: string;
  as: string;
  b: string;
  bs: string;
  /** Cosine similarity, 1 for the same text. */
  s: number;
}

interface NearDuplicateFile {
  format: 1;
  /** Session id -> the fingerprint of its content when it was last checked. */
  checked: Record<string, string>;
  pairs: Pair[];
  /** Keys of pairs a person dismissed (`a|b`). */
  dismissed: string[];
}

const fileSchema = z.object({
  format: z.literal(1),
  checked: z.record(z.string(), z.string()),
  pairs: z.array(z.object({ a: z.string(), as: z.string(), b: z.string(), bs: z.string(), s: z.number() })),
  dismissed: z.array(z.string()),
});

const emptyFile = (): NearDuplicateFile => ({ format: 1, checked: {}, pairs: [], dismissed: [] });
const pairKey = (p: { a: string; b: string }) => `${p.a}|${p.b}`;

function makePair(x: { chunkId: string; sessionId: string }, y: { chunkId: string; sessionId: string }, similarity: number): Pair {
  const [first, second] = x.chunkId < y.chunkId ? [x, y] : [y, x];
  return { a: first.chunkId, as: first.sessionId, b: second.chunkId, bs: second.sessionId, s: Math.min(1, Math.round(similarity * 10_000) / 10_000) };
}

/** The file, or an empty one when it is missing or unreadable (every session is then checked again). */
async function readFile(dataDir: string): Promise<NearDuplicateFile> {
  try {
    const parsed = fileSchema.safeParse(JSON.parse(await fs.readFile(path.join(dataDir, NEAR_DUPLICATES_FILE), 'utf8')));
    return parsed.success ? (parsed.data as NearDuplicateFile) : emptyFile();
  } catch {
    return emptyFile();
  }
}

async function writeFile(dataDir: string, file: NearDuplicateFile): Promise<void> {
  await writeFileAtomic(path.join(dataDir, NEAR_DUPLICATES_FILE), JSON.stringify(file));
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
  const file = await readFile(ctx.dataDir);
  const { sessionId } = save;
  const entry = record.sessions[sessionId];
  const sketch = save.precheck?.sketch ?? (await syncedSketch(ctx, record, sessionId));
  const complete = save.previousFingerprint === undefined || file.checked[sessionId] === save.previousFingerprint;
  let chunks = save.written;
  let removed = save.removed;
  if (!complete) {
    chunks = await ctx.store.sessionChunks(sessionId, true);
    removed = new Set(file.pairs.filter((p) => p.as === sessionId || p.bs === sessionId).flatMap((p) => [p.a, p.b]));
  }
  const found = await pairsOf(ctx, sketch, sessionId, chunks, complete ? save.freshHashes : new Set(), complete ? save.precheck : undefined);
  await recordSaved(ctx, sketch, { sessionId, previous: save.previousFingerprint, fingerprint: entry?.fingerprint, removed: save.removed, written: save.written });
  const kept = file.pairs.filter((p) => !removed.has(p.a) && !removed.has(p.b));
  const keys = new Set(kept.map(pairKey));
  for (const pair of found) {
    if (keys.has(pairKey(pair))) continue;
    keys.add(pairKey(pair));
    kept.push(pair);
  }
  file.pairs = kept;
  file.dismissed = file.dismissed.filter((k) => keys.has(k));
  if (entry) file.checked[sessionId] = entry.fingerprint;
  else delete file.checked[sessionId];
  await writeFile(ctx.dataDir, file);
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

/**
 * Brings the file up to date with the archive record (under the write lock): sessions forgotten
 * since are dropped, sessions saved since their last check (or never checked) are checked in full.
 */
export async function refreshNearDuplicates(ctx: EngineContext, record: ArchiveRecord, onProgress?: (done: number, total: number) => void): Promise<void> {
  const file = await readFile(ctx.dataDir);
  const stale = Object.values(record.sessions).filter((e) => file.checked[e.session_id] !== e.fingerprint);
  const gone = Object.keys(file.checked).filter((id) => !record.sessions[id]);
  if (stale.length === 0 && gone.length === 0 && file.pairs.every((p) => record.sessions[p.as] && record.sessions[p.bs])) return;
  const dropped = new Set([...gone, ...stale.map((e) => e.session_id)]);
  const keys = new Set<string>();
  file.pairs = file.pairs.filter((p) => !dropped.has(p.as) && !dropped.has(p.bs) && record.sessions[p.as] && record.sessions[p.bs]);
  for (const p of file.pairs) keys.add(pairKey(p));
  for (const id of gone) delete file.checked[id];
  let done = 0;
  const sketch = stale.length > 0 ? await syncedSketch(ctx, record) : null;
  for (const entry of stale) {
    const chunks = await ctx.store.sessionChunks(entry.session_id, true);
    for (const pair of await pairsOf(ctx, sketch!, entry.session_id, chunks, new Set())) {
      if (keys.has(pairKey(pair))) continue;
      keys.add(pairKey(pair));
      file.pairs.push(pair);
    }
    file.checked[entry.session_id] = entry.fingerprint;
    onProgress?.(++done, stale.length);
  }
  // Dismissals stay with the pairs still stored (a pair found again after a re-check is the same pair).
  file.dismissed = file.dismissed.filter((k) => keys.has(k));
  await writeFile(ctx.dataDir, file);
}

/** After a forget (under the write lock): the forgotten sessions leave no pair and no mark in the file. */
export async function dropSessionsFromNearDuplicates(ctx: EngineContext, sessionIds: readonly string[]): Promise<void> {
  const gone = new Set(sessionIds);
  const file = await readFile(ctx.dataDir);
  if (!sessionIds.some((id) => id in file.checked) && !file.pairs.some((p) => gone.has(p.as) || gone.has(p.bs))) return;
  file.pairs = file.pairs.filter((p) => !gone.has(p.as) && !gone.has(p.bs));
  const keys = new Set(file.pairs.map(pairKey));
  file.dismissed = file.dismissed.filter((k) => keys.has(k));
  for (const id of sessionIds) delete file.checked[id];
  await writeFile(ctx.dataDir, file);
}

/** True when the file does not describe the archive record (refreshNearDuplicates has work to do). */
export async function nearDuplicatesStale(ctx: EngineContext, record: ArchiveRecord): Promise<boolean> {
  const file = await readFile(ctx.dataDir);
  if (Object.keys(file.checked).some((id) => !record.sessions[id])) return true;
  return Object.values(record.sessions).some((e) => file.checked[e.session_id] !== e.fingerprint);
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

/** Pairs at the threshold or above, joined into clusters (chunks linked by any chain of pairs). */
function clustersOf(file: NearDuplicateFile, record: ArchiveRecord, threshold: number): Grouped[] {
  const dismissed = new Set(file.dismissed);
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    for (let y = x; parent.get(y) !== root; ) {
      const next = parent.get(y)!;
      parent.set(y, root);
      y = next;
    }
    return root;
  };
  const related = branchRelation(record);
  const listed = file.pairs.filter((p) => p.s >= threshold && p.as !== p.bs && record.sessions[p.as] && record.sessions[p.bs] && !related(p.as, p.bs));
  for (const p of listed) {
    for (const id of [p.a, p.b]) if (!parent.has(id)) parent.set(id, id);
    const [ra, rb] = [find(p.a), find(p.b)];
    if (ra !== rb) parent.set(ra, rb);
  }
  const groups = new Map<string, Pair[]>();
  for (const p of listed) {
    const root = find(p.a);
    const group = groups.get(root);
    if (group) group.push(p);
    else groups.set(root, [p]);
  }
  return [...groups.values()].map((pairs) => {
    const chunkIds = [...new Set(pairs.flatMap((p) => [p.a, p.b]))].sort();
    return {
      id: createHash('sha256').update(chunkIds.join('\n')).digest('hex').slice(0, 16),
      chunkIds,
      pairs,
      similarity: pairs.reduce((low, p) => Math.min(low, p.s), 1),
      dismissed: pairs.every((p) => dismissed.has(pairKey(p))),
    };
  });
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
  const file = await readFile(ctx.dataDir);
  const all = clustersOf(file, record, threshold);
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

/** Dismisses a cluster (by the id `listNearDuplicates` gave it): its pairs are not listed again. */
export async function dismissNearDuplicates(ctx: EngineContext, record: ArchiveRecord, clusterId: string, threshold = DUPLICATE_THRESHOLD): Promise<{ dismissed: number }> {
  checkThreshold(threshold);
  const file = await readFile(ctx.dataDir);
  const cluster = clustersOf(file, record, threshold).find((c) => c.id === clusterId);
  if (!cluster) throw new EngineError('not_found', `no near-duplicate cluster ${clusterId} at similarity ${threshold} (list them again: sessions may have changed)`);
  file.dismissed = [...new Set([...file.dismissed, ...cluster.pairs.map(pairKey)])];
  await writeFile(ctx.dataDir, file);
  return { dismissed: cluster.chunkIds.length };
}
