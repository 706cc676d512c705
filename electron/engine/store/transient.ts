/**
 * Failures on a shared store that a commit of another machine, made at the same moment, can cause,
 * and that are gone when the work is tried again:
 * - a version named by the commit table whose manifest object is not readable yet (it is copied
 *   into place after the commit; an S3 server whose copy is not atomic shows it missing or empty);
 * - an update based on a version that a concurrent commit made incompatible (two machines creating
 *   the same table at once: LanceDB commits the second creation as an overwrite on top of the first);
 * - a commit that lost to other writers' commits for LanceDB's own retry time (many machines
 *   taking turns on one small table);
 * - a server error (5xx: "internal error, please try again", "slow down") that outlasted the
 *   object store client's own three quick retries.
 * Everything else is given at once: a missing table, a damaged file, a refused permission.
 */
const TRANSIENT = [
  /_versions\/\S+\.manifest not found/i,
  /Wanted range starting at \d+, but object was only \d+ bytes long/i,
  /Incompatible transaction/i,
  /Retryable commit conflict/i,
  /Too many concurrent writers/i,
  /non-2xx status code: 5\d\d/i,
];

export function isTransientStoreError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return TRANSIENT.some((pattern) => pattern.test(message));
}

/** How often work that fails transiently is tried in all, and the longest pause between tries. */
const TRANSIENT_ATTEMPTS = 6;
const MAX_PAUSE_MS = 800;

/**
 * Runs `work`, trying it again after a short, jittered pause while it fails transiently (at most
 * `TRANSIENT_ATTEMPTS` times, about 2 s in all); any other failure, or the last one, is thrown.
 * Only for work that may safely run twice: reads, and writes whose condition is checked again.
 */
export async function retryTransient<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= TRANSIENT_ATTEMPTS || !isTransientStoreError(error)) throw error;
      await pause(Math.min(MAX_PAUSE_MS, 50 * 2 ** attempt) * (0.5 + Math.random()));
    }
  }
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
