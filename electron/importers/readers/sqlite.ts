/**
 * Read-only access to the SQLite databases other tools write while we read them (OpenClaw's agent
 * databases, opencode's `opencode.db`, Cursor's `state.vscdb`). One reader for all of them:
 *
 * - The connection is opened read-only, never creating a file where the path is wrong: it can never
 *   write, and so never takes a write lock that could block the tool.
 * - It is opened the ordinary way (not `immutable=1`), so that it reads the write-ahead log: what a
 *   tool wrote since its last checkpoint is seen at once.
 * - The tools use WAL mode, where readers and the writer do not block each other; each statement, or
 *   each `snapshot`, is a short read transaction of its own, so a checkpoint is never held up for
 *   long. A busy timeout covers the moments SQLite makes a reader wait (WAL recovery).
 *
 * Two backends, with the same rows from both (BLOBs as Buffers, rows as plain objects):
 * - Node's own `node:sqlite` inside Electron (Electron 41 ships Node 24, which has it). The packaged
 *   app's better-sqlite3 is built for the system's Node (electron-builder runs with `npmRebuild:
 *   false`), so its native module does not load in Electron's Node.
 * - better-sqlite3 elsewhere: Node 20, which has no `node:sqlite`. Where its native module does not
 *   load (a Node of another ABI), `node:sqlite` takes over.
 *
 * Self-contained: it depends on nothing of the importers but their error type.
 */
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { ImportError } from '../errors.js';

export type SqlValue = string | number | bigint | null | Uint8Array;
export type SqliteBackend = 'better-sqlite3' | 'node:sqlite';

export interface ReadOnlyDatabase {
  all<Row>(sql: string, ...params: SqlValue[]): Row[];
  get<Row>(sql: string, ...params: SqlValue[]): Row | undefined;
  /** All reads of `read` from one snapshot of the database (a read transaction: a WAL writer goes on meanwhile). */
  snapshot<T>(read: () => T): T;
  /** The names of its tables. */
  tables(): Set<string>;
  close(): void;
}

/** How long a read waits for a lock before it gives up (the writer's checkpoints take milliseconds). */
export const BUSY_TIMEOUT_MS = 5000;

export { isSqliteHeader } from '../databaseHeader.js';

/** The backends to try, in order, for a runtime (`process.versions`). */
export function backendOrder(versions: { electron?: string | undefined }): SqliteBackend[] {
  return versions.electron !== undefined ? ['node:sqlite', 'better-sqlite3'] : ['better-sqlite3', 'node:sqlite'];
}

interface Statement {
  all(...params: SqlValue[]): unknown[];
  get(...params: SqlValue[]): unknown;
}
interface Connection {
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  close(): void;
}
interface Backend {
  name: SqliteBackend;
  open(file: string): Connection;
  /** A database held in memory (its bytes). */
  openBytes(bytes: Buffer): { connection: Connection; dispose(): void };
  /** Rows as plain objects, BLOBs as Buffers. */
  row(value: unknown): unknown;
}

let chosen: Backend | Error | undefined;

function loadBetterSqlite3(): Backend {
  // ES modules (the sources, the CLI bundle) make a `require`; the packaged app's CommonJS bundles,
  // where `import.meta` is empty, have their own.
  const url = (import.meta as { url?: string }).url;
  const load = typeof url === 'string' ? createRequire(url) : require;
  const Database = load('better-sqlite3') as typeof import('better-sqlite3');
  // Constructing one proves the native module loads in this runtime.
  new Database(':memory:').close();
  return {
    name: 'better-sqlite3',
    open: (file) => new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS }),
    openBytes: (bytes) => ({ connection: new Database(bytes, { readonly: true }), dispose: () => {} }),
    row: (value) => value,
  };
}

interface NodeSqlite {
  DatabaseSync: new (file: string, options: { readOnly: boolean; timeout?: number }) => Connection;
}

function loadNodeSqlite(): Backend {
  // Synchronous, and invisible to Node 20's type definitions (which have no `node:sqlite`).
  const sqlite = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined;
  if (sqlite?.DatabaseSync === undefined) throw new Error(`this Node (${process.version}) has no node:sqlite`);
  const { DatabaseSync } = sqlite;
  const open = (file: string) => {
    const db = new DatabaseSync(file, { readOnly: true });
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return db;
  };
  return {
    name: 'node:sqlite',
    open: (file) => {
      // node:sqlite has no "file must exist" switch: read-only, a missing file fails to open anyway.
      return open(file);
    },
    openBytes: (bytes) => {
      // node:sqlite cannot open bytes in memory: they go to a private temporary file for the look.
      const file = path.join(os.tmpdir(), `session-memory-${randomUUID()}.sqlite`);
      writeFileSync(file, bytes, { mode: 0o600 });
      try {
        return { connection: open(file), dispose: () => rmSync(file, { force: true }) };
      } catch (error) {
        rmSync(file, { force: true });
        throw error;
      }
    },
    row: (value) => {
      if (value === null || typeof value !== 'object') return value;
      const row: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(value)) row[key] = field instanceof Uint8Array && !Buffer.isBuffer(field) ? Buffer.from(field.buffer, field.byteOffset, field.byteLength) : field;
      return row;
    },
  };
}

function chooseBackend(): Backend {
  if (chosen === undefined) {
    const failures: string[] = [];
    for (const name of backendOrder(process.versions)) {
      try {
        chosen = name === 'node:sqlite' ? loadNodeSqlite() : loadBetterSqlite3();
        break;
      } catch (error) {
        failures.push(`${name}: ${messageOf(error)}`);
      }
    }
    chosen ??= new Error(failures.join('; '));
  }
  if (chosen instanceof Error) throw chosen;
  return chosen;
}

/** The backend this runtime reads databases with (loading it if need be); undefined when none loads. */
export function sqliteBackend(): SqliteBackend | undefined {
  try {
    return chooseBackend().name;
  } catch {
    return undefined;
  }
}

function backendFor(file: string): Backend {
  try {
    return chooseBackend();
  } catch (error) {
    throw new ImportError(file, 'unsupported', `cannot read SQLite databases here: ${messageOf(error)}`, { cause: error });
  }
}

function wrap(label: string, backend: Backend, connection: Connection, dispose: () => void): ReadOnlyDatabase {
  const run = <T>(sql: string, use: (statement: Statement) => T): T => {
    try {
      return use(connection.prepare(sql));
    } catch (error) {
      throw databaseError(label, error);
    }
  };
  const db: ReadOnlyDatabase = {
    all: <Row>(sql: string, ...params: SqlValue[]) => run(sql, (statement) => statement.all(...params).map(backend.row) as Row[]),
    get: <Row>(sql: string, ...params: SqlValue[]) => run(sql, (statement) => backend.row(statement.get(...params)) as Row | undefined),
    snapshot: <T>(read: () => T): T => {
      try {
        connection.exec('BEGIN DEFERRED');
      } catch (error) {
        throw databaseError(label, error);
      }
      try {
        return read();
      } finally {
        try {
          connection.exec('COMMIT');
        } catch {
          // A read transaction holds nothing to keep: ending it cannot lose anything.
        }
      }
    },
    tables: () => new Set(db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").map((row) => row.name)),
    close: () => {
      try {
        connection.close();
      } finally {
        dispose();
      }
    },
  };
  return db;
}

/** Opens `file` read-only. Errors are `ImportError`s naming the file. */
export function openReadOnlyDatabase(file: string): ReadOnlyDatabase {
  const backend = backendFor(file);
  let connection: Connection;
  try {
    connection = backend.open(file);
  } catch (error) {
    throw databaseError(file, error);
  }
  return wrap(file, backend, connection, () => {});
}

/** Runs `read` on the database at `file`, opened read-only, and closes it whatever happens. */
export function withReadOnlyDatabase<T>(file: string, read: (db: ReadOnlyDatabase) => T): T {
  const db = openReadOnlyDatabase(file);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** `read` on a database held in memory (its bytes), for recognising one by content alone; undefined when it cannot be read. */
export function withDatabaseBytes<T>(bytes: Uint8Array, read: (db: ReadOnlyDatabase) => T): T | undefined {
  // A database in WAL mode says so in bytes 18 and 19 of its header; in memory there is no WAL, so
  // the copy is marked as using a rollback journal (the content is the same).
  const copy = Buffer.from(bytes);
  if (copy.length > 19 && copy[18] === 2 && copy[19] === 2) copy[18] = copy[19] = 1;
  let db: ReadOnlyDatabase;
  try {
    const backend = chooseBackend();
    const { connection, dispose } = backend.openBytes(copy);
    db = wrap('(in memory)', backend, connection, dispose);
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

/** The primary result code of an SQLite error from either backend (better-sqlite3: `code`; node:sqlite: `errcode`). */
function resultCode(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof errcode === 'number') return { 5: 'SQLITE_BUSY', 6: 'SQLITE_LOCKED', 11: 'SQLITE_CORRUPT', 26: 'SQLITE_NOTADB' }[errcode & 0xff];
  return typeof code === 'string' ? code.replace(/^(SQLITE_[A-Z]+)_.*$/, '$1') : undefined;
}

function databaseError(file: string, error: unknown): ImportError {
  if (error instanceof ImportError) return error;
  const code = resultCode(error);
  const message = messageOf(error);
  if (code === 'SQLITE_NOTADB' || /not a database/i.test(message)) return new ImportError(file, 'binary', 'not an SQLite database', { cause: error });
  if (code === 'SQLITE_CORRUPT' || /malformed/i.test(message)) return new ImportError(file, 'truncated', `damaged SQLite database (${message})`, { cause: error });
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || /database is locked/i.test(message)) {
    return new ImportError(file, 'unreadable', `cannot read: the database stayed locked for ${BUSY_TIMEOUT_MS / 1000} s (another program holds a lock); try again`, { cause: error });
  }
  return new ImportError(file, 'unreadable', `cannot read the database: ${message}`, { cause: error });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
