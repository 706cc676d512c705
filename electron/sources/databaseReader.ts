/**
 * Reads the sessions of a tool's database that moved (importers/database-changes.ts) in a worker
 * thread (databaseWorker.ts), so that the process's own thread (Electron's main process, the CLI's
 * hook socket) never waits on SQLite. One worker serves every read, one read at a time; it is started
 * at the first read, does not keep the process alive while idle, and ends after a minute without work.
 *
 * The worker's script is found beside this module (`databaseWorker.entry.mjs`), or where
 * `$SESSION_MEMORY_DATABASE_WORKER` says (the packaged app, whose bundles sit in an asar archive from
 * which workers cannot start). Where there is neither (a bundle without the worker), or a worker
 * cannot start, the read runs on this thread: slower for the app, never lost.
 */
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SessionInput } from '../../shared/domain.js';
import { readChangedSessions, type ChangedSessions, type SessionMarks } from '../importers/database-changes.js';
import { ImportError, type ImportErrorCode } from '../importers/errors.js';
import type { ImportFormat } from '../importers/formats.js';
import { DEFAULT_LIMITS } from '../importers/read.js';
import type { ReadMapping, SkippedPart } from '../importers/read-types.js';

export type DatabaseWorkerRequest =
  | { type: 'read'; id: number; file: string; include?: Array<'tools' | 'thinking'>; known: SessionMarks }
  | { type: 'next'; id: number }
  | { type: 'stop'; id: number };

export type DatabaseWorkerReply =
  | { type: 'listed'; id: number; format: ImportFormat; marks: SessionMarks; moved: string[] }
  | { type: 'session'; id: number; session: SessionInput }
  | { type: 'end'; id: number; skipped: SkippedPart[] }
  | { type: 'error'; id: number; error: { file: string; code: ImportErrorCode; problem: string } | { message: string } };

export interface DatabaseReadOptions {
  include?: Array<'tools' | 'thinking'>;
  /** Each session's mark as last saved: sessions whose mark is the same are not read. */
  known: SessionMarks;
}

/** How long an idle worker stays for the next read (the app looks every 10 s, `sync --watch` every 2 s). */
const IDLE_MS = 60_000;

interface SharedWorker {
  worker: Worker;
  waiting: Map<number, (reply: DatabaseWorkerReply) => void>;
  idle: NodeJS.Timeout | null;
}

let shared: SharedWorker | null = null;
let nextId = 1;
/** Reads run one at a time: each holds a connection and one session in flight. */
let queue: Promise<unknown> = Promise.resolve();

function workerUrl(): URL | undefined {
  const fromEnv = process.env.SESSION_MEMORY_DATABASE_WORKER;
  if (fromEnv) return pathToFileURL(fromEnv);
  // The packaged app's CommonJS bundles have no `import.meta.url`.
  const here = (import.meta as { url?: string }).url;
  return typeof here === 'string' ? new URL('./databaseWorker.entry.mjs', here) : undefined;
}

function startWorker(): SharedWorker | null {
  if (shared) return shared;
  const url = workerUrl();
  if (url === undefined) return null;
  let worker: Worker;
  try {
    worker = new Worker(url);
  } catch {
    return null;
  }
  const state: SharedWorker = { worker, waiting: new Map(), idle: null };
  const failAll = (message: string) => {
    if (shared === state) shared = null;
    for (const [id, waiter] of state.waiting) waiter({ type: 'error', id, error: { message } });
    state.waiting.clear();
  };
  worker.on('message', (reply: DatabaseWorkerReply) => {
    const waiter = state.waiting.get(reply.id);
    state.waiting.delete(reply.id);
    waiter?.(reply);
  });
  worker.on('error', (error) => failAll(`the database reader stopped: ${error.message}`));
  worker.on('exit', (code) => failAll(`the database reader exited (${code})`));
  worker.unref();
  shared = state;
  return state;
}

/** Ends the worker (an app or a test closing); the next read starts another. */
export async function closeDatabaseReader(): Promise<void> {
  const state = shared;
  shared = null;
  if (state) {
    if (state.idle) clearTimeout(state.idle);
    await state.worker.terminate();
  }
}

/**
 * The sessions of the database at `file` whose mark moved, read in the worker. Throws the file's
 * ImportError as the importers would. `close` must be called once done (the caller's `finally`).
 */
export function readDatabaseChanges(file: string, options: DatabaseReadOptions): Promise<ChangedSessions> {
  const started = queue.then(() => startRead(file, options));
  // The next read waits for this one to be closed, not merely started.
  queue = started.then(
    (read) => read.done,
    () => {},
  );
  return started.then((read) => read.changes);
}

async function startRead(file: string, options: DatabaseReadOptions): Promise<{ changes: ChangedSessions; done: Promise<void> }> {
  const state = startWorker();
  if (state === null) {
    const changes = await readChangedSessions(file, databaseMapping(options.include), options.known, DEFAULT_LIMITS.maxEntryBytes);
    return finished(changes);
  }
  if (state.idle) clearTimeout(state.idle);
  state.idle = null;
  state.worker.ref();
  const id = nextId++;
  const ask = (request: DatabaseWorkerRequest) =>
    new Promise<DatabaseWorkerReply>((resolve) => {
      state.waiting.set(id, resolve);
      state.worker.postMessage(request);
    });
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let ended = false;
  const release = () => {
    if (ended) return;
    ended = true;
    if (shared === state) state.worker.postMessage({ type: 'stop', id } satisfies DatabaseWorkerRequest);
    state.worker.unref();
    state.idle = setTimeout(() => void (shared === state && closeDatabaseReader()), IDLE_MS);
    state.idle.unref();
    finish();
  };
  const listed = await ask({ type: 'read', id, file, known: options.known, ...(options.include ? { include: options.include } : {}) });
  if (listed.type !== 'listed') {
    release();
    throw errorOf(file, listed);
  }
  const skipped: SkippedPart[] = [];
  const changes: ChangedSessions = {
    format: listed.format,
    marks: listed.marks,
    moved: listed.moved,
    skipped,
    close: release,
    sessions: {
      async *[Symbol.asyncIterator]() {
        try {
          while (!ended) {
            const reply = await ask({ type: 'next', id });
            if (reply.type === 'session') yield reply.session;
            else if (reply.type === 'end') {
              skipped.push(...reply.skipped);
              return;
            } else throw errorOf(file, reply);
          }
        } finally {
          release();
        }
      },
    },
  };
  return { changes, done };
}

/** How a sync maps a database's sessions: what it includes, damaged sessions left out (never strict). */
export function databaseMapping(include: ReadonlyArray<'tools' | 'thinking'> | undefined): ReadMapping {
  return { include: new Set(include ?? []), strict: false };
}

function finished(changes: ChangedSessions): { changes: ChangedSessions; done: Promise<void> } {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    changes: {
      ...changes,
      close: () => {
        changes.close();
        finish();
      },
    },
    done,
  };
}

function errorOf(file: string, reply: DatabaseWorkerReply): Error {
  if (reply.type !== 'error') return new Error(`${file}: the database reader answered out of turn (${reply.type})`);
  if ('code' in reply.error) return new ImportError(reply.error.file, reply.error.code, reply.error.problem);
  return new ImportError(file, 'unreadable', reply.error.message);
}
