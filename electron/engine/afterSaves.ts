/**
 * Background work that waits for a row of saves to end: it runs `delayMs` after the last save, unless
 * another save (or a close) comes first. The searches' read of the new rows and the commit of the
 * history events kept back by re-saves are both of this kind.
 */
export class AfterSaves {
  private timer: NodeJS.Timeout | null = null;

  /** `idle`: no save is queued or running and the engine is open. */
  constructor(
    private readonly delayMs: number,
    private readonly idle: () => boolean,
    private readonly task: () => void,
  ) {}

  /** After a save: runs the task once the engine has stayed idle for the delay (when `due`). */
  schedule(due: boolean): void {
    this.hold();
    if (!due || !this.idle()) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.idle()) this.task();
    }, this.delayMs);
    this.timer.unref();
  }

  /** A save is coming, or the task runs now: the timer stops. */
  hold(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
