/**
 * Forks: a session whose leading messages equal an earlier archived session's (same role and
 * content, whatever their ids; at least FORK_MIN_SHARED of them) is recorded as branched from the one
 * it shares the longest leading run with: a SillyTavern branch, ChatGPT's "branch in new chat", Claude
 * Code's resume, an Open WebUI clone. Candidates are found in the archive record by the hashes of
 * their first messages; the shared length is then counted from the store's message hashes of the
 * candidates only. Each session keeps its own chunks (texts shared with the other were embedded
 * once, see chunkWriter.ts), so forgetting or overwriting either leaves the other whole.
 */
import { FORK_MIN_SHARED, type ArchiveEntry, type ForkOf } from '../../../shared/domain.js';
import type { EngineContext } from '../context.js';
import type { ArchiveRecord } from './archiveRecord.js';
import type { ChunkHead } from '../store/store.js';

/** The content hashes of a session's messages, in its order. */
export function orderedHashes(heads: readonly ChunkHead[]): string[] {
  return heads
    .flatMap((h) => h.owned)
    .sort((a, b) => a.seq - b.seq || (a.msgId < b.msgId ? -1 : a.msgId > b.msgId ? 1 : 0))
    .map((m) => m.contentHash);
}

/** The session `sessionId` (now holding `heads`) branched from, or null. */
export async function findFork(ctx: EngineContext, record: ArchiveRecord, sessionId: string, heads: readonly ChunkHead[]): Promise<ForkOf | null> {
  const own = orderedHashes(heads);
  if (own.length < FORK_MIN_SHARED) return null;
  const key = own.slice(0, FORK_MIN_SHARED).join(',');
  // A session branches from one archived before it, never from a later copy of itself.
  const since = record.sessions[sessionId]?.archived_at ?? new Date().toISOString();
  const candidates = Object.values(record.sessions).filter((e) => e.session_id !== sessionId && e.head_key === key && e.archived_at <= since);
  let best: { entry: ArchiveEntry; shared: number } | null = null;
  for (const entry of candidates) {
    const theirs = orderedHashes(await ctx.store.sessionHeads(entry.session_id));
    let shared = 0;
    while (shared < own.length && shared < theirs.length && own[shared] === theirs[shared]) shared++;
    // The longest shared run wins; of equal ones, the session archived first (the original).
    if (shared >= FORK_MIN_SHARED && (!best || shared > best.shared || (shared === best.shared && entry.archived_at < best.entry.archived_at))) best = { entry, shared };
  }
  return best ? { sessionId: best.entry.session_id, sharedMessages: best.shared } : null;
}

/** A recorded fork whose parent is still archived, as the API reports it. */
export function forkOfEntry(entry: ArchiveEntry, record: ArchiveRecord): ForkOf | null {
  const fork = entry.fork_of;
  return fork && record.sessions[fork.session_id] ? { sessionId: fork.session_id, sharedMessages: fork.shared_messages } : null;
}

/** Looks again at the sessions recorded as branched from `parentId`, after it changed. */
export async function refreshForksOf(ctx: EngineContext, record: ArchiveRecord, parentId: string): Promise<void> {
  for (const child of Object.values(record.sessions)) {
    if (child.fork_of?.session_id !== parentId) continue;
    await recordFork(ctx, child, await findFork(ctx, record, child.session_id, await ctx.store.sessionHeads(child.session_id)));
  }
}

/**
 * Sets the session's fork in the record, and in the store's state when it changed (the record is a
 * cache: rebuilt from the store, it takes the forks from there). Write lock held.
 */
export async function recordFork(ctx: EngineContext, entry: ArchiveEntry, fork: ForkOf | null): Promise<void> {
  const next = fork ? { session_id: fork.sessionId, shared_messages: fork.sharedMessages } : undefined;
  const before = entry.fork_of;
  if (next) entry.fork_of = next;
  else delete entry.fork_of;
  if (before?.session_id === next?.session_id && before?.shared_messages === next?.shared_messages) return;
  if (next) await ctx.state.put('fork', [{ key: entry.session_id, sessions: [entry.session_id, next.session_id], value: next }]);
  else await ctx.state.delete('fork', [entry.session_id]);
}
