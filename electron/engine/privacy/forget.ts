/**
 * Forgetting: a person removes sessions or single messages, and no byte of the forgotten text stays
 * in any file under the data directory. Rows are deleted, every remaining row is rewritten into new
 * files and all older versions and unreferenced files are removed (ChunkStore.purgeSessions), the
 * archive record loses the session, the save history keeps only that it was forgotten and when
 * (counts only, never text), and the watch state, the sources' cursors and the app's log lose the
 * paths of its files (forgetTraces.ts). Texts are embedded per chunk row, so no cached vector outlives
 * them. The store keeps a mark of each forgotten session (a keyed hash, forgottenMarks.ts): no writer
 * on any machine saves it again unless a person asks for it, and every other machine drops its own
 * traces of it when it next opens the store.
 *
 * Crash-safe like a save: a journal names what is being forgotten before anything changes, and is
 * removed last; the next writer (a save, a forget, a redact) finishes a forget that a kill
 * interrupted. Forgetting messages journals the purge it owes the same way (purgeJournal.ts).
 * Before each of its writes it checks that it still holds the lock (`assertWriteLock`): once another
 * process may have taken it over, it stops with that error, and running it again finishes it.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { MessageInput, SaveEvent, SaveReport, SessionInput } from '../../../shared/domain.js';
import { dropSessionsFromNearDuplicates } from '../duplicates/nearDuplicates.js';
import { finishPendingPurge, owePurge, purgeNow, type PurgeJournal } from './purgeJournal.js';
import { LEGACY_FORGET_JOURNAL, LEGACY_PURGE_JOURNAL } from '../files/layout.js';
import type { EngineContext, SaveCallOptions } from '../context.js';
import { crashPoint } from '../files/crashPoints.js';
import { EngineError } from '../errors.js';
import { dropFileTracesOf } from './forgetTraces.js';
import { showSession } from '../record/sessions.js';
import { assertWriteLock } from '../files/writeLock.js';

/** The journal's name in the store's state table (record/storeState.ts). */
const JOURNAL_NAME = 'forget';

export interface ForgetReport {
  sessionId: string;
  messagesRemoved: number;
  chunksRemoved: number;
}

interface Journal {
  at: string;
  sessions: ForgetReport[];
}

/** Removes whole sessions. An unknown id refuses the call, naming it, and nothing is removed. */
export async function forgetSessions(ctx: EngineContext, sessionIds: readonly string[]): Promise<ForgetReport[]> {
  const ids = [...new Set(sessionIds)];
  if (ids.length === 0) throw new EngineError('invalid_input', 'name at least one session to forget');
  const release = await ctx.lock();
  try {
    await ctx.store.upgrade();
    // Running the same forget again after a kill finishes it and reports it as done.
    const finished = new Map((await finishPendingWork(ctx)).forgotten.map((r) => [r.sessionId, r]));
    const record = await ctx.records.load([], { locked: true });
    const unknown = ids.find((id) => !record.sessions[id] && !finished.has(id));
    if (unknown !== undefined) throw new EngineError('not_found', `no session "${unknown}" in this store; nothing was forgotten`);
    const journal: Journal = {
      at: new Date().toISOString(),
      sessions: ids.filter((id) => !finished.has(id)).map((id) => ({ sessionId: id, messagesRemoved: record.sessions[id]!.message_count, chunksRemoved: record.sessions[id]!.chunk_count })),
    };
    if (journal.sessions.length > 0) {
      assertWriteLock(ctx.dataDir);
      await ctx.state.put<Journal>('journal', [{ key: JOURNAL_NAME, value: journal }]);
      crashPoint('forget-journal');
      await complete(ctx, journal);
    }
    return ids.map((id) => finished.get(id) ?? journal.sessions.find((s) => s.sessionId === id)!);
  } finally {
    await release();
  }
}

/**
 * Removes single messages of a session; the chunks that held them are rebuilt from the messages
 * around them. Forgetting every message of a session forgets the session. The rest of the session is
 * saved again exactly as stored (redacted or not, as it was saved), then every file is purged; a
 * journal written before the save names the purge still owed, so that a kill between the two steps
 * is finished by the next writer, and running the same command again reports it done.
 */
export async function forgetMessages(ctx: EngineContext, sessionId: string, msgIds: readonly string[], save: (input: SessionInput, options: SaveCallOptions) => Promise<SaveReport>): Promise<ForgetReport> {
  const wanted = new Set(msgIds);
  if (wanted.size === 0) throw new EngineError('invalid_input', 'name at least one message to forget');
  const release = await ctx.lock();
  try {
    await ctx.store.upgrade();
    const { purged } = await finishPendingWork(ctx);
    const earlier = purged?.reason === 'forget-messages' && purged.sessionId === sessionId ? purged : null;
    const detail = await showSession(ctx, sessionId);
    const present = new Set(detail.messages.filter((m) => wanted.has(m.msgId)).map((m) => m.msgId));
    const unknown = [...wanted].find((id) => !present.has(id) && !earlier?.msgIds?.includes(id));
    if (unknown !== undefined) throw new EngineError('not_found', `session "${sessionId}" has no message "${unknown}"; nothing was forgotten`);
    // Every message named was forgotten by a run that a kill interrupted, and is purged now.
    if (present.size === 0) return { sessionId, messagesRemoved: earlier?.messagesRemoved ?? wanted.size, chunksRemoved: earlier?.chunksRemoved ?? 0 };
    const remaining: MessageInput[] = detail.messages.filter((m) => !present.has(m.msgId)).map((m) => ({ msgId: m.msgId, role: m.role, content: m.content, ...(m.speaker ? { speaker: m.speaker } : {}), ...(m.timestamp ? { timestamp: m.timestamp } : {}) }));
    if (remaining.length > 0) {
      const journal: PurgeJournal = { at: new Date().toISOString(), reason: 'forget-messages', sessionId, msgIds: [...present] };
      await owePurge(ctx, journal);
      crashPoint('forget-messages-journal');
      // The stored text as it is: redacting it again would change the messages of a session saved without redaction.
      const report = await save({ sessionId, messages: remaining }, { syncDeletes: true, redact: false, lockHeld: true });
      await owePurge(ctx, { ...journal, messagesRemoved: report.deleted, chunksRemoved: report.chunksDeleted });
      crashPoint('forget-messages-saved');
      await purgeNow(ctx);
      return { sessionId, messagesRemoved: report.deleted, chunksRemoved: report.chunksDeleted };
    }
  } finally {
    await release();
  }
  return (await forgetSessions(ctx, [sessionId]))[0]!;
}

/**
 * Finishes what a kill interrupted: a forget (forget.ts's journal) and a purge still owed
 * (purgeJournal.ts). Call with the write lock held; saves do, before writing.
 */
export async function finishPendingWork(ctx: EngineContext): Promise<{ forgotten: ForgetReport[]; purged: PurgeJournal | null }> {
  // Most saves find no journal: one read of the state table for both, not one each (every read is a
  // round trip or two to a bucket: the table's newest version, then its rows).
  if ((await ctx.state.all('journal')).size === 0 && !existsSync(path.join(ctx.dataDir, LEGACY_FORGET_JOURNAL)) && !existsSync(path.join(ctx.dataDir, LEGACY_PURGE_JOURNAL))) return { forgotten: [], purged: null };
  const forgotten = await finishPendingForget(ctx);
  const purged = await finishPendingPurge(ctx);
  return { forgotten, purged };
}

/** Finishes a forget that a kill interrupted (write lock held); returns what it removed (none when there was none). */
export async function finishPendingForget(ctx: EngineContext): Promise<ForgetReport[]> {
  const journal = (await ctx.state.get<Journal>('journal', JOURNAL_NAME)) ?? (await legacyJournal(ctx));
  if (!journal) return [];
  // Not by id: the log must not name what is being forgotten.
  ctx.logger.warn(`finishing the forgetting of ${journal.sessions.length} session(s), which was interrupted`);
  await complete(ctx, journal);
  return journal.sessions;
}

/**
 * The journal an earlier layout kept as a file in the data folder. Written atomically: one that
 * cannot be read was never complete, so nothing was removed yet, and it is dropped.
 */
async function legacyJournal(ctx: EngineContext): Promise<Journal | null> {
  const file = path.join(ctx.dataDir, LEGACY_FORGET_JOURNAL);
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as Journal;
  } catch {
    assertWriteLock(ctx.dataDir);
    await fs.rm(file, { force: true });
    return null;
  }
}

/** Every step can be repeated: deleting deleted rows, rewriting, pruning, recording. */
async function complete(ctx: EngineContext, journal: Journal): Promise<void> {
  const ids = journal.sessions.map((s) => s.sessionId);
  const record = await ctx.records.load([], { locked: true });
  const titles = ids.map((id) => record.sessions[id]?.title).filter((t): t is string => t !== undefined);
  // Marked first: from here on no writer on any machine saves them again (forgottenMarks.ts).
  assertWriteLock(ctx.dataDir);
  await ctx.forgotten.mark(ids, journal.at);
  assertWriteLock(ctx.dataDir);
  await ctx.store.purgeSessions(ids);
  crashPoint('forget-purged');
  for (const id of ids) delete record.sessions[id];
  record.storeVersion = await ctx.store.version();
  record.writesSinceOptimize = 0;
  await ctx.records.write(record);
  await dropSessionsFromNearDuplicates(ctx, ids);
  // Their forks and dismissed clusters: the state names no forgotten session.
  assertWriteLock(ctx.dataDir);
  await ctx.state.dropSessions(['fork', 'dismissed'], ids);
  // The history keeps only that the sessions were forgotten; other files drop their paths.
  await ctx.history.dropSessions(ids);
  const events = await ctx.history.read();
  for (const forgotten of journal.sessions) {
    if (events.some((e) => e.sessionId === forgotten.sessionId && e.forgotten === true && e.at === journal.at)) continue;
    const event: SaveEvent = {
      sessionId: forgotten.sessionId,
      at: journal.at,
      mode: 'overwrite',
      syncDeletes: true,
      skippedSession: false,
      forgotten: true,
      total: 0,
      new: 0,
      updated: 0,
      skipped: 0,
      deleted: forgotten.messagesRemoved,
      chunksWritten: 0,
      chunksDeleted: forgotten.chunksRemoved,
      chunkIdsWritten: [],
      chunkIdsRemoved: [],
      embeddingsComputed: 0,
      durationMs: 0,
      model: ctx.store.model.model,
    };
    await ctx.history.append(event);
  }
  assertWriteLock(ctx.dataDir);
  await dropFileTracesOf(ctx, ids, titles);
  // Removed last, and only under the lock: a journal left behind is finished by the next writer.
  assertWriteLock(ctx.dataDir);
  await ctx.state.delete('journal', [JOURNAL_NAME]);
  await fs.rm(path.join(ctx.dataDir, LEGACY_FORGET_JOURNAL), { force: true });
  // The journal named the sessions: no older version of the state keeps it.
  assertWriteLock(ctx.dataDir);
  await ctx.state.purge();
}
