/**
 * Follows files as they change: chokidar's events on folders, debounced per file, and handed on
 * one at a time (saves never overlap). Used by `watch` (one folder) and `sync --watch` (every
 * source's folders); databases, whose writes land in a log beside them, are polled by the caller.
 */
import chokidar from 'chokidar';
import path from 'node:path';

export interface FollowOptions {
  dirs: string[];
  debounceMs: number;
  /** Whether a changed path is worth handing on. */
  accept: (file: string) => boolean;
  /** Called once per settled change, never while the previous call runs. */
  onChange: (file: string) => Promise<void>;
  /** Report the files already there when following starts (default true). */
  initial?: boolean;
  /** Hidden files and folders are skipped, except those this accepts (aider's `.aider.chat.history.md`). */
  hiddenAllowed?: (file: string) => boolean;
  /**
   * Paths below a followed folder that can hold nothing worth handing on (a folder no pick reaches):
   * not watched at all, so that their churn (a database's log files, created and removed at each
   * open) costs no event.
   */
  outside?: (file: string) => boolean;
}

export interface FileFollower {
  /** Resolves when every file found at start has been seen. */
  ready: Promise<void>;
  /** Runs a job in the same queue as the changes (so it never overlaps a save). */
  enqueue(job: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export function followFiles(options: FollowOptions): FileFollower {
  const timers = new Map<string, NodeJS.Timeout>();
  let chain: Promise<void> = Promise.resolve();
  let closing = false;
  const roots = new Set(options.dirs);

  const enqueue = (job: () => Promise<void>) => {
    const next = chain.then(job, job);
    chain = next.catch(() => {});
    return next;
  };

  const schedule = (file: string) => {
    if (closing || !options.accept(file)) return;
    clearTimeout(timers.get(file));
    timers.set(
      file,
      setTimeout(() => {
        timers.delete(file);
        void enqueue(() => options.onChange(file));
      }, options.debounceMs),
    );
  };

  const watcher = chokidar.watch([...roots], {
    ignoreInitial: options.initial === false,
    awaitWriteFinish: false,
    ignored: (p) => !roots.has(p) && ((path.basename(p).startsWith('.') && !(options.hiddenAllowed?.(p) ?? false)) || (options.outside?.(p) ?? false)),
  });
  watcher.on('add', schedule).on('change', schedule);
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  return {
    ready,
    enqueue,
    async close() {
      closing = true;
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
      await watcher.close();
      await chain;
    },
  };
}
