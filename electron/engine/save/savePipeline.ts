/**
 * One save, from input to commit, at three levels:
 *
 * Session level: a session whose message set equals what is archived returns at once.
 * Message level: every message has an id and a content hash; only new and changed ones are processed.
 * Chunk level: new messages are chunked, embedded and written; chunks holding an edited or deleted
 * message are rebuilt and replace the old ones in the same commit.
 */
import type { ArchiveEntry, SaveEvent, SaveMode, SaveProgress, SaveReport, SessionInput } from '../../../shared/domain.js';
import { emptySaveReport, SAVE_MODES } from '../../../shared/domain.js';
import type { ArchiveRecord } from '../record/archiveRecord.js';
import { chunkDialogueAsync, type PlannedChunk } from './chunker.js';
import { ChunkWriter } from './chunkWriter.js';
import { crashPoint } from '../files/crashPoints.js';
import type { EngineContext, SaveCallOptions } from '../context.js';
import { affectedChunks, applyToHeads, diffSession, rebuildAffected, renumbered, sortById, toOwned } from './diff.js';
import { KNOWN_WINDOWS } from '../../embedding/models.js';
import { describeIoError, EngineError } from '../errors.js';
import { inputFingerprint, messageSetFingerprint } from './hashing.js';
import { finishPendingWork } from '../privacy/forget.js';
import { optimizeInterval } from '../store/maintenance.js';
import { normalizeSessionAsync } from './normalize.js';
import { inOrder, newRuns, placeMessages, positionsDistinct } from './order.js';
import { archiveEntry } from '../record/recordCache.js';
import { planAppend } from './reopen.js';
import { findFork, forkOfEntry, recordFork, refreshForksOf } from '../record/forks.js';
import { checkSaved } from '../duplicates/nearDuplicates.js';
import { startPrecheck, type Precheck } from '../duplicates/nearestChunks.js';
import { VERSION_RETENTION_MS, type OwnedMessage } from '../store/store.js';
import { isRemoteStore } from '../store/connect.js';
import { assertWriteLock } from '../files/writeLock.js';
import { SaveClock } from './saveTimings.js';
import { HISTORY_DEFERRED_MAX } from '../record/history.js';
import { rememberHeads, sessionHeadsAt } from './knownHeads.js';

/**
 * Saves one session. The caller runs saves one at a time; this takes the write lock across processes.
 * Every save that succeeds ends its progress with `done`, also one that had nothing to do (a
 * re-import of what is archived), so that a progress bar never stalls on it.
 */
export async function saveSession(ctx: EngineContext, input: SessionInput, options: SaveCallOptions): Promise<SaveReport> {
  const onProgress = options.onProgress;
  if (!onProgress) return runSave(ctx, input, options);
  let ended = false;
  const report = await runSave(ctx, input, {
    ...options,
    onProgress: (p) => {
      ended = p.phase === 'done';
      onProgress(p);
    },
  });
  if (!ended) onProgress({ sessionId: report.sessionId, phase: 'done', done: report.total, total: report.total });
  return report;
}

/** A forgotten session left out: nothing written, nothing recorded in the history. */
function forgottenReport(sessionId: string, mode: SaveMode, warnings: string[], started: number, dryRun?: boolean): SaveReport {
  const report = emptySaveReport(sessionId, mode, 0, [...warnings, 'this session was forgotten: it is not saved again unless a person saves it on purpose (session-memory import --unforget)'], dryRun);
  report.forgotten = true;
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

async function runSave(ctx: EngineContext, input: SessionInput, options: SaveCallOptions): Promise<SaveReport> {
  const started = performance.now();
  const clock = new SaveClock();
  let ok = false;
  crashPoint('save');
  // Warnings of reading the record (a damaged one is rebuilt) and of the mode join the report's.
  const recordWarnings: string[] = [];
  const asked: SaveMode = options.mode ?? 'incremental';
  if (!SAVE_MODES.includes(asked)) throw new EngineError('invalid_input', `unknown save mode "${String(asked)}" (use ${SAVE_MODES.join(', ')})`);
  // An input that lacks damaged parts of its file is never taken as the whole session: what it
  // does not hold may only be unreadable, so nothing stored is deleted (or replaced) for it.
  const holdBack = options.incomplete !== undefined && (asked === 'overwrite' || options.syncDeletes === true);
  const mode: SaveMode = holdBack ? 'incremental' : asked;
  const syncDeletes = holdBack ? false : (options.syncDeletes ?? false);
  if (holdBack) recordWarnings.push(`saved incrementally without deleting, not ${asked === 'overwrite' ? 'in overwrite mode' : 'with deletes synced'} as asked: ${options.incomplete}, so stored messages the file does not show are kept`);
  const redact = options.redact ?? true;
  // The input as given, before any check: the same input as the last save of its session is
  // recognised from this alone (one hash over the text; no parsing of messages, no redaction).
  const givenFingerprint = mode === 'overwrite' ? null : inputFingerprint(input, { redact, syncDeletes });
  const givenId = typeof input?.sessionId === 'string' ? input.sessionId.trim() : '';
  // What the archive record keeps of this input once the session holds exactly what it says.
  let givenTotal = 0;
  const remember = (entry: ArchiveEntry | undefined) => {
    if (!entry || !givenFingerprint || (entry.input_fingerprint === givenFingerprint && entry.input_total === givenTotal)) return false;
    entry.input_fingerprint = givenFingerprint;
    entry.input_total = givenTotal;
    return true;
  };

  let release: (() => Promise<void>) | null = null;
  let sessionId = givenId;
  try {
    if (!options.dryRun && !options.lockHeld) release = await clock.time('lock', () => ctx.lock());
    // A session forgotten on any machine of this store is not saved again by a sync, a hook or an
    // import, unless a person asks for it (`unforget`), which lifts its mark (forgottenMarks.ts).
    if (givenId !== '' && (await ctx.forgotten.isForgotten(givenId))) {
      if (!options.unforget) return forgottenReport(givenId, mode, recordWarnings, started, options.dryRun);
      if (!options.dryRun) {
        assertWriteLock(ctx.dataDir);
        await ctx.forgotten.unmark(givenId);
        await ctx.options.localTraces?.restore?.(ctx.dataDir, [givenId]);
      }
    }
    if (!options.dryRun && givenFingerprint) {
      const record = await clock.time('record', () => ctx.records.load(recordWarnings, { locked: true }));
      const known = record.sessions[givenId];
      if (known?.input_fingerprint === givenFingerprint) {
        const total = known.input_total ?? known.message_count;
        const report = emptySaveReport(givenId, mode, total, recordWarnings);
        report.skippedSession = true;
        report.skipped = total;
        report.sharedMessages = forkOfEntry(known, record)?.sharedMessages ?? 0;
        options.onProgress?.({ sessionId: givenId, phase: 'reading', done: 0, total });
        const result = await finish(ctx, clock, report, record, started, syncDeletes, []);
        ok = true;
        return result;
      }
    }

    // Not the input saved last: something is likely to be embedded, so the model starts loading now,
    // in its worker, while the input is checked and compared with the store (a cold start takes
    // about half a second). A failure to start is reported where the model is first needed.
    if (!options.dryRun) ctx.embedder().catch(() => {});
    const { session, warnings } = await clock.time('normalize', () => normalizeSessionAsync(input, { redact }));
    sessionId = session.sessionId;
    givenTotal = session.messages.length;
    const report: SaveReport = emptySaveReport(sessionId, mode, session.messages.length, [...warnings, ...recordWarnings], options.dryRun);
    report.redacted = session.redacted;
    const progress = (phase: SaveProgress['phase'], done: number, total: number) => options.onProgress?.({ sessionId, phase, done, total });
    progress('reading', 0, session.messages.length);
    // A dry run (an import preview) embeds nothing: for a model whose input window is known, it does
    // not load the model at all (hundreds of MB) just to learn that window.
    const knownWindow = options.dryRun ? KNOWN_WINDOWS[ctx.store.model.model] : undefined;
    const maxTokens = async () => knownWindow ?? (await ctx.embedder()).maxTokens;

    if (!options.dryRun) {
      // A store written by an earlier version is brought to the current layout before anything is written.
      await clock.time('upgrade', async () => {
        await ctx.store.upgrade();
        // A forget or a purge that a kill interrupted is finished first (a caller holding the lock has done so).
        if (!options.lockHeld) await finishPendingWork(ctx);
      });
    }
    const record = await clock.time('record', () => ctx.records.load(report.warnings, { locked: !options.dryRun }));
    const entry = record.sessions[sessionId];
    const storedFingerprint = messageSetFingerprint(sortById(session.messages));

    // Session level: recognised at once, no store read, no embedding.
    if (entry && (mode === 'skip-if-archived' || (mode === 'incremental' && entry.fingerprint === storedFingerprint))) {
      report.skippedSession = true;
      report.skipped = session.messages.length;
      report.sharedMessages = forkOfEntry(entry, record)?.sharedMessages ?? 0;
      const result = await finish(ctx, clock, report, record, started, syncDeletes, [], options.dryRun, !options.dryRun && mode === 'incremental' && remember(entry));
      ok = true;
      return result;
    }

    // Message level: compare with what the store holds for this session (its rows only).
    const diffStarted = performance.now();
    // On a bucket, with the messages the chunks keep: a save that reopens or rebuilds chunks reads
    // this session's rows once (a local folder reads those few chunks again, at no round trip's cost).
    const withMessages = isRemoteStore(ctx.store.uri);
    // The heads this process's last save of the session left, while the store is at their version (knownHeads.ts).
    let heads = await sessionHeadsAt(ctx.store, sessionId, withMessages, record.storeVersion);
    let diff = diffSession(session.messages, heads);
    // Where the new messages go among the stored ones (order.ts).
    const place = () => (mode !== 'overwrite' && diff.fresh.length > 0 ? placeMessages([...diff.stored.values()].map((s) => s.owned), session.messages) : null);
    let placement = place();
    clock.add('diff', performance.now() - diffStarted);
    if (placement && !options.dryRun && !positionsDistinct(placement.order, placement.seqs)) {
      // No position is left between two neighbours (about fifty insertions into one gap): the stored
      // messages are numbered afresh, in their order, by one commit that rewrites the session's rows
      // (the same chunks, texts and vectors); then the new ones are placed among them.
      await clock.time('renumber', async () => {
        await ctx.store.commit(renumbered(await ctx.store.sessionChunks(sessionId, true)), { sessionId });
        heads = await ctx.store.sessionHeads(sessionId, withMessages);
        diff = diffSession(session.messages, heads);
        placement = place();
      });
    }
    const { stored, fresh, updated, unchanged } = diff;
    const deletable = options.deletable;
    const removedMessages = mode !== 'overwrite' && deletable ? diff.removed.filter((id) => deletable(id)) : diff.removed;
    report.skipped += unchanged;
    report.new = fresh.length;
    report.updated = updated.length;
    report.deleted = mode === 'overwrite' || syncDeletes ? removedMessages.length : 0;

    const writer = new ChunkWriter(ctx, sessionId, options, report, progress, clock);
    let precheck: Precheck | undefined;
    if (mode === 'overwrite') {
      const ordered = inOrder(session.messages, placeMessages([], session.messages).seqs);
      const plan = await clock.time('chunking', async () => chunkDialogueAsync(sessionId, ordered, { maxTokens: await maxTokens() }));
      const owned = new Map(ordered.map((m) => [m.msgId, toOwned(m)]));
      const oldIds = heads.map((h) => h.chunkId);
      await writer.writeAll(plan, owned, { replaceSession: true, removedIds: oldIds.filter((id) => !plan.some((c) => c.chunkId === id)) });
    } else {
      // Rebuild the chunks around updated and deleted messages, in one commit.
      const changed = new Map(updated.map((m) => [m.msgId, m]));
      const gone = new Set(syncDeletes ? removedMessages : []);
      const affected = affectedChunks(heads, stored, new Set([...changed.keys(), ...gone]));
      // Message content is read only for the chunks being rebuilt.
      const { rebuilt, owned, removedIds } = await clock.time('chunking', async () => {
        const storedContent = affected.size > 0 ? await ctx.store.messagesOf(sessionId, heads, [...affected]) : new Map<string, OwnedMessage>();
        return rebuildAffected(sessionId, heads, affected, changed, gone, storedContent, maxTokens);
      });
      const rebuiltAny = rebuilt.length > 0 || removedIds.length > 0;
      if (rebuiltAny) await writer.writeAll(rebuilt, owned, { replaceSession: false, removedIds });

      // New messages: placed among the stored ones (order.ts), chunked by runs of neighbours (so a
      // chunk never joins distant parts of the conversation), embedded and written as they stream in.
      if (placement) {
        const { seqs, order } = placement;
        const placed = new Map(inOrder(fresh, seqs).map((m) => [m.msgId, m]));
        const runs = newRuns(order, placed);
        // New messages after everything stored reopen the session's last chunk (reopen.ts), so that
        // the chunks come out the same however often the session is saved.
        const tail = runs.at(-1)!;
        const appended = heads.length > 0 && !rebuiltAny && order.at(-1) === tail.at(-1)!.msgId && stored.has(order[order.length - tail.length - 1] ?? '');
        const chunkingStarted = performance.now();
        const reopened = appended ? await planAppend(sessionId, heads, tail, (ids) => ctx.store.messagesOf(sessionId, heads, ids), toOwned, await maxTokens()) : null;
        const plan: PlannedChunk[] = [];
        for (const run of reopened ? runs.slice(0, -1) : runs) plan.push(...(await chunkDialogueAsync(sessionId, run, { maxTokens: await maxTokens() })));
        clock.add('chunking', performance.now() - chunkingStarted);
        const freshOwned = new Map([...placed.values()].map((m) => [m.msgId, toOwned(m)]));
        if (reopened) {
          // The chunks holding stored messages replace the reopened ones in one commit; the rest stream.
          const holdsStored = (c: PlannedChunk) => c.msgIds.some((id) => stored.has(id));
          const replacing = reopened.plan.filter(holdsStored);
          if (replacing.length > 0 || reopened.removedIds.length > 0) await writer.writeAll(replacing, reopened.owned, { replaceSession: false, removedIds: reopened.removedIds });
          plan.push(...reopened.plan.filter((c) => !holdsStored(c)));
        }
        // The near-duplicate check compares each batch's codes while the model embeds the next ones
        // (on a core the model leaves idle); what is left after the commit is reading candidates.
        // A dry run commits nothing and holds no lock: it must not bring the sketch up to date.
        if (!options.dryRun && ctx.options.nearDuplicates !== false && plan.length > 0) {
          try {
            const check = await clock.time('nearDuplicates', () => startPrecheck(ctx, record, sessionId));
            writer.onEmbedded = (hashes, vectors) => {
              const addStarted = performance.now();
              check.add(hashes, vectors);
              clock.add('nearDuplicates', performance.now() - addStarted);
            };
            precheck = check;
          } catch (error) {
            // Derived data: the check after the commit tries again, and a save never fails for it.
            ctx.logger.warn(`near-duplicate precheck of ${sessionId} skipped: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
        // The session's chunks were read under the write lock (heads): new ones are appended, not merged.
        await writer.writeStreaming(plan, freshOwned, new Set(heads.map((h) => h.chunkId)));
      }
    }

    if (options.dryRun) {
      const result = await finish(ctx, clock, report, record, started, syncDeletes, [], true);
      ok = true;
      return result;
    }
    await clock.time('sessionMeta', () => recordSessionMeta(ctx, sessionId, session, heads.length === 0, entry));
    const after = applyToHeads(heads, writer.written, writer.removed);
    const next = archiveEntry(sessionId, after, entry, session);
    record.sessions[sessionId] = next;
    record.newestChunkAt = after.reduce((max, h) => Math.max(max, h.createdAt), record.newestChunkAt ?? 0);
    if (after.length === 0) delete record.sessions[sessionId];
    else if (next.head_key !== entry?.head_key || writer.removed.size > 0 || !entry) {
      // The leading messages are new or changed: look again for the session this one branched from.
      assertWriteLock(ctx.dataDir);
      await clock.time('forks', async () => recordFork(ctx, next, await findFork(ctx, record, sessionId, after)));
    }
    report.sharedMessages = forkOfEntry(next, record)?.sharedMessages ?? 0;
    // Sessions that branched from this one: what they share may have changed with it.
    if (writer.commits > 0) await clock.time('forks', () => refreshForksOf(ctx, record, sessionId));
    // Copies of what this save wrote in other sessions, kept for `duplicates` (nearDuplicates.ts).
    if (writer.commits > 0 && ctx.options.nearDuplicates !== false) {
      const checkStarted = performance.now();
      try {
        report.nearDuplicates = await checkSaved(ctx, record, { sessionId, written: writer.written, removed: writer.removed, freshHashes: writer.freshHashes, previousFingerprint: entry?.fingerprint, precheck });
      } catch (error) {
        // What was saved is saved: the list of copies is derived data, and `duplicates` checks this
        // session again the next time it is read (its fingerprint there is the old one).
        report.warnings.push(`the check for copies of this session in other sessions did not finish (${error instanceof Error ? error.message : String(error)}); \`duplicates\` checks it again`);
      }
      clock.add('nearDuplicates', performance.now() - checkStarted);
      ctx.options.onNearDuplicateCheck?.(performance.now() - checkStarted, precheck?.ms ?? 0);
    }
    record.writesSinceOptimize += writer.commits;
    // A cancelled save holds only part of its input: the next save of it must look again.
    const remembered = !writer.cancelled && remember(record.sessions[sessionId]);
    const result = await finish(ctx, clock, report, record, started, syncDeletes, writer.removedIds(), options.dryRun, writer.commits > 0 || remembered);
    // The version read after this save's last commit (finish): the next save of the session reads no rows while the store stays there.
    rememberHeads(ctx.store, sessionId, after, record.storeVersion, withMessages);
    if (writer.cancelled) {
      throw new EngineError('cancelled', `save of ${sessionId} cancelled after writing ${report.chunksWritten} chunk(s); what was written is consistent, and saving again finishes it`);
    }
    ok = true;
    return result;
  } catch (error) {
    throw describeIoError(error, `saving ${sessionId || 'a session'}`);
  } finally {
    if (release) await clock.time('release', release);
    ctx.options.onSaveTimings?.(clock.result(sessionId, ok));
  }
}

/** Writes the record and the history event; compacts the store when writes have piled up. */
async function finish(ctx: EngineContext, clock: SaveClock, report: SaveReport, record: ArchiveRecord, started: number, syncDeletes: boolean, removedIds: string[], dryRun?: boolean, recordChanged = false): Promise<SaveReport> {
  report.durationMs = Math.round((performance.now() - started) * 10) / 10;
  if (dryRun) return report;
  if (recordChanged) {
    assertWriteLock(ctx.dataDir);
    if (record.writesSinceOptimize >= (await optimizeInterval(ctx)) && !ctx.maintaining()) {
      await clock.time('optimize', async () => {
        await ctx.store.optimize();
        await ctx.history.compact(new Date(Date.now() - VERSION_RETENTION_MS));
        await ctx.state.compact(new Date(Date.now() - VERSION_RETENTION_MS));
      });
      record.writesSinceOptimize = 0;
    }
    await clock.time('recordWrite', async () => {
      record.storeVersion = await ctx.store.version();
      await ctx.records.writeSaved(record);
    });
  }
  const event: SaveEvent = {
    sessionId: report.sessionId,
    at: new Date().toISOString(),
    mode: report.mode,
    syncDeletes,
    skippedSession: report.skippedSession,
    total: report.total,
    new: report.new,
    updated: report.updated,
    skipped: report.skipped,
    deleted: report.deleted,
    chunksWritten: report.chunksWritten,
    chunksDeleted: report.chunksDeleted,
    chunkIdsWritten: report.chunkIds,
    chunkIdsRemoved: removedIds,
    embeddingsComputed: report.embeddingsComputed,
    ...(report.redacted > 0 ? { redacted: report.redacted } : {}),
    durationMs: report.durationMs,
    model: ctx.store.model.model,
  };
  // On a shared store, a save's event waits for the history's next commit: the lease given back (at
  // most LEASE_KEEP_MS after the last save of a row, or when the engine closes), or HISTORY_DEFERRED_MAX
  // events kept. A commit costs about ten round trips to a bucket; saves in a row share one, and a
  // re-save commits nothing at all. What the save wrote is committed already: a process killed in
  // between loses only these events of the log. On a folder, so does a save that wrote nothing (a
  // re-save): its event is committed with the next save's, or by the engine once no save follows
  // for HISTORY_FLUSH_DELAY_MS, or when it closes (engine.ts), so that a re-save is a read and a compare.
  const wroteNothing = report.chunksWritten === 0 && report.chunksDeleted === 0;
  if (isRemoteStore(ctx.store.uri) || wroteNothing) {
    ctx.history.defer(event);
    if (ctx.history.deferred >= HISTORY_DEFERRED_MAX) await clock.time('historyCommit', () => ctx.history.flush());
  } else await clock.time('historyCommit', () => ctx.history.append(event));
  report.durationMs = Math.round((performance.now() - started) * 10) / 10;
  return report;
}

/**
 * Writes the session's row (title, source, the session it was started from) when the input changes
 * it. The archive record, current with the store (record.ts reads the rows of sessions other
 * machines saved), already holds what the row says: an input that gives the same reads nothing (a
 * read of the sessions table is several requests to a bucket).
 */
async function recordSessionMeta(ctx: EngineContext, sessionId: string, { title, source, parentSessionId }: { title?: string; source?: string; parentSessionId?: string }, isNew: boolean, known: ArchiveEntry | undefined): Promise<void> {
  if (!isNew && title === undefined && source === undefined && parentSessionId === undefined) return;
  const same = (given: string | undefined, recorded: string | undefined) => given === undefined || given === recorded;
  if (!isNew && known && same(title, known.title) && same(source, known.source) && same(parentSessionId, known.parent_session_id)) return;
  const current = isNew ? null : await ctx.store.sessionMeta(sessionId);
  const next = { sessionId, title: title ?? current?.title ?? '', source: source ?? current?.source ?? '', parentSessionId: parentSessionId ?? current?.parentSessionId ?? '', updatedAt: Date.now() };
  if (current && current.title === next.title && current.source === next.source && current.parentSessionId === next.parentSessionId) return;
  assertWriteLock(ctx.dataDir);
  await ctx.store.upsertSession(next);
}
