/**
 * Reading ahead for the read cache's endpoint (objectCacheEndpoint.ts): after a search first reads
 * part of an object that never changes, the rest of it is read in the background, in ranges of
 * READ_AHEAD_BYTES (one request each), one at a time, only while no search waits for the store and the
 * process is not saving (ReadAheadGate), until the cache holds READ_AHEAD_SHARE of its bound. A later
 * search, whatever it asks, then finds on disk the rows and index parts an earlier one did not read.
 */
import type http from 'node:http';
import type { CachedObjectMeta, ObjectCache } from './objectCache.js';

/** The most a read ahead asks the store for at once (one request). */
export const READ_AHEAD_BYTES = 4 * 1024 * 1024;

/** Reading ahead stops once the cache holds this share of its bound (the rest is left to what searches read themselves). */
export const READ_AHEAD_SHARE = 0.5;

/**
 * Holds back reading ahead while the process saves: a save's own requests to the store go first.
 * Shared by the store's read cache and its endpoint (which may start during the save).
 */
export class ReadAheadGate {
  private held = 0;
  private waiters: Array<() => void> = [];

  get isHeld(): boolean {
    return this.held > 0;
  }

  /** Holds reading ahead back until the function returned is called (once). */
  hold(): () => void {
    this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.held === 0) this.wake();
    };
  }

  /** Resolves at the next release (or wake). */
  released(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  wake(): void {
    this.waiters.splice(0).forEach((resolve) => resolve());
  }
}

/** Reads blocks `first`..`last` of an object from the store into the cache; null when the store's answer was not its bytes. */
export type FetchBlocks = (objectPath: string, rawPath: string, meta: CachedObjectMeta, first: number, last: number) => Promise<CachedObjectMeta | null>;

export class ReadAhead {
  /** The requests under way (the endpoint's `forward` keeps them here), ended by a stop. */
  readonly requests = new Set<http.ClientRequest>();
  /** Objects to read ahead, in the order of their first read; the objects queued since the last stop. */
  private readonly queue: Array<{ objectPath: string; rawPath: string }> = [];
  private readonly seen = new Set<string>();
  private run: Promise<void> | null = null;
  /** Raised by a stop: a read ahead under way gives up the object it reads. */
  private generation = 0;
  /** Reads a search waits for that went to the store, under way now; reading ahead waits until there are none. */
  private foreground = 0;
  private foregroundWaiters: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly cache: ObjectCache,
    private readonly gate: ReadAheadGate,
    private readonly fetch: FetchBlocks,
  ) {}

  /** A search's read went to the store: reading ahead waits until it is back. */
  foregroundStarted(): void {
    this.foreground++;
  }

  foregroundEnded(): void {
    if (--this.foreground === 0) this.foregroundWaiters.splice(0).forEach((wake) => wake());
  }

  /** Resolves when nothing is left to read ahead. */
  async idle(): Promise<void> {
    while (this.run) await this.run;
  }

  /**
   * Stops reading ahead: drops the objects queued, ends the request under way, and resolves when the
   * read ahead has given up (before a prune, so that no block of a removed object is written after it).
   * A later read of an object queues it again.
   */
  async stop(): Promise<void> {
    this.generation++;
    this.queue.length = 0;
    this.seen.clear();
    for (const request of this.requests) request.destroy();
    this.requests.clear();
    // A read ahead waiting for its turn sees the stop.
    this.foregroundWaiters.splice(0).forEach((wake) => wake());
    this.gate.wake();
    await this.idle();
  }

  /** Stops for good (the endpoint closes). */
  close(): void {
    this.closed = true;
    void this.stop();
  }

  /** Queues the rest of an object a search read (once until the next stop). */
  schedule(objectPath: string, rawPath: string): void {
    if (this.closed || this.seen.has(objectPath)) return;
    this.seen.add(objectPath);
    this.queue.push({ objectPath, rawPath });
    this.kick();
  }

  private kick(): void {
    if (this.run || this.closed || this.queue.length === 0) return;
    this.run = this.drain()
      .catch(() => {
        // A read ahead that failed (the store unreachable, the request ended by a stop) leaves its object to the searches' own reads.
      })
      .then(() => {
        this.run = null;
        this.kick();
      });
  }

  /** Reads the blocks the cache lacks of each queued object, in ranges of READ_AHEAD_BYTES at most, one at a time. */
  private async drain(): Promise<void> {
    const window = Math.max(1, Math.floor(READ_AHEAD_BYTES / this.cache.blockBytes));
    const limit = this.cache.maxBytes * READ_AHEAD_SHARE;
    for (let next = this.queue.shift(); next && !this.closed; next = this.queue.shift()) {
      const generation = this.generation;
      const meta = await this.cache.meta(next.objectPath);
      if (!meta || meta.size > limit) continue;
      const present = await this.cache.presentBlocks(meta);
      const count = this.cache.blockCount(meta);
      for (let i = 0; i < count; i++) {
        if (present.has(i)) continue;
        let j = i;
        while (j + 1 < count && !present.has(j + 1) && j + 1 - i < window) j++;
        if (!(await this.turn(generation))) return;
        if ((await this.cache.countedBytes()) + (j - i + 1) * this.cache.blockBytes > limit) {
          // Full enough: what is left is read by the searches that need it.
          this.queue.length = 0;
          return;
        }
        if (!(await this.fetch(next.objectPath, next.rawPath, meta, i, j))) break;
        i = j;
      }
    }
  }

  /** Waits until no search waits for the store and no save holds reading back; false when stopped meanwhile. */
  private async turn(generation: number): Promise<boolean> {
    for (;;) {
      if (this.closed || generation !== this.generation) return false;
      if (this.foreground > 0) await new Promise<void>((resolve) => this.foregroundWaiters.push(resolve));
      else if (this.gate.isHeld) await this.gate.released();
      else return true;
    }
  }
}
