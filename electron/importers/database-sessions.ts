/**
 * The sessions of a database another tool is writing, handed out like those of a large export:
 * a first pass maps every session to check it and count, the second maps them again one at a
 * time as they are asked for, so memory holds one session, not the database. Each session is
 * read in a short read transaction of its own: the tool is never kept waiting behind a long
 * import. Sessions that appear between the passes wait for the next import; a session damaged
 * since the first pass is left out, as the first pass would have.
 */
import type { SessionInput } from '../../shared/domain.js';
import { ImportError, ShapeError } from './errors.js';
import type { ImportedFile, ImportFormat, ReadMapping, SkippedPart } from './read-types.js';
import { withReadOnlyDatabase, type ReadOnlyDatabase } from './readers/sqlite.js';

export interface DatabaseSessions<Key> {
  format: ImportFormat;
  /** Every session's key, in order. */
  keys(db: ReadOnlyDatabase): Key[];
  /** One session; a `ShapeError` when its records are damaged. */
  session(db: ReadOnlyDatabase, key: Key, mapping: ReadMapping): SessionInput;
  /** The session's id (how a skipped session is named). */
  name(key: Key): string;
  /** Changes whenever the session may have (from its key alone): a sync reads only sessions whose mark moved. */
  mark(key: Key): string;
}

export function readDatabaseSessions<Key>(file: string, mapping: ReadMapping, reader: DatabaseSessions<Key>): ImportedFile {
  const skipped: SkippedPart[] = [];
  const good: Key[] = [];
  withReadOnlyDatabase(file, (db) => {
    for (const key of db.snapshot(() => reader.keys(db))) {
      try {
        if (db.snapshot(() => reader.session(db, key, mapping)).messages.length > 0) good.push(key);
      } catch (error) {
        if (!(error instanceof ShapeError) || mapping.strict) throw asImportError(file, error);
        skipped.push({ file, session: reader.name(key), error: error.problem });
      }
    }
  });
  if (good.length === 0) throw new ImportError(file, 'empty', skipped.length > 0 ? `no readable session (${skipped[0]!.error})` : 'no messages to import');
  return {
    file,
    format: reader.format,
    sessionCount: good.length,
    skipped,
    sessions: {
      async *[Symbol.asyncIterator]() {
        for (const key of good) {
          let session: SessionInput;
          try {
            session = withReadOnlyDatabase(file, (db) => db.snapshot(() => reader.session(db, key, mapping)));
          } catch (error) {
            if (error instanceof ShapeError && !mapping.strict) continue;
            throw asImportError(file, error);
          }
          if (session.messages.length > 0) yield session;
        }
      },
    },
  };
}

function asImportError(file: string, error: unknown): unknown {
  return error instanceof ShapeError ? new ImportError(file, 'wrong-shape', error.problem, { cause: error }) : error;
}

/** A JSON record stored in a database, as an object; a `ShapeError` naming it when it is not one. */
export function parseRecord(text: unknown, what: string): Record<string, unknown> {
  const source = text instanceof Uint8Array ? Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8') : text;
  if (typeof source !== 'string') throw new ShapeError(`${what}: has no data`);
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    throw new ShapeError(`${what}: its data is not valid JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ShapeError(`${what}: its data must be a JSON object`);
  return value as Record<string, unknown>;
}
