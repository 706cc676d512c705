/**
 * Ctrl-C (SIGINT) and SIGTERM as a request to stop, for a command that runs until it is stopped
 * (`sync --watch`): the command's saves end at a safe point and it closes what it holds, instead of
 * being killed half-way.
 *
 * The listeners stay registered until `dispose()`, every signal after the first included. The write
 * lock's library (proper-lockfile) listens through signal-exit@3, which re-raises a signal that no
 * other listener is there to handle, and so kills the process: a `process.once` listener is gone
 * once it has run (and, registered before signal-exit's, is gone by the time signal-exit looks).
 */
export interface StopRequests {
  /** Aborted at the first SIGINT or SIGTERM. */
  signal: AbortSignal;
  /** Removes the listeners (once everything is closed). */
  dispose(): void;
}

export function stopRequests(): StopRequests {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** Resolves when `signal` is aborted (at once if it already is). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
