/**
 * Cleaning a store saved before redaction (or with it turned off): every archived message and title
 * is run through the redaction rules; a session with secrets is saved again with the redacted text
 * (its changed chunks rebuilt and re-embedded, the others reused), and then, as when forgetting,
 * every row is rewritten and every older version and unreferenced file removed, so no unredacted
 * copy stays on disk. A dry run reports what would change and writes nothing.
 *
 * Each session's save runs under the write lock after the purge is recorded as owed (purgeJournal.ts),
 * so a kill anywhere before the purge is done leaves the journal: the next writer, or `redact` run
 * again (which finds no secrets left in what was saved already), does the purge.
 *
 * Messages keep their ids, except ids that were derived from the content (messages that came
 * without one): those are derived again from the redacted content, which is what a later save of
 * the same transcript derives, so re-importing it after cleaning finds every message archived.
 */
import type { MessageInput, SaveReport, SessionInput } from '../../../shared/domain.js';
import type { EngineContext, SaveCallOptions } from '../context.js';
import { crashPoint } from '../files/crashPoints.js';
import { finishPendingForget, finishPendingWork } from './forget.js';
import { deriveMessageId } from '../save/hashing.js';
import { redactText, type RedactionKind } from './redaction/redact.js';
import { owePurge, purgeNow } from './purgeJournal.js';
import { showSession } from '../record/sessions.js';

export interface RedactSessionReport {
  sessionId: string;
  /** Messages whose text held secrets (the title counts as one when it did). */
  messages: number;
  /** Secrets replaced (or, in a dry run, to replace). */
  secrets: number;
  kinds: Partial<Record<RedactionKind, number>>;
  /** Chunks written with the redacted text (0 in a dry run). */
  chunksRewritten: number;
  embeddingsComputed: number;
}

export interface RedactStoreReport {
  dryRun: boolean;
  sessionsScanned: number;
  messagesScanned: number;
  /** Only the sessions that held secrets. */
  sessions: RedactSessionReport[];
}

type Save = (input: SessionInput, options: SaveCallOptions) => Promise<SaveReport>;

export async function redactStore(ctx: EngineContext, options: { dryRun?: boolean }, save: Save): Promise<RedactStoreReport> {
  const dryRun = Boolean(options.dryRun);
  // A purge that an earlier run (or a forget) left owed is done first: this run may find nothing to save.
  if (!dryRun) await underLock(ctx, () => finishPendingWork(ctx));
  const record = await ctx.records.load();
  const report: RedactStoreReport = { dryRun, sessionsScanned: 0, messagesScanned: 0, sessions: [] };
  for (const sessionId of Object.keys(record.sessions).sort()) {
    const detail = await showSession(ctx, sessionId);
    report.sessionsScanned++;
    report.messagesScanned += detail.messages.length;
    const found: RedactSessionReport = { sessionId, messages: 0, secrets: 0, kinds: {}, chunksRewritten: 0, embeddingsComputed: 0 };
    const count = (r: ReturnType<typeof redactText>) => {
      if (r.count === 0) return;
      found.messages++;
      found.secrets += r.count;
      for (const [kind, n] of Object.entries(r.kinds) as Array<[RedactionKind, number]>) found.kinds[kind] = (found.kinds[kind] ?? 0) + n;
    };
    const occurrences = new Map<string, number>();
    const messages: MessageInput[] = detail.messages.map((m) => {
      const key = `${m.role}\u0000${m.content}`;
      const occurrence = occurrences.get(key) ?? 0;
      occurrences.set(key, occurrence + 1);
      const derived = m.msgId === deriveMessageId(sessionId, m.role, m.content, occurrence);
      const r = redactText(m.content);
      count(r);
      return { ...(derived && r.count > 0 ? {} : { msgId: m.msgId }), role: m.role, content: r.text, ...(m.speaker ? { speaker: m.speaker } : {}), ...(m.timestamp ? { timestamp: m.timestamp } : {}) };
    });
    const title = detail.title ? redactText(detail.title) : null;
    if (title) count(title);
    if (found.secrets === 0) continue;
    report.sessions.push(found);
    if (dryRun) continue;
    // An overwrite replaces the session's chunks with ones built from the redacted text; chunks
    // whose text did not change keep their stored vectors.
    const saved = await underLock(ctx, async () => {
      // A forget that another process left half-way is finished first; a purge owed stays owed until the end.
      await finishPendingForget(ctx);
      await owePurge(ctx, { at: new Date().toISOString(), reason: 'redact' });
      const result = await save({ sessionId, ...(title ? { title: title.text } : {}), messages }, { mode: 'overwrite', redact: true, lockHeld: true });
      crashPoint('redact-saved');
      return result;
    });
    found.chunksRewritten = saved.chunksWritten;
    found.embeddingsComputed = saved.embeddingsComputed;
  }
  // One purge for every session saved above (a writer in between that did one took only those before it).
  if (!dryRun && report.sessions.length > 0) await underLock(ctx, () => purgeNow(ctx));
  return report;
}

/** The write lock is taken per session, so that saves from the app, `watch` and MCP interleave with a long run. */
async function underLock<T>(ctx: EngineContext, task: () => Promise<T>): Promise<T> {
  const release = await ctx.lock();
  try {
    return await task();
  } finally {
    await release();
  }
}
