/**
 * Watches a folder of transcripts (OpenClaw's sessions folder is the main use) and saves each file
 * incrementally as it grows. Changes are debounced per file; a file that is being written and does
 * not parse yet is retried at its next change. The size and modification time of every file saved,
 * and the sessions saved from it, are kept in `<dataDir>/watch-state.json` (engine/record/watchState.ts),
 * so after a restart only files that changed meanwhile are read again.
 */
import { promises as fs } from 'node:fs';
import type { SaveReport } from '../../shared/domain.js';
import type { MemoryEngine } from '../engine/engine.js';
import { currentWatchState, recordForgottenFile, recordWatchedFile, unchanged } from '../engine/record/index.js';
import { ImportError, type SkippedPart } from '../importers/index.js';
import { followFiles } from '../sources/follow.js';
import { saveTranscriptFile } from '../sources/saveFile.js';

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
  const saveFile = async (file: string) => {
    let stat;
    try {
      stat = await fs.stat(file);
    } catch {
      return; // removed meanwhile
    }
    // Looked up in the file as it is now: a forget in another process may have changed it.
    if (unchanged(await currentWatchState(engine.dataDir), file, stat)) return;
    try {
      const sessions = new Set<string>();
      let forgotten = 0;
      const outcome = await saveTranscriptFile(engine, file, {
        ...(options.include ? { include: options.include } : {}),
        redact: options.redact ?? true,
        onReport: (report) => {
          sessions.add(report.sessionId);
          options.onReport(file, report);
        },
        ...(options.onSkipped ? { onSkipped: options.onSkipped } : {}),
        // Forgotten on some machine of the store: the engine left it out.
        onForgotten: () => forgotten++,
      });
      // Saved up to the line being written; the rest comes with the file's next change.
      if (outcome !== 'saved') return;
      if (sessions.size === 0 && forgotten > 0) await recordForgottenFile(engine.dataDir, file, stat);
      else await recordWatchedFile(engine.dataDir, file, { size: stat.size, mtimeMs: stat.mtimeMs, sessions: [...sessions] });
    } catch (error) {
      options.onError(file, error instanceof ImportError || error instanceof Error ? error.message : String(error));
    }
  };

  const follower = followFiles({ dirs: [options.dir], debounceMs: options.debounceMs, accept: (file) => TRANSCRIPT.test(file), onChange: saveFile });
  return { ready: follower.ready, close: () => follower.close() };
}
