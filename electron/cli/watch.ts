/**
 * Watches a folder of transcripts (OpenClaw's sessions folder is the main use) and saves each file
 * incrementally as it grows. Changes are debounced per file; a file that is being written and does
 * not parse yet is retried at its next change. The size and modification time of every file saved
 * are kept in `<dataDir>/watch-state.json`, so after a restart only files that changed meanwhile
 * are read again.
 */
import chokidar from 'chokidar';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SaveReport } from '../../shared/domain.js';
import type { MemoryEngine } from '../engine/engine.js';
import { writeFileAtomic } from '../engine/atomicFile.js';
import { readSessionsFromFile, ImportError } from '../importers/index.js';

export interface WatchOptions {
  dir: string;
  debounceMs: number;
  include?: Array<'tools' | 'thinking'>;
  onReport: (file: string, report: SaveReport) => void;
  onError: (file: string, message: string) => void;
}

export interface TranscriptWatcher {
  /** Resolves when every file found at start has been looked at. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const TRANSCRIPT = /\.(jsonl|json|md|markdown|txt|zip)$|\.jsonl\.reset\.[^/\\]+$/i;
const STATE_FILE = 'watch-state.json';

type WatchState = Record<string, { size: number; mtimeMs: number }>;

export async function watchTranscripts(engine: MemoryEngine, options: WatchOptions): Promise<TranscriptWatcher> {
  const stateFile = path.join(engine.dataDir, STATE_FILE);
  let state: WatchState = {};
  try {
    state = JSON.parse(await fs.readFile(stateFile, 'utf8')) as WatchState;
  } catch {
    state = {};
  }
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
    const seen = state[file];
    if (seen && seen.size === stat.size && seen.mtimeMs === stat.mtimeMs) return;
    try {
      const sessions = await readSessionsFromFile(file, options.include ? { include: options.include } : {});
      for (const session of sessions) options.onReport(file, await engine.save(session));
      state[file] = { size: stat.size, mtimeMs: stat.mtimeMs };
      await writeFileAtomic(stateFile, JSON.stringify(state));
    } catch (error) {
      // A file caught mid-write is tried again at its next change.
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
