/**
 * The history events a folder's saves keep back (saves that wrote nothing: history.ts) are committed
 * HISTORY_FLUSH_DELAY_MS after the last save, queued like a save and under the write lock, or when the
 * engine closes; a save that comes first commits them with its own event. A shared store commits them
 * with its lease (WriteGuard's `beforeGiveBack`), so nothing is scheduled for it here.
 */
import { AfterSaves } from '../afterSaves.js';
import type { Logger } from '../files/logger.js';
import { HISTORY_FLUSH_DELAY_MS, type SaveHistory } from './history.js';

export interface HistoryFlushOptions {
  history: SaveHistory;
  logger: Logger;
  /** Takes the write lock; resolves to its release. */
  lock: () => Promise<() => Promise<void>>;
  /** Queues a task after the engine's saves (one at a time). */
  enqueue: (task: () => Promise<void>) => Promise<void>;
  /** The store is shared: its lease commits the kept events. */
  shared: () => boolean;
  /** A save is queued or running. */
  saving: () => boolean;
  closed: () => boolean;
}

export class HistoryFlush {
  private readonly later: AfterSaves;

  constructor(private readonly o: HistoryFlushOptions) {
    this.later = new AfterSaves(HISTORY_FLUSH_DELAY_MS, () => !o.saving() && !o.closed(), () => void o.enqueue(() => this.flush()));
  }

  /** After a save: commits the kept events once no save has followed for HISTORY_FLUSH_DELAY_MS. */
  schedule(): void {
    this.later.schedule(!this.o.shared() && this.o.history.deferred > 0);
  }

  /** Commits the kept events now (write lock taken); a failure is logged and leaves them kept. */
  async flush(): Promise<void> {
    this.later.hold();
    if (this.o.shared() || this.o.history.deferred === 0) return;
    try {
      const release = await this.o.lock();
      try {
        await this.o.history.flush();
      } finally {
        await release();
      }
    } catch (error) {
      this.o.logger.warn(`the save history's last ${this.o.history.deferred} event(s) could not be written: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
