/**
 * The message-level diff of a save: which input messages are new, changed or unchanged against
 * what the store holds for the session, and which stored chunks must be rebuilt around the changed
 * and deleted ones. Pure functions over the session's chunk heads; no store access.
 */
import { chunkDialogueAsync, type ChunkableMessage, type PlannedChunk } from './chunker.js';
import type { NormalizedMessage } from './normalize.js';
import { contentHash } from './hashing.js';
import { inChunkOrder, type ChunkHead, type ChunkRecord, type OwnedKey, type OwnedMessage } from '../store/store.js';

export interface StoredMessageState {
  owned: OwnedKey;
  chunkIds: string[];
}

export interface SessionDiff {
  /** The stored messages of the session, with the chunks each one appears in. */
  stored: Map<string, StoredMessageState>;
  fresh: NormalizedMessage[];
  updated: NormalizedMessage[];
  unchanged: number;
  /** Stored messages the input no longer has. */
  removed: string[];
}

/**
 * A message stored without a name that now comes with one (saved before names were kept, or by an
 * importer that did not read them) is unchanged: a re-save of the same transcript changes nothing.
 * Saved with `overwrite`, it is stored with its name. A name changed or taken away is a change.
 */
export function diffSession(messages: readonly NormalizedMessage[], heads: readonly ChunkHead[]): SessionDiff {
  const stored = indexMessages(heads);
  const inputIds = new Set(messages.map((m) => m.msgId));
  const fresh: NormalizedMessage[] = [];
  const updated: NormalizedMessage[] = [];
  let unchanged = 0;
  for (const m of messages) {
    const known = stored.get(m.msgId);
    if (!known) fresh.push(m);
    else if (known.owned.contentHash !== m.contentHash && !(m.speaker && known.owned.contentHash === contentHash(m.role, m.content))) updated.push(m);
    else unchanged++;
  }
  const removed = [...stored.keys()].filter((id) => !inputIds.has(id));
  return { stored, fresh, updated, unchanged, removed };
}

/**
 * Re-chunks the affected chunks with the changed messages' new content and without the deleted
 * ones. `storedContent` holds the stored messages of the affected chunks; the rebuilt chunks and
 * the messages they own are returned with the affected chunk ids that no rebuilt chunk replaces.
 */
export async function rebuildAffected(
  sessionId: string,
  heads: readonly ChunkHead[],
  affected: Set<string>,
  changed: Map<string, NormalizedMessage>,
  gone: Set<string>,
  storedContent: Map<string, OwnedMessage>,
  maxTokens: () => Promise<number>,
): Promise<{ rebuilt: PlannedChunk[]; owned: Map<string, OwnedMessage>; removedIds: string[] }> {
  const rebuilt: PlannedChunk[] = [];
  const owned = new Map<string, OwnedMessage>();
  for (const run of contiguousRuns(heads, affected)) {
    const members = uniqueMembers(run)
      .filter((id) => !gone.has(id))
      .map((id) => {
        const current = changed.get(id);
        const before = storedContent.get(id)!;
        const message: OwnedMessage = current ? { ...toOwned(current), seq: before.seq } : before;
        owned.set(id, message);
        return message;
      })
      .sort((a, b) => a.seq - b.seq || a.msgId.localeCompare(b.msgId));
    rebuilt.push(...await chunkDialogueAsync(sessionId, members.map(toChunkable), { maxTokens: await maxTokens() }));
  }
  const rebuiltIds = new Set(rebuilt.map((c) => c.chunkId));
  const removedIds = [...affected].filter((id) => !rebuiltIds.has(id));
  return { rebuilt, owned, removedIds };
}

export function toOwned(m: NormalizedMessage): OwnedMessage {
  return { msgId: m.msgId, role: m.role, content: m.content, ...(m.speaker ? { speaker: m.speaker } : {}), contentHash: m.contentHash, seq: m.seq, ...(m.timestamp ? { timestamp: m.timestamp } : {}) };
}

function toChunkable(m: OwnedMessage): ChunkableMessage {
  return { msgId: m.msgId, role: m.role, content: m.content, ...(m.speaker ? { speaker: m.speaker } : {}) };
}

export function sortById<T extends { msgId: string }>(messages: readonly T[]): T[] {
  return [...messages].sort((a, b) => (a.msgId < b.msgId ? -1 : a.msgId > b.msgId ? 1 : 0));
}

function indexMessages(heads: readonly ChunkHead[]): Map<string, StoredMessageState> {
  const messages = new Map<string, StoredMessageState>();
  for (const head of heads) for (const m of head.owned) messages.set(m.msgId, { owned: m, chunkIds: [] });
  for (const head of heads) for (const id of head.msgIds) messages.get(id)?.chunkIds.push(head.chunkId);
  return messages;
}

/** The chunks holding any of these messages, closed over messages split across several chunks. */
export function affectedChunks(heads: readonly ChunkHead[], stored: Map<string, StoredMessageState>, messageIds: Set<string>): Set<string> {
  const affected = new Set<string>();
  const byId = new Map(heads.map((h) => [h.chunkId, h]));
  const queue = [...messageIds];
  const seenMessages = new Set(queue);
  while (queue.length > 0) {
    const id = queue.pop()!;
    for (const chunkId of stored.get(id)?.chunkIds ?? []) {
      if (affected.has(chunkId)) continue;
      affected.add(chunkId);
      for (const other of byId.get(chunkId)?.msgIds ?? []) {
        if (!seenMessages.has(other)) {
          seenMessages.add(other);
          queue.push(other);
        }
      }
    }
  }
  return affected;
}

/** Affected chunks grouped into runs of neighbours, so a rebuild never joins distant parts of a conversation. */
function contiguousRuns(heads: readonly ChunkHead[], affected: Set<string>): ChunkHead[][] {
  const runs: ChunkHead[][] = [];
  let current: ChunkHead[] = [];
  for (const head of heads) {
    if (affected.has(head.chunkId)) current.push(head);
    else if (current.length > 0) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

function uniqueMembers(run: readonly ChunkHead[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const head of run) {
    for (const id of head.msgIds) {
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

/**
 * A session's chunks with its messages numbered afresh (0, 1, 2, ... in their order), each chunk
 * keeping its messages, text and vector: for when no position is left between two neighbours.
 * `chunks` are all of the session's, in order.
 */
export function renumbered(chunks: readonly ChunkRecord[]): ChunkRecord[] {
  const messages = chunks.flatMap((c) => c.owned).sort((a, b) => a.seq - b.seq || a.msgId.localeCompare(b.msgId));
  const before = new Map(messages.map((m) => [m.msgId, m.seq]));
  const after = new Map(messages.map((m, i) => [m.msgId, i]));
  return chunks.map((chunk) => {
    const first = chunk.msgIds[0] ?? '';
    // A row from before the part column packs the part into `seq` (see inChunkOrder).
    const part = chunk.part >= 0 ? chunk.part : Math.round(chunk.seq - (before.get(first) ?? Math.floor(chunk.seq / 1000)) * 1000);
    return { ...chunk, seq: after.get(first) ?? 0, part, owned: chunk.owned.map((m) => ({ ...m, seq: after.get(m.msgId)! })) };
  });
}

/** The session's chunk heads after a save wrote and removed these chunks. */
export function applyToHeads(heads: readonly ChunkHead[], written: readonly ChunkRecord[], removed: ReadonlySet<string>): ChunkHead[] {
  const byId = new Map<string, ChunkHead>(heads.map((h) => [h.chunkId, h]));
  for (const id of removed) byId.delete(id);
  for (const r of written) byId.set(r.chunkId, r);
  return inChunkOrder([...byId.values()]);
}
