/**
 * Saves one transcript file (or a folder read as a whole) through the import pipeline, as `watch` and `sync` both do: every
 * session of the file incrementally, damaged parts named and left out. A log whose last line is
 * still being written (no newline yet) is saved up to that line and reported as `waiting`, so the
 * caller looks at it again at its next change instead of calling the cut-off line damage. A save
 * stopped through `signal` ends at a safe point (between sessions, or between two commits of one)
 * and is reported as `stopped`: what was written is whole, and saving the file again finishes it.
 */
import { promises as fs } from 'node:fs';
import type { SaveReport, SessionInput } from '../../shared/domain.js';
import type { SaveCallOptions } from '../engine/engine.js';
import { EngineError } from '../../shared/errors.js';
import { ImportError, readTranscripts, type SkippedPart } from '../importers/index.js';

/** What saving needs of the engine (the engine itself, or a test's double). */
export interface SavingEngine {
  save(input: SessionInput, options?: SaveCallOptions): Promise<SaveReport>;
}

export interface SaveFileOptions {
  include?: Array<'tools' | 'thinking'>;
  /** Replace well-known secrets before storing (default true). */
  redact?: boolean;
  onReport: (report: SaveReport) => void;
  onSkipped?: (part: SkippedPart) => void;
  /** Stops the save at the next safe point. */
  signal?: AbortSignal;
  /** Sessions of the file not to save (forgotten ones), by id. */
  leaveOut?: (sessionId: string) => Promise<boolean>;
  /** Told of each session of the file the engine left out because it was forgotten (on any machine of the store). */
  onForgotten?: (sessionId: string) => void;
}

/** `saved`: all of the file is stored. `waiting`: all but a line being written. `stopped`: part of it, stopped through `signal`. Throws the file's ImportError. */
export async function saveTranscriptFile(engine: SavingEngine | (() => Promise<SavingEngine>), file: string, options: SaveFileOptions): Promise<'saved' | 'waiting' | 'stopped'> {
  const stats = await fs.stat(file);
  // A folder read as a whole (opencode's storage) has no last line being written.
  const stillWriting = stats.isFile() && !(await endsWithNewline(file, stats.size));
  try {
    let waiting = false;
    for await (const result of readTranscripts([file], options.include ? { include: options.include } : {})) {
      if ('error' in result) throw result.error;
      const target = typeof engine === 'function' ? await engine() : engine;
      for await (const session of result.sessions) {
        if (options.signal?.aborted) return 'stopped';
        if (options.leaveOut && (await options.leaveOut(session.sessionId.trim()))) continue;
        const report = await target.save(session, { redact: options.redact ?? true, ...(options.signal ? { signal: options.signal } : {}) });
        if (report.forgotten) options.onForgotten?.(report.sessionId);
        else options.onReport(report);
      }
      for (const part of result.skipped) {
        if (stillWriting && part.line !== undefined && /^truncated/.test(part.error)) waiting = true;
        else options.onSkipped?.(part);
      }
    }
    return waiting ? 'waiting' : 'saved';
  } catch (error) {
    if (error instanceof EngineError && error.code === 'cancelled') return 'stopped';
    // A file caught mid-write (even mid-character) is tried again at its next change.
    if (stillWriting && error instanceof ImportError && error.code === 'truncated') return 'waiting';
    throw error;
  }
}

async function endsWithNewline(file: string, size: number): Promise<boolean> {
  if (size === 0) return true;
  const handle = await fs.open(file, 'r');
  try {
    const { buffer } = await handle.read(Buffer.alloc(1), 0, 1, size - 1);
    return buffer[0] === 0x0a;
  } finally {
    await handle.close();
  }
}
