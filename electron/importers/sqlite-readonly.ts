/**
 * Read-only access to another program's SQLite database, safe while that program writes to it.
 *
 * - The connection is opened read-only: it can never write, and so never takes a write lock.
 * - The databases we read (OpenClaw's) are in WAL mode, where readers and the writer do not block
 *   each other; every query is its own short read transaction, so a checkpoint is never held up
 *   for long. A busy timeout covers the moments SQLite does make a reader wait (WAL recovery).
 * - Each statement sees one consistent snapshot, even while the writer is mid-transaction.
 *
 * better-sqlite3 is the driver. Inside the packaged app (Electron's own Node) its native module,
 * built for the system's Node, may not load; Node's built-in `node:sqlite` (Node >= 22.13, and
 * Electron's Node) takes over there.
 */
import { ImportError } from './errors.js';

export type SqlValue = string | number | bigint | null | Uint8Array;

export interface ReadOnlyDatabase {
  all<Row>(sql: string, ...params: SqlValue[]): Row[];
  get<Row>(sql: string, ...params: SqlValue[]): Row | undefined;
  close(): void;
}

/** How long a read waits for a lock before it gives up (the writer's checkpoints take milliseconds). */
export const BUSY_TIMEOUT_MS = 5000;

interface Statement {
  all(...params: SqlValue[]): unknown[];
  get(...params: SqlValue[]): unknown;
}
interface Connection {
  prepare(sql: string): Statement;
  close(): void;
}
type Opener = (file: string) => Connection;
export type SqliteDriver = 'better-sqlite3' | 'node:sqlite';

let opener: Promise<Opener> | undefined;
let driver: SqliteDriver | undefined;

/** The driver databases are read with, once one was opened. */
export function sqliteDriver(): SqliteDriver | undefined {
  return driver;
}

async function betterSqlite3(): Promise<Opener> {
  const { default: Database } = await import('better-sqlite3');
  // Constructing one proves the native module loads in this runtime.
  new Database(':memory:').close();
  return (file) => new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
}

async function nodeSqlite(): Promise<Opener> {
  // A variable specifier: Node 20's type definitions have no `node:sqlite`.
  const specifier = 'node:sqlite';
  const { DatabaseSync } = (await import(specifier)) as { DatabaseSync: new (file: string, options: { readOnly: boolean }) => Connection & { exec(sql: string): void } };
  return (file) => {
    const db = new DatabaseSync(file, { readOnly: true });
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return db;
  };
}

async function chooseOpener(): Promise<Opener> {
  try {
    const open = await betterSqlite3();
    driver = 'better-sqlite3';
    return open;
  } catch (nativeError) {
    try {
      const open = await nodeSqlite();
      driver = 'node:sqlite';
      return open;
    } catch {
      throw nativeError;
    }
  }
}

/** Opens `file` read-only. Errors are `ImportError`s naming the file. */
export async function openReadOnlyDatabase(file: string): Promise<ReadOnlyDatabase> {
  let open: Opener;
  try {
    opener ??= chooseOpener();
    open = await opener;
  } catch (error) {
    opener = undefined;
    throw new ImportError(file, 'unsupported', `cannot read SQLite databases here: ${messageOf(error)}`, { cause: error });
  }
  let connection: Connection;
  try {
    connection = open(file);
  } catch (error) {
    throw databaseError(file, error);
  }
  const run = <T>(sql: string, use: (statement: Statement) => T): T => {
    try {
      return use(connection.prepare(sql));
    } catch (error) {
      throw databaseError(file, error);
    }
  };
  return {
    all: <Row>(sql: string, ...params: SqlValue[]) => run(sql, (statement) => statement.all(...params) as Row[]),
    get: <Row>(sql: string, ...params: SqlValue[]) => run(sql, (statement) => statement.get(...params) as Row | undefined),
    close: () => connection.close(),
  };
}

function databaseError(file: string, error: unknown): ImportError {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = messageOf(error);
  if (code === 'SQLITE_NOTADB' || /not a database/i.test(message)) return new ImportError(file, 'binary', 'not an SQLite database');
  if (code === 'SQLITE_CORRUPT' || /malformed/i.test(message)) return new ImportError(file, 'truncated', `damaged SQLite database (${message})`, { cause: error });
  if (code === 'SQLITE_BUSY' || /database is locked/i.test(message)) return new ImportError(file, 'unreadable', `cannot read: the database stayed locked for ${BUSY_TIMEOUT_MS / 1000} s; try again`, { cause: error });
  return new ImportError(file, 'unreadable', `cannot read the database: ${message}`, { cause: error });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
