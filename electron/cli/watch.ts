/**
 * Watches a folder of transcripts (OpenClaw's sessions folder is the main use) and saves each file
 * incrementally as it grows. Changes are debounced per file; a file that is being written and does
 * not parse yet is retried at its next change. The size and modification time of every file saved,
 * and the sessions saved from it, are kept in `<dataDir>/watch-state.json` (engine/watchState.ts), so
 * after a restart only files that changed meanwhile are read again.
 */
import chokidar from 'chokidar';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SaveReport } from '../../shared/domain.js';
import type { MemoryEngine } from '../engine/engine.js';
import { currentWatchState, recordWatchedFile, unchanged } from '../engine/watchState.js';
import { readTranscripts, ImportError, type SkippedPart } from '../importers/index.js';

export interface WatchOptions {
  dir: string;
  debounceMs: number;
  include?: Array<'tools' | 'thinking'>;
  /** Replace well-known secrets before storing (default true). */
  redact?: boolean;
  onReport: (file: string, report: SaveReport) => void;
  onError: (file: string, message: string) => void;
  /** A damaged conversation or line that was left out (the rest of its file was saved). */
  onSkipped?: (part: SkippedPart) => void;
}

export interface TranscriptWatcher {
  /** Resolves when every file found at start has been looked at. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const TRANSCRIPT = /\.(jsonl|json|md|markdown|txt|zip)$|\.jsonl\.reset\.[^/\\]+$/i;
export async function watchTranscripts(engine: MemoryEngine, options: WatchOptions): Promise<TranscriptWatcher> {
  const timers = new Map<string, NodeJS.Timeout>();
  let chain: Promise<void> = Promise.resolve();
  let closing = false;

  const saveFile = async (file: string) => {
    let stat;
    try {
      stat = await fs.stat(file);
    } catch {
      return; // removed meanwhile
    }
    // Looked up in the file as it is now: a forget in another process may have changed it.
    if (unchanged(await currentWatchState(engine.dataDir), file, stat)) return;
    // A file whose last line has no newline yet is still being written: its cut-off end is not damage.
    const stillWriting = !(await endsWithNewline(file, stat.size));
    try {
      let waiting = false;
      const sessions = new Set<string>();
      for await (const result of readTranscripts([file], options.include ? { include: options.include } : {})) {
        if ('error' in result) throw result.error;
        for await (const session of result.sessions) {
          const report = await engine.save(session, { redact: options.redact ?? true });
          sessions.add(report.sessionId);
          options.onReport(file, report);
        }
        for (const part of result.skipped) {
          if (stillWriting && part.line !== undefined && /^truncated/.test(part.error)) waiting = true;
          else options.onSkipped?.(part);
        }
      }
      // Saved up to the line being written; the rest comes with the file's next change.
      if (waiting) return;
      await recordWatchedFile(engine.dataDir, file, { size: stat.size, mtimeMs: stat.mtimeMs, sessions: [...sessions] });
    } catch (error) {
      // A file caught mid-write (even mid-character) is tried again at its next change, without a word.
      if (stillWriting && error instanceof ImportError && error.code === 'truncated') return;
      options.onError(file, error instanceof ImportError || error instanceof Error ? error.message : String(error));
    }
  };

  const schedule = (file: string) => {
    if (closing || !TRANSCRIPT.test(file)) return;
    clearTimeout(timers.get(file));
    timers.set(
      file,
      setTimeout(() => {
        timers.delete(file);
        chain = chain.then(() => saveFile(file));
      }, options.debounceMs),
    );
  };

  const watcher = chokidar.watch(options.dir, { ignoreInitial: false, awaitWriteFinish: false, ignored: (p) => path.basename(p).startsWith('.') && p !== options.dir });
  watcher.on('add', schedule).on('change', schedule);
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  return {
    ready,
    async close() {
      closing = true;
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      await watcher.close();
      await chain;
    },
  };
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
