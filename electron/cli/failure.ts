import { describeIoError, EngineError } from '../engine/errors.js';
import { ExitStatus, UsageError, type Io } from './support.js';

/** A command's failure as one line on stderr (a stack too with SESSION_MEMORY_DEBUG), and its exit status. */
export function failureStatus(error: unknown, io: Io): number {
  if (error instanceof ExitStatus) return error.status;
  if (error instanceof UsageError) {
    io.err(`session-memory: ${error.message}`);
    return 2;
  }
  if (error instanceof EngineError) {
    io.err(`session-memory: ${error.message}`);
    return error.code === 'invalid_input' ? 2 : 1;
  }
  const described = describeIoError(error, 'session-memory');
  io.err(described.code === 'internal' ? `session-memory: ${error instanceof Error ? error.message : String(error)}` : described.message);
  if (process.env.SESSION_MEMORY_DEBUG) io.err(String((error as Error).stack));
  return 1;
}
