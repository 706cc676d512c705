/**
 * Saves what is new in each source: every picked file (or database) whose cursor moved goes
 * through the import pipeline, and its cursor is advanced once its sessions are stored. Files whose
 * cursor did not move are not read, and the engine (the store, the model) is opened only when a
 * file has something to save, so a sync with nothing new costs a look at each file's size and head.
 *
 * A database (a source's database pick, or a file named to a hook that turns out to be one) is read
 * session by session: its cursor is its size and time and those of its write-ahead log, so a write
 * still in the log is seen, and once that moved only the sessions whose own mark moved are read, in a
 * worker thread (databaseReader.ts).
 */
import type { SaveReport } from '../../shared/domain.js';
import { EngineError } from '../../shared/errors.js';
// The importers' root modules only: the importers themselves load when a file is read.
import { isSqliteHeader } from '../importers/databaseHeader.js';
import { ImportError } from '../importers/errors.js';
import type { SkippedPart } from '../importers/read-types.js';
import { databaseCursor, fileCursor, folderCursor, SourceCursors, type FileCursor, type SavedFrom } from './cursors.js';
import { readFileSlice } from './fileSlice.js';
import type { FoundSource } from './discover.js';
import type { SavingEngine } from './saveFile.js';
import type { SourcePick } from './catalogue.js';

export interface SyncCallbacks {
  onReport: (sourceId: string, file: string, report: SaveReport) => void;
  onSkipped?: (sourceId: string, part: SkippedPart) => void;
  onError: (sourceId: string, file: string, message: string) => void;
  /** A source (or part of one) whose format does not import yet: listed, left unread. */
  onUnsupported?: (sourceId: string, message: string) => void;
}

export interface SyncOptions extends SyncCallbacks {
  cursors: SourceCursors;
  /** Opened at the first file with something new; never when nothing changed. */
  engine: () => Promise<SavingEngine>;
  include?: Array<'tools' | 'thinking'>;
  redact?: boolean;
  /** Stops the sync at the next safe point: the file being saved ends between two commits, no other file is read. */
  signal?: AbortSignal;
}

export interface SourceSyncResult {
  id: string;
  /** Files (or databases) whose new content was saved. */
  filesSaved: number;
  /** Sessions saved (a save report each). */
  sessionsSaved: number;
  /** Sessions read from databases (those whose mark moved); the other sessions of a database are not read. */
  sessionsRead?: number;
  errors: string[];
  /** Set when some of the source's content does not import yet. */
  unsupported?: string;
}

/** A pick's files that do not import yet, said once per sync in words a person understands. */
export function unsupportedMessage(source: FoundSource, pick: SourcePick, count: number): string {
  const what = pick.kind === 'database' ? `database${count === 1 ? '' : 's'}` : pick.kind === 'folder' ? `folder${count === 1 ? '' : 's'}` : `file${count === 1 ? '' : 's'}`;
  return `${source.tool}: this format does not import yet; ${count} ${what} under ${source.path} left unread`;
}

export async function syncSources(sources: FoundSource[], options: SyncOptions): Promise<SourceSyncResult[]> {
  const results: SourceSyncResult[] = [];
  for (const source of sources) {
    const result: SourceSyncResult = { id: source.id, filesSaved: 0, sessionsSaved: 0, errors: [] };
    results.push(result);
    for (const { pick, files } of source.picks) {
      if (!pick.imports) {
        if (files.length === 0) continue;
        result.unsupported = unsupportedMessage(source, pick, files.length);
        options.onUnsupported?.(source.id, result.unsupported);
        continue;
      }
      for (const file of files) {
        if (options.signal?.aborted) return results;
        await syncFile(source.id, file.path, pick.kind, options, result, pick.kind !== 'folder' && pick.mayHoldNone === true);
      }
    }
  }
  return results;
}

/**
 * Saves one file of a source if it changed since its cursor. Returns whether it was read. The
 * cursor stored is the one taken before reading: a file that grew during the save is read again
 * next time, and the engine finds the part it already holds. `mayHoldNone`: a database of no tool we
 * know (Cursor's workspaces without a chat), or a file without any message (LM Studio's new chat),
 * is passed over in silence.
 */
export async function syncFile(sourceId: string, file: string, kind: SourcePick['kind'], options: SyncOptions, result?: SourceSyncResult, mayHoldNone = false): Promise<boolean> {
  if (options.signal?.aborted) return false;
  let cursor: FileCursor | null;
  try {
    // A database named as a file (`hook --file`): its writes may still be only in its log beside it.
    if (kind === 'files' && (await isDatabaseFile(file))) kind = 'database';
    cursor = kind === 'database' ? await databaseCursor(file) : kind === 'folder' ? await folderCursor(file) : await fileCursor(file);
  } catch (error) {
    const message = `${file}: cannot read: ${error instanceof Error ? error.message : String(error)}`;
    result?.errors.push(message);
    options.onError(sourceId, file, message);
    return false;
  }
  if (cursor === null || (await options.cursors.unchanged(file, cursor))) return false;
  if (kind === 'database') return syncDatabase(sourceId, file, cursor, options, result, mayHoldNone);
  const { saveTranscriptFile } = await import('./saveFile.js');
  const saved: SavedFrom = { sessions: [], leftOut: 0, read: {} };
  const lastRead = options.cursors.lastRead(file);
  try {
    const outcome = await saveTranscriptFile(options.engine, file, {
      ...(options.include ? { include: options.include } : {}),
      redact: options.redact ?? true,
      onReport: (report) => {
        if (result) result.sessionsSaved++;
        saved.sessions.push(report.sessionId);
        options.onReport(sourceId, file, report);
      },
      onSkipped: (part) => options.onSkipped?.(sourceId, part),
      ...(options.signal ? { signal: options.signal } : {}),
      lastRead: (sessionId) => lastRead?.[sessionId],
      onRead: (sessionId, digest) => {
        saved.sessions.push(sessionId);
        saved.read![sessionId] = digest;
      },
      // A session that was forgotten does not come back when its file is read again: the engine
      // refuses it (forgotten on any machine of the store); one this machine's cursors mark as
      // forgotten (before the store kept the marks) is not even handed to it.
      leaveOut: async (sessionId) => {
        const forgotten = await options.cursors.forgotten(sessionId);
        if (forgotten) saved.leftOut++;
        return forgotten;
      },
      onForgotten: () => saved.leftOut++,
    });
    // Stopped part-way: the cursor stays, and the next sync reads the file again.
    if (outcome === 'stopped') return true;
    if (result) result.filesSaved++;
    // Saved up to a line still being written: the cursor stays, and the next change reads the file again.
    if (outcome === 'saved') await options.cursors.advance(file, cursor, saved);
  } catch (error) {
    // A file without any message yet is read again when it changes, without an error meanwhile.
    if (mayHoldNone && error instanceof ImportError && error.code === 'empty') await options.cursors.advance(file, cursor);
    else await fileFailed(error, sourceId, file, cursor, options, result, false);
  }
  return true;
}

/** Reports a file whose sync failed, and moves its cursor past it when the failure is the file's own. */
async function fileFailed(error: unknown, sourceId: string, file: string, cursor: FileCursor, options: SyncOptions, result: SourceSyncResult | undefined, mayHoldNone: boolean): Promise<void> {
  if (mayHoldNone && error instanceof ImportError && error.code === 'unknown-format') {
    await options.cursors.advance(file, cursor);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  result?.errors.push(message);
  options.onError(sourceId, file, message);
  // A file the importers refuse is refused again until it changes: not read again before then.
  // A failure of the store is not the file's: it is tried again at the next sync.
  if (error instanceof ImportError && error.code !== 'unreadable') await options.cursors.advance(file, cursor);
}

/**
 * Saves the sessions of a database whose mark moved since its last save. The marks of every session
 * are kept once all moved ones are stored; a save stopped part-way keeps the old ones, and the next
 * sync reads again what moved (the engine finds what it already holds).
 */
async function syncDatabase(sourceId: string, file: string, cursor: FileCursor, options: SyncOptions, result: SourceSyncResult | undefined, mayHoldNone: boolean): Promise<boolean> {
  const kept = await options.cursors.databaseSessions(file);
  const saved: SavedFrom = { sessions: [], leftOut: 0 };
  try {
    const { readDatabaseChanges } = await import('./databaseReader.js');
    const read = await readDatabaseChanges(file, { known: kept.marks, ...(options.include ? { include: options.include } : {}) });
    try {
      if (result) result.sessionsRead = (result.sessionsRead ?? 0) + read.moved.length;
      for await (const session of read.sessions) {
        if (options.signal?.aborted) return true;
        // A session that was forgotten does not come back when its database is read again.
        if (await options.cursors.forgotten(session.sessionId.trim())) {
          saved.leftOut++;
          continue;
        }
        const engine = await options.engine();
        const report = await engine.save(session, { redact: options.redact ?? true, ...(options.signal ? { signal: options.signal } : {}) });
        // Forgotten on another machine of the store: the engine refused it.
        if (report.forgotten) {
          saved.leftOut++;
          continue;
        }
        if (result) result.sessionsSaved++;
        saved.sessions.push(report.sessionId);
        options.onReport(sourceId, file, report);
      }
      for (const part of read.skipped) options.onSkipped?.(sourceId, part);
      saved.marks = read.marks;
    } finally {
      read.close();
    }
    if (result) result.filesSaved++;
    // The sessions saved before stay recorded beside those saved now (a forget drops them from both).
    const sessions = [...kept.sessions, ...saved.sessions];
    await options.cursors.advance(file, cursor, { ...saved, sessions });
  } catch (error) {
    if (error instanceof EngineError && error.code === 'cancelled') return true;
    await fileFailed(error, sourceId, file, cursor, options, result, mayHoldNone);
  }
  return true;
}

/** Whether a file is an SQLite database, by its first bytes. */
async function isDatabaseFile(file: string): Promise<boolean> {
  const head = await readFileSlice(file, 'start', 16);
  return head !== null && isSqliteHeader(head.bytes);
}
