/**
 * At most `count` jobs at a time, in the order they are asked for: what a test file's trials share
 * when much of each one's time is a process it waits on (a CLI run, the servers it talks to), so
 * that two of them overlap instead of leaving a core idle, and no more than two load a two-core
 * machine. `each` runs a job per item through the lanes and, once every one has ended, fails with
 * the first failure (none is left running after its test).
 */
export interface Lanes {
  <T>(job: () => Promise<T>): Promise<T>;
  each<T>(items: readonly T[], job: (item: T) => Promise<void>): Promise<void>;
}

export function lanes(count: number): Lanes {
  let running = 0;
  const waiting: Array<() => void> = [];
  const run = async <T>(job: () => Promise<T>): Promise<T> => {
    if (running >= count) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await job();
    } finally {
      // The lane goes to the next job waiting, if any; else it is free.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
  const each = async <T>(items: readonly T[], job: (item: T) => Promise<void>): Promise<void> => {
    const ended = await Promise.allSettled(items.map((item) => run(() => job(item))));
    const failed = ended.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
  };
  return Object.assign(run, { each });
}
