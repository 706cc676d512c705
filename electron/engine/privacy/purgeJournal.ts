/**
 * The purge still owed after saves that replaced text (forgetting single messages, `redact`): such a
 * save leaves the old text in older versions and in data files whose rows are only marked deleted,
 * until every row is rewritten and the old files removed (the purge). The journal, a row of the
 * store's state table (so that any machine sharing the store finishes it), is committed under the
 * write lock before the save changes anything, and removed only once the purge is
 * done; a kill in between leaves it behind, and the next writer (a save, a forget, a redact, or the
 * same command again) does the purge before anything else. Each write first checks that the lock is
 * still held (`assertWriteLock`), so a purge whose lock was taken over stops and stays owed.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { LEGACY_PURGE_JOURNAL } from '../files/layout.js';
import type { EngineContext } from '../context.js';
import { compactNearDuplicates } from '../duplicates/nearDuplicates.js';
import { assertWriteLock } from '../files/writeLock.js';

/** The journal's name in the store's state table (record/storeState.ts). */
const JOURNAL_NAME = 'purge';

export interface PurgeJournal {
  at: string;
  reason: 'forget-messages' | 'redact';
  /** Forgetting messages: the session and the messages being forgotten (ids only, never text). */
  sessionId?: string;
  msgIds?: string[];
  /** Forgetting messages: what the save removed, once it has (for the report of a run finished later). */
  messagesRemoved?: number;
  chunksRemoved?: number;
}

/** Records a purge as owed. Call with the write lock held, before the save that makes it owed. */
export async function owePurge(ctx: EngineContext, journal: PurgeJournal): Promise<void> {
  assertWriteLock(ctx.dataDir);
  await ctx.state.put<PurgeJournal>('journal', [{ key: JOURNAL_NAME, value: journal }]);
}

/**
 * Rewrites every row, removes older versions and files no version uses, and compacts the
 * near-duplicate files, so that replaced text is in no file; then drops the journal. Write lock held.
 */
export async function purgeNow(ctx: EngineContext): Promise<void> {
  const record = await ctx.records.load([], { locked: true });
  assertWriteLock(ctx.dataDir);
  await ctx.store.rewriteAndPrune();
  await compactNearDuplicates(ctx);
  record.storeVersion = await ctx.store.version();
  record.writesSinceOptimize = 0;
  await ctx.records.write(record);
  assertWriteLock(ctx.dataDir);
  await ctx.state.delete('journal', [JOURNAL_NAME]);
  await fs.rm(legacyPath(ctx), { force: true });
}

/**
 * Does the purge a kill left owed, if any (write lock held), and returns its journal (null when
 * none was owed). A journal that cannot be read is still a purge owed: it is done all the same.
 */
export async function finishPendingPurge(ctx: EngineContext): Promise<PurgeJournal | null> {
  let journal = await ctx.state.get<PurgeJournal>('journal', JOURNAL_NAME);
  // An earlier layout kept the journal as a file in the data folder.
  const file = legacyPath(ctx);
  if (!journal && existsSync(file)) {
    try {
      journal = JSON.parse(await fs.readFile(file, 'utf8')) as PurgeJournal;
    } catch {
      journal = { at: new Date().toISOString(), reason: 'redact' };
    }
  }
  if (!journal) return null;
  ctx.logger.warn(`finishing the removal of old copies after ${journal.reason === 'redact' ? 'redacting' : 'forgetting messages'}, which was interrupted`);
  await purgeNow(ctx);
  return journal;
}

function legacyPath(ctx: EngineContext): string {
  return path.join(ctx.dataDir, LEGACY_PURGE_JOURNAL);
}
