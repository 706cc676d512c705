/**
 * The chunk heads of the sessions this process saved last, as its own commits left them, with the
 * chunks table version they describe. A save of the same session that finds the store still at that
 * version (the archive record it loaded says which, read fresh under the write lock) takes the heads
 * from here instead of reading the session's rows again: `watch` or the app saving a live
 * conversation turn after turn reads it once. Any commit since, by any process (a save, a forget, a
 * compaction, an index), moves the version on and the rows are read as before.
 */
import type { ChunkHead, ChunkRecord, ChunkStore } from '../store/store.js';

/** Sessions kept per store: the few a person has open (each 2,000 messages is about a megabyte). */
const KEPT_SESSIONS = 4;
/**
 * The messages of the chunks a save wrote are kept with their heads (an edit or an append that
 * rebuilds or reopens one of them then reads no rows at all), up to this many characters a session.
 */
const KEPT_MESSAGE_CHARS = 4_000_000;

interface Known {
  version: number;
  heads: readonly ChunkHead[];
  withMessages: boolean;
}

const known = new WeakMap<ChunkStore, Map<string, Known>>();

/**
 * The session's chunk heads at `version` (the store's current version, read under the write lock):
 * those a save of this process left, or read from the store.
 */
export async function sessionHeadsAt(store: ChunkStore, sessionId: string, withMessages: boolean, version: number): Promise<ChunkHead[]> {
  const kept = known.get(store)?.get(sessionId);
  if (kept && kept.version === version && (kept.withMessages || !withMessages)) return [...kept.heads];
  return store.sessionHeads(sessionId, withMessages);
}

/**
 * Keeps the session's heads after a save: `heads` are all of its chunks once its commits landed,
 * and `version` the chunks table's version read after the last of them (an older version only
 * makes the next save read the rows).
 */
export function rememberHeads(store: ChunkStore, sessionId: string, heads: ReadonlyArray<ChunkHead | ChunkRecord>, version: number, withMessages: boolean): void {
  let sessions = known.get(store);
  if (!sessions) known.set(store, (sessions = new Map()));
  sessions.delete(sessionId);
  const kept = heads.map((h) => headOnly(h));
  // Messages only in full (a bucket's save needs them for every chunk it reopens or rebuilds), else within the bound.
  let chars = 0;
  for (const h of kept) chars += h.ownedJson?.length ?? 0;
  if (!withMessages && chars > KEPT_MESSAGE_CHARS) for (const h of kept) delete h.ownedJson;
  sessions.set(sessionId, { version, withMessages, heads: kept });
  for (const oldest of sessions.keys()) {
    if (sessions.size <= KEPT_SESSIONS) break;
    sessions.delete(oldest);
  }
}

/** A head as the store's read gives it, with its messages as stored when known: a written record loses its text and vector. */
function headOnly(h: ChunkHead | ChunkRecord): ChunkHead {
  const ownedJson = 'text' in h ? JSON.stringify(h.owned) : h.ownedJson;
  return {
    chunkId: h.chunkId,
    sessionId: h.sessionId,
    seq: h.seq,
    part: h.part,
    textHash: h.textHash,
    msgIds: [...h.msgIds],
    owned: h.owned.map((m) => ({ msgId: m.msgId, contentHash: m.contentHash, seq: m.seq })),
    createdAt: h.createdAt,
    ...(ownedJson !== undefined ? { ownedJson } : {}),
  };
}
