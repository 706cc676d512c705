/**
 * Chunks that do not depend on how often a session is saved. A session saved message by message
 * (as `watch` saves a live one, turn by turn) ends with the same chunks as one saved at once: when
 * new messages follow the session's last stored message, the last chunk is reopened and chunked
 * again together with them. The chunker decides only from the chunk being built and the next piece,
 * so the chunks before the reopened one are final, and chunking from the reopened chunk's start
 * gives what one save would have given; the reopened chunk is re-embedded only when the new
 * messages join it (at most one chunk per save).
 *
 * The chunk reopened is the last one, or, when the last one begins with a later part of a message
 * split across chunks, the one holding that message's first part.
 */
import { chunkDialogueAsync, type PlannedChunk } from './chunker.js';
import type { NormalizedMessage } from './normalize.js';
import type { ChunkHead, OwnedMessage } from '../store/store.js';

export interface ReopenedPlan {
  /** Chunks to write: the new ones, and the reopened one when it changed. */
  plan: PlannedChunk[];
  /** Stored chunks the plan replaces. */
  removedIds: string[];
  /** Every message the plan's chunks hold (stored and new). */
  owned: Map<string, OwnedMessage>;
}

/**
 * The chunks for new messages that come after everything stored, reopening the stored tail.
 * `placed` are the new messages in their session order (with their positions); null when there is
 * nothing to reopen (an empty session).
 */
export async function planAppend(
  sessionId: string,
  heads: readonly ChunkHead[],
  placed: readonly NormalizedMessage[],
  storedContent: (chunkIds: string[]) => Promise<Map<string, OwnedMessage>>,
  toOwned: (m: NormalizedMessage) => OwnedMessage,
  maxTokens: number,
): Promise<ReopenedPlan | null> {
  if (heads.length === 0 || placed.length === 0) return null;
  // Walk back to a chunk that starts with the first part of its first message (it owns that message).
  let start = heads.length - 1;
  while (start > 0 && !heads[start]!.owned.some((o) => o.msgId === heads[start]!.msgIds[0])) start--;
  const reopened = heads.slice(start);
  const content = await storedContent(reopened.map((h) => h.chunkId));
  const storedMessages = [...content.values()].sort((a, b) => a.seq - b.seq || (a.msgId < b.msgId ? -1 : a.msgId > b.msgId ? 1 : 0));
  if (storedMessages.length === 0) return null;
  const fresh = placed.map(toOwned);
  const all = [...storedMessages, ...fresh];
  const chunks = await chunkDialogueAsync(sessionId, all, { maxTokens, continuesTurn: start > 0 && storedMessages[0]!.role !== 'user' });
  const storedIds = new Set(reopened.map((h) => h.chunkId));
  const plannedIds = new Set(chunks.map((c) => c.chunkId));
  return {
    plan: chunks.filter((c) => !storedIds.has(c.chunkId)),
    removedIds: reopened.map((h) => h.chunkId).filter((id) => !plannedIds.has(id)),
    owned: new Map(all.map((m) => [m.msgId, m])),
  };
}
