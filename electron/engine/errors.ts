import { EngineError } from '../../shared/errors.js';

export { EngineError };

/** Maps file-system failures to messages that say what to do. */
export function describeIoError(error: unknown, what: string): EngineError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (error instanceof EngineError) return error;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new EngineError('read_only', `${what}: permission denied (${code}); the data directory must be writable`, { cause: error });
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new EngineError('disk_full', `${what}: the disk is full; free some space and save again (nothing stored was lost)`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/No space left on device/i.test(message)) {
    return new EngineError('disk_full', `${what}: the disk is full; free some space and save again (nothing stored was lost)`, { cause: error });
  }
  if (/Permission denied|Read-only file system/i.test(message)) {
    return new EngineError('read_only', `${what}: permission denied; the data directory must be writable`, { cause: error });
  }
  if (/lance ?error|LanceError|Not found: .*\.lance|failed to fill whole buffer|Invalid (lance )?file/i.test(message)) {
    const reason = message.replace(/,? \/rustc\/\S+/g, '').replace(/\s+/g, ' ').slice(0, 200);
    return new EngineError('store_damaged', `${what}: the store's files are damaged or missing (${reason}); run "session-memory verify" to see what is affected and "session-memory verify --repair" to recover what can be read`, { cause: error });
  }
  return new EngineError('internal', `${what}: ${message}`, { cause: error });
}
