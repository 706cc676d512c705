/**
 * Opening the SQLite databases other tools write (opencode's `opencode.db`, Cursor's `state.vscdb`),
 * for reading only. Those tools keep writing while we read (WAL mode), so a connection here never
 * writes and never takes a lock that could block them: read-only, no file created when the path is
 * wrong, and a busy timeout that waits for a checkpoint to finish rather than failing at once.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { ImportError } from './errors.js';

type Driver = typeof BetterSqlite3;
let driver: Driver | Error | undefined;

/**
 * better-sqlite3 is a native module, loaded the first time a database is opened rather than with
 * the importers: a build whose binary does not match the runtime (an Electron without its rebuild)
 * then fails on databases alone, with a message saying so, instead of on every import.
 */
function loadDriver(file: string): Driver {
  if (driver === undefined) {
    try {
      // ES modules (the sources, the CLI bundle) make a `require`; the packaged app's CommonJS bundles,
      // where `import.meta` is empty, have their own.
      const url = (import.meta as { url?: string }).url;
      const load = typeof url === 'string' ? createRequire(url) : require;
      driver = load('better-sqlite3') as Driver;
    } catch (error) {
      driver = error instanceof Error ? error : new Error(String(error));
    }
  }
  if (driver instanceof Error) throw new ImportError(file, 'unreadable', `cannot read SQLite databases here: the better-sqlite3 module did not load (${driver.message})`, { cause: driver });
  return driver;
}

/** Every SQLite 3 database starts with these 16 bytes. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** How long a read waits for a writer's lock (a checkpoint) before giving up, in ms. */
const BUSY_TIMEOUT_MS = 5000;

export function isSqliteHeader(head: Uint8Array): boolean {
  return head.length >= SQLITE_HEADER.length && Buffer.from(head.buffer, head.byteOffset, SQLITE_HEADER.length).equals(SQLITE_HEADER);
}

export type ReadOnlyDatabase = BetterSqlite3.Database;

/**
 * Runs `read` on the database at `file`, opened read-only, and closes it whatever happens.
 * SQLite's own errors (a damaged file, a lock held longer than the busy timeout) become an
 * `ImportError` naming the file; a read sees one consistent snapshot when it runs in one statement
 * or inside `readSnapshot`.
 */
export function withReadOnlyDatabase<T>(file: string, read: (db: ReadOnlyDatabase) => T): T {
  const Database = loadDriver(file);
  let db: ReadOnlyDatabase;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    throw sqliteError(file, error);
  }
  try {
    return read(db);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    if (error instanceof Database.SqliteError) throw sqliteError(file, error);
    throw error;
  } finally {
    db.close();
  }
}

/** `read` on a database held in memory (its bytes), for recognising one by content alone. */
export function withDatabaseBytes<T>(bytes: Uint8Array, read: (db: ReadOnlyDatabase) => T): T | undefined {
  // A database in WAL mode says so in bytes 18 and 19 of its header; in memory there is no WAL, so
  // the copy is marked as using a rollback journal (the content is the same).
  const copy = Buffer.from(bytes);
  if (copy.length > 19 && copy[18] === 2 && copy[19] === 2) copy[18] = copy[19] = 1;
  let db: ReadOnlyDatabase;
  try {
    db = new (loadDriver('(in memory)'))(copy, { readonly: true });
  } catch {
    return undefined;
  }
  try {
    return read(db);
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

/** All reads of `read` from one snapshot of the database (a read transaction: writers go on meanwhile in WAL mode). */
export function readSnapshot<T>(db: ReadOnlyDatabase, read: () => T): T {
  return db.transaction(read).deferred();
}

export function tableNames(db: ReadOnlyDatabase): Set<string> {
  const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
  return new Set(rows.map((row) => row.name));
}

function sqliteError(file: string, error: unknown): ImportError {
  const code = (error as { code?: string } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return new ImportError(file, 'unreadable', `database is busy (another program holds a lock); try again: ${message}`, { cause: error });
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return new ImportError(file, 'unreadable', `damaged database: ${message}`, { cause: error });
  return new ImportError(file, 'unreadable', `cannot read the database: ${message}`, { cause: error });
}
