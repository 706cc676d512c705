/**
 * The sessions of a tool's database that moved since the marks a sync kept: every session is listed
 * with a mark that changes whenever the session may have (OpenClaw: where its lines are and its last
 * event's number; opencode: the newest times and counts of its messages and parts; Cursor: a digest of
 * the chat's record), and only sessions whose mark differs from the one kept are read. A sync of a
 * database of a thousand sessions where one got a turn reads that one.
 *
 * Each session is read in a short read transaction of its own, one at a time as they are asked for,
 * so memory holds one session and the tool is never kept waiting. A damaged session is left out and
 * named; its mark is kept like the others', so it is read again when it moves.
 */
import type { SessionInput } from '../../shared/domain.js';
import { cursorDatabaseSessions, isCursorDatabase } from './agents/cursor.js';
import type { DatabaseSessions } from './database-sessions.js';
import { ImportError, ShapeError } from './errors.js';
import { mapStoredSession, storedSessionMark, storedSessions } from './openclaw/openclaw-db.js';
import { isOpencodeDatabase, opencodeDatabaseSessions } from './agents/opencode-files.js';
import type { ImportFormat, ReadMapping, SkippedPart } from './read-types.js';
import { openReadOnlyDatabase, type ReadOnlyDatabase } from './readers/sqlite.js';

/** Each session's mark, by session id. */
export type SessionMarks = Record<string, string>;

export type DatabaseKind = 'openclaw' | 'opencode' | 'cursor' | 'other';

/** Which tool's database this is, by its tables. */
export function databaseKind(db: ReadOnlyDatabase): DatabaseKind {
  // OpenClaw's per-agent database (agents/<id>/agent/openclaw-agent.sqlite) keeps its lines in `transcript_events`.
  if (db.tables().has('transcript_events')) return 'openclaw';
  return isOpencodeDatabase(db) ? 'opencode' : isCursorDatabase(db) ? 'cursor' : 'other';
}

export function unknownDatabaseError(file: string): ImportError {
  return new ImportError(file, 'unknown-format', "a SQLite database of no tool we know (understood: OpenClaw's agent databases, opencode's opencode.db, Cursor's state.vscdb)");
}

export interface ChangedSessions {
  format: ImportFormat;
  /** Every session the database holds now, with its mark (to be kept once the moved ones are saved). */
  marks: SessionMarks;
  /** The sessions whose mark moved: those `sessions` reads. */
  moved: string[];
  /** The moved sessions, read one at a time; a damaged one is left out and added to `skipped`. */
  sessions: AsyncIterable<SessionInput>;
  skipped: SkippedPart[];
  close(): void;
}

interface ListedSession {
  id: string;
  mark: string;
  read(): Promise<SessionInput>;
}

/**
 * Lists the database's sessions and their marks, and reads those whose mark is not the one in
 * `known` (all of them when `known` is empty). Throws the file's ImportError (an SQLite database of
 * no tool we know: `unknown-format`; a first read that finds no message at all: `empty`).
 */
export async function readChangedSessions(file: string, mapping: ReadMapping, known: SessionMarks, maxBytes: number): Promise<ChangedSessions> {
  const db = openReadOnlyDatabase(file);
  let listed: { format: ImportFormat; sessions: ListedSession[] };
  try {
    listed = db.snapshot(() => listSessions(db, file, mapping, maxBytes));
  } catch (error) {
    db.close();
    throw error instanceof ShapeError ? new ImportError(file, 'wrong-shape', error.problem, { cause: error }) : error;
  }
  const marks: SessionMarks = {};
  for (const session of listed.sessions) marks[session.id] = session.mark;
  const moved = listed.sessions.filter((session) => known[session.id] !== session.mark);
  const firstRead = Object.keys(known).length === 0;
  const skipped: SkippedPart[] = [];
  let closed = false;
  const close = () => {
    if (!closed) db.close();
    closed = true;
  };
  return {
    format: listed.format,
    marks,
    moved: moved.map((session) => session.id),
    skipped,
    close,
    sessions: {
      async *[Symbol.asyncIterator]() {
        let messages = 0;
        try {
          for (const session of moved) {
            let mapped: SessionInput;
            try {
              mapped = await session.read();
            } catch (error) {
              const problem = error instanceof ShapeError ? error.problem : error instanceof ImportError && error.file === file ? error.problem : undefined;
              if (problem === undefined) throw error;
              skipped.push({ file, session: session.id, error: problem });
              continue;
            }
            if (mapped.messages.length === 0) continue;
            messages += mapped.messages.length;
            yield mapped;
          }
          if (firstRead && messages === 0) throw new ImportError(file, 'empty', skipped.length > 0 ? `no readable session (${skipped[0]!.error})` : 'no messages to import');
        } finally {
          close();
        }
      },
    },
  };
}

function listSessions(db: ReadOnlyDatabase, file: string, mapping: ReadMapping, maxBytes: number): { format: ImportFormat; sessions: ListedSession[] } {
  switch (databaseKind(db)) {
    case 'openclaw': {
      // A repair of a session's lines keeps its last sequence number but changes its generation.
      const generations = new Map<string, string>();
      if (db.tables().has('transcript_rewrite_watermarks')) {
        for (const row of db.all<{ session_id: string; generation: unknown }>('SELECT session_id, generation FROM transcript_rewrite_watermarks')) generations.set(row.session_id, String(row.generation));
      }
      return {
        format: 'openclaw',
        sessions: storedSessions(db, file).map((stored) => ({
          id: stored.sessionId,
          mark: `${storedSessionMark(stored)}${generations.has(stored.sessionId) ? `:g${generations.get(stored.sessionId)}` : ''}:${stored.title ?? ''}`,
          read: () => mapStoredSession(db, file, stored, mapping, maxBytes),
        })),
      };
    }
    case 'opencode':
      return fromReader(db, opencodeDatabaseSessions(file), mapping);
    case 'cursor':
      return fromReader(db, cursorDatabaseSessions, mapping);
    case 'other':
      throw unknownDatabaseError(file);
  }
}

function fromReader<Key>(db: ReadOnlyDatabase, reader: DatabaseSessions<Key>, mapping: ReadMapping): { format: ImportFormat; sessions: ListedSession[] } {
  return {
    format: reader.format,
    sessions: reader.keys(db).map((key) => ({
      id: reader.name(key),
      mark: reader.mark(key),
      read: () => Promise.resolve(db.snapshot(() => reader.session(db, key, mapping))),
    })),
  };
}
