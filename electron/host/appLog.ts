/**
 * The app's log: warnings, background maintenance failures and crashes, as JSON lines (pino) in
 * `<data folder>/logs/session-memory.log`, rotated at 1 MB with the five latest files kept
 * (rotating-file-stream), so that it never grows without bound and a person can send it with a report.
 */
import path from 'node:path';
import { pino, stdTimeFunctions } from 'pino';
import { createStream } from 'rotating-file-stream';
import { LOG_FOLDER } from '../engine/privacy/index.js';
import type { Logger } from '../engine/files/index.js';

export { LOG_FOLDER };
export const LOG_FILE = 'session-memory.log';

export interface AppLog extends Logger {
  error(message: string, error?: unknown): void;
  /** The folder the log files are in. */
  readonly dir: string;
  close(): Promise<void>;
}

export function openAppLog(dataDir: string, options: { maxSize?: `${number}${'B' | 'K' | 'M'}`; maxFiles?: number } = {}): AppLog {
  const dir = path.join(dataDir, LOG_FOLDER);
  const stream = createStream((time, index) => (time === null || index === undefined ? LOG_FILE : `session-memory.${index}.log`), {
    path: dir,
    size: options.maxSize ?? '1M',
    maxFiles: options.maxFiles ?? 5,
  });
  // A log that cannot be written (a full disk, a read-only folder) must not take the app down.
  stream.on('error', () => {});
  const log = pino({ base: { pid: process.pid }, timestamp: stdTimeFunctions.isoTime }, stream);
  return {
    dir,
    info: (message) => log.info(message),
    warn: (message) => log.warn(message),
    error: (message, error) => (error === undefined ? log.error(message) : log.error({ err: error instanceof Error ? error : new Error(String(error)) }, message)),
    close: () =>
      new Promise<void>((resolve) => {
        log.flush();
        stream.end(() => resolve());
      }),
  };
}
