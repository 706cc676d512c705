/**
 * The thread that reads tools' databases (see databaseReader.ts): SQLite's reads are synchronous,
 * and a busy database can make one wait up to the busy timeout, so they run here and never on the
 * thread that serves the app's window, hooks and MCP clients. Sessions are handed over one at a time,
 * each when the caller asks for the next, so that neither thread holds more than one.
 */
import { parentPort } from 'node:worker_threads';
import type { SessionInput } from '../../shared/domain.js';
import { readChangedSessions, type ChangedSessions } from '../importers/database-changes.js';
import { ImportError } from '../importers/errors.js';
import { DEFAULT_LIMITS } from '../importers/read.js';
import { databaseMapping, type DatabaseWorkerReply, type DatabaseWorkerRequest } from './databaseReader.js';

const port = parentPort;
if (port === null) throw new Error('databaseWorker.ts runs as a worker thread only');

const reads = new Map<number, { read: ChangedSessions; sessions: AsyncIterator<SessionInput> }>();
const send = (reply: DatabaseWorkerReply) => port.postMessage(reply);

function failure(id: number, error: unknown): DatabaseWorkerReply {
  if (error instanceof ImportError) return { type: 'error', id, error: { file: error.file, code: error.code, problem: error.problem } };
  return { type: 'error', id, error: { message: error instanceof Error ? error.message : String(error) } };
}

function end(id: number): void {
  reads.get(id)?.read.close();
  reads.delete(id);
}

port.on('message', (request: DatabaseWorkerRequest) => {
  void (async () => {
    try {
      switch (request.type) {
        case 'read': {
          const read = await readChangedSessions(request.file, databaseMapping(request.include), request.known, DEFAULT_LIMITS.maxEntryBytes);
          reads.set(request.id, { read, sessions: read.sessions[Symbol.asyncIterator]() });
          send({ type: 'listed', id: request.id, format: read.format, marks: read.marks, moved: read.moved });
          break;
        }
        case 'next': {
          const current = reads.get(request.id);
          if (!current) return;
          const next = await current.sessions.next();
          if (next.done) {
            end(request.id);
            send({ type: 'end', id: request.id, skipped: current.read.skipped });
          } else {
            send({ type: 'session', id: request.id, session: next.value });
          }
          break;
        }
        case 'stop':
          end(request.id);
          break;
      }
    } catch (error) {
      end(request.id);
      send(failure(request.id, error));
    }
  })();
});
