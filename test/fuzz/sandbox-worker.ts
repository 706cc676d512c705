/**
 * Runs the importers in a worker thread for the fuzz tests (see sandbox.ts): a case that never
 * ends (a cycle followed forever, a regular expression gone quadratic) is stopped by terminating
 * the worker, instead of hanging the test run.
 *
 * Whatever the importer does is reported as plain data: the sessions it handed out, or the error
 * it threw with its class decided here, where `instanceof ImportError` still means something.
 */
import { parentPort } from 'node:worker_threads';
import type { SessionInput } from '../../shared/domain.js';
import { ImportError, readSessionsFromFile, readTranscripts, type ImportOptions } from '../../electron/importers/index.js';
import { DEFAULT_LIMITS, readSessionsFromFileWithLimits, type ReaderLimits } from '../../electron/importers/read.js';

export interface SandboxRequest {
  id: number;
  file: string;
  include: Array<'tools' | 'thinking'>;
  /** Force the streaming (two-pass) reader, whatever the file's size. */
  streaming: boolean;
  /** `sessions`: readSessionsFromFile (first error thrown); `transcripts`: readTranscripts, file by file. */
  api: 'sessions' | 'transcripts';
}

export interface ErrorReport {
  importError: boolean;
  name: string;
  constructorName: string;
  message: string;
  code?: string;
  file?: string;
  stack?: string;
}

export interface FileReport {
  file: string;
  format?: string;
  sessionCount?: number;
  sessions?: SessionInput[];
  error?: ErrorReport;
}

export type SandboxResponse =
  | { type: 'ready' }
  | { type: 'result'; id: number; ms: number; files: FileReport[] }
  | { type: 'threw'; id: number; ms: number; error: ErrorReport };

const STREAM_EVERYTHING: ReaderLimits = { ...DEFAULT_LIMITS, streamingThresholdBytes: 0 };

export function errorReport(error: unknown): ErrorReport {
  const isError = error instanceof Error;
  return {
    importError: error instanceof ImportError,
    name: isError ? error.name : typeof error,
    constructorName: isError ? error.constructor.name : typeof error,
    message: isError ? error.message : String(error),
    ...(error instanceof ImportError ? { code: error.code, file: error.file } : {}),
    ...(isError && error.stack ? { stack: error.stack.split('\n').slice(0, 12).join('\n') } : {}),
  };
}

async function run(request: SandboxRequest): Promise<FileReport[]> {
  const options: ImportOptions = request.include.length > 0 ? { include: request.include } : {};
  if (request.api === 'sessions') {
    const sessions = request.streaming ? await readSessionsFromFileWithLimits(request.file, options, STREAM_EVERYTHING) : await readSessionsFromFile(request.file, options);
    return [{ file: request.file, sessions }];
  }
  const files: FileReport[] = [];
  for await (const result of readTranscripts([request.file], options)) {
    if ('error' in result) {
      files.push({ file: result.file, error: errorReport(result.error) });
      continue;
    }
    const sessions: SessionInput[] = [];
    const report: FileReport = { file: result.file, format: result.format, sessionCount: result.sessionCount, sessions };
    files.push(report);
    try {
      for await (const session of result.sessions) sessions.push(session);
    } catch (error) {
      report.error = errorReport(error);
    }
  }
  return files;
}

/** Lets errors that streams raise late (after the reader returned) surface inside the case that caused them. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (request: SandboxRequest) => {
    const started = performance.now();
    run(request).then(
      async (files) => {
        await settle();
        port.postMessage({ type: 'result', id: request.id, ms: performance.now() - started, files } satisfies SandboxResponse);
      },
      async (error: unknown) => {
        await settle();
        port.postMessage({ type: 'threw', id: request.id, ms: performance.now() - started, error: errorReport(error) } satisfies SandboxResponse);
      },
    );
  });
  port.postMessage({ type: 'ready' } satisfies SandboxResponse);
}
