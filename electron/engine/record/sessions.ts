/** Reading what is archived: the session list, one session in full, and its save history. */
import type { SaveEvent, SessionDetail, SessionSummary } from '../../../shared/domain.js';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { forkOfEntry } from './forks.js';

export async function listSessions(ctx: EngineContext): Promise<SessionSummary[]> {
  const record = await ctx.records.load();
  const events = await ctx.history.read();
  const saves = new Map<string, { count: number; last: string }>();
  for (const e of events) {
    const s = saves.get(e.sessionId) ?? { count: 0, last: e.at };
    s.count++;
    if (e.at > s.last) s.last = e.at;
    saves.set(e.sessionId, s);
  }
  return Object.values(record.sessions)
    .map((entry) => ({
      sessionId: entry.session_id,
      title: entry.title || entry.session_id,
      ...(entry.source ? { source: entry.source } : {}),
      ...(entry.parent_session_id ? { parentSessionId: entry.parent_session_id } : {}),
      forkOf: forkOfEntry(entry, record),
      messageCount: entry.message_count,
      chunkCount: entry.chunk_count,
      archivedAt: entry.archived_at,
      lastSavedAt: saves.get(entry.session_id)?.last ?? entry.last_saved_at,
      saves: saves.get(entry.session_id)?.count ?? 0,
    }))
    .sort((a, b) => b.lastSavedAt.localeCompare(a.lastSavedAt));
}

export async function showSession(ctx: EngineContext, sessionId: string): Promise<SessionDetail> {
  const chunks = await ctx.store.sessionChunks(sessionId);
  if (chunks.length === 0) throw new EngineError('not_found', `no session "${sessionId}" in this store`);
  const meta = await ctx.store.sessionMeta(sessionId);
  const record = await ctx.records.load();
  const entry = record.sessions[sessionId];
  const fork = entry ? forkOfEntry(entry, record) : null;
  const firstChunk = new Map<string, string>();
  for (const c of chunks) for (const id of c.msgIds) if (!firstChunk.has(id)) firstChunk.set(id, c.chunkId);
  const messages = chunks
    .flatMap((c) => c.owned)
    .sort((a, b) => a.seq - b.seq || a.msgId.localeCompare(b.msgId))
    .map((m) => ({
      msgId: m.msgId,
      role: m.role,
      content: m.content,
      ...(m.speaker ? { speaker: m.speaker } : {}),
      contentHash: m.contentHash,
      chunkId: firstChunk.get(m.msgId) ?? '',
      ...(m.timestamp ? { timestamp: m.timestamp } : {}),
    }));
  return {
    sessionId,
    ...(meta?.title ? { title: meta.title } : {}),
    ...(meta?.source ? { source: meta.source } : {}),
    ...(fork ? { forkOf: { ...fork, title: record.sessions[fork.sessionId]!.title || fork.sessionId } } : {}),
    messages,
    chunks: chunks.map((c) => ({ chunkId: c.chunkId, text: c.text, msgIds: c.msgIds, createdAt: new Date(c.createdAt).toISOString() })),
  };
}

export async function sessionHistory(ctx: EngineContext, sessionId: string): Promise<SaveEvent[]> {
  return ctx.history.read(sessionId);
}
