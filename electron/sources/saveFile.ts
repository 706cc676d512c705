/**
 * Saves one transcript file (or a folder read as a whole) through the import pipeline, as `watch` and `sync` both do: every
 * session of the file incrementally, damaged parts named and left out. Where the file is the whole
 * conversation as its tool keeps it (Claude Code, Gemini CLI), the messages the tool itself dropped
 * since the last save (a rewind, a branch left) are removed from memory, unless damaged lines were skipped. A log whose last line is
 * still being written (no newline yet) is saved up to that line and reported as `waiting`, so the
 * caller looks at it again at its next change instead of calling the cut-off line damage; so is a
 * JSON array of conversations still being written, up to its last complete conversation. A save
 * stopped through `signal` ends at a safe point (between sessions, or between two commits of one)
 * and is reported as `stopped`: what was written is whole, and saving the file again finishes it.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { SaveReport, SessionInput } from '../../shared/domain.js';
import type { SaveCallOptions } from '../engine/engine.js';
import { EngineError } from '../../shared/errors.js';
import { ImportError, incompleteSessions, isZstd, readTranscripts, type SkippedPart } from '../importers/index.js';

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
  /**
   * The digest of each session as the file's last save read it (see `sessionDigest`), by id: a
   * session read the same again is not saved again, so the store is not opened nor the model
   * loaded for a log that grew only by lines no session is made of (Claude Code's bookkeeping).
   */
  lastRead?: (sessionId: string) => string | undefined;
  /** Each session read and saved, or found as the last save read it, with its digest. */
  onRead?: (sessionId: string, digest: string) => void;
  /** Told of each session of the file the engine left out because it was forgotten (on any machine of the store). */
  onForgotten?: (sessionId: string) => void;
}

/** A session as read, and how it is saved: equal digests save the same messages. */
export function sessionDigest(session: SessionInput, options: Pick<SaveFileOptions, 'include' | 'redact'>): string {
  return createHash('sha256')
    .update(JSON.stringify({ include: [...(options.include ?? [])].sort(), redact: options.redact ?? true, session }))
    .digest('hex');
}

/** `saved`: all of the file is stored. `waiting`: all but a line being written. `stopped`: part of it, stopped through `signal`. Throws the file's ImportError. */
export async function saveTranscriptFile(engine: SavingEngine | (() => Promise<SavingEngine>), file: string, options: SaveFileOptions): Promise<'saved' | 'waiting' | 'stopped'> {
  const stats = await fs.stat(file);
  // A folder read as a whole (opencode's storage) has no last line being written, nor has a compressed
  // file (Codex's `.jsonl.zst`): a cut or damaged one is damage to report, not a write to wait for.
  const stillWriting = stats.isFile() && !(await endsWithNewline(file, stats.size)) && !(await isCompressed(file));
  try {
    let waiting = false;
    for await (const result of readTranscripts([file], options.include ? { include: options.include } : {})) {
      if ('error' in result) throw result.error;
      // What the tool itself dropped (a rewind, a branch left) goes from memory too, unless damaged lines
      // were skipped: then what the file does not show may only be unreadable, and nothing is deleted.
      // The line (or conversation of a JSON array) still being written is no damage: without it the
      // file is what it was a moment before.
      const beingWritten = (part: SkippedPart) => stillWriting && /^truncated/.test(part.error);
      const incomplete = incompleteSessions({ file: result.file, skipped: result.skipped.filter((part) => !beingWritten(part)) });
      for await (const session of result.sessions) {
        if (options.signal?.aborted) return 'stopped';
        if (options.leaveOut && (await options.leaveOut(session.sessionId.trim()))) continue;
        // A session read the same as at its last save (the file grew by bookkeeping lines only) opens
        // neither the store nor the model.
        const digest = options.lastRead || options.onRead ? sessionDigest(session, options) : '';
        if (digest !== '' && options.lastRead?.(session.sessionId) === digest) {
          options.onRead?.(session.sessionId, digest);
          continue;
        }
        const target = typeof engine === 'function' ? await engine() : engine;
        const rewound = result.rewound?.sessionId === session.sessionId ? result.rewound : undefined;
        const deletes: SaveCallOptions = rewound ? { syncDeletes: true, deletable: rewound.dropped, ...(incomplete ? { incomplete } : {}) } : {};
        const report = await target.save(session, { redact: options.redact ?? true, ...deletes, ...(options.signal ? { signal: options.signal } : {}) });
        if (report.forgotten) {
          options.onForgotten?.(report.sessionId);
          continue;
        }
        options.onReport(report);
        if (digest !== '') options.onRead?.(session.sessionId, digest);
      }
      for (const part of result.skipped) {
        if (beingWritten(part)) waiting = true;
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

async function isCompressed(file: string): Promise<boolean> {
  const handle = await fs.open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4), 0, 4, 0);
    return isZstd(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
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
