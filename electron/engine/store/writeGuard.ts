/**
 * What a writer holds while it writes. For a store in a local folder: the folder's write lock
 * (files/writeLock.ts), as before: it notices a dead holder at once, and a save costs no commit for
 * it. For a shared store: this machine's lock on its local folder (its caches are written under it)
 * and then the store's write lease (storeLease.ts), so that writers of every machine take turns.
 * Before the first write to an `s3://` store, the store is probed for conditional writes
 * (storeProbe.ts); one that fails is refused unless the person said only one machine writes to it.
 */
import os from 'node:os';
import { EngineError } from '../errors.js';
import { resolveStoreLocation, storeKindOf } from '../files/location.js';
import { machineId } from '../files/machineId.js';
import { acquireWriteLock, bindToWriteLock } from '../files/writeLock.js';
import { connectStore, isRemoteStore } from './connect.js';
import { testSwitch } from '../files/testSwitches.js';
import { StoreLease, type HeldLease } from './storeLease.js';

/**
 * How long a shared store's write lease is kept after a write for the next one of this process:
 * saves in a row (an import, a re-save, `watch` catching up) take it and give it back once instead
 * of two commits each. Another writer waits at most this long more for it.
 */
export const LEASE_KEEP_MS = 1_500;

export interface WriteGuardOptions {
  dataDir: string;
  storeUri: string;
  waitMs: number;
  /** The person says only this machine writes to the store: an `s3://` store failing the probe is used all the same. */
  singleWriter?: boolean;
  /**
   * Work owed under a shared store's lease, done before a kept lease is given back (the history
   * events of saves that wrote nothing, committed together). Its failure leaves it owed.
   */
  beforeGiveBack?: () => Promise<void>;
}

/** This machine's name in a lease and in the save history. */
export function machineName(env: NodeJS.ProcessEnv = process.env): string {
  return env.SESSION_MEMORY_MACHINE?.trim() || os.hostname();
}

export class WriteGuard {
  private lease: StoreLease | null = null;
  private probed: Promise<void> | null = null;
  /** The lease kept after the last write, until `LEASE_KEEP_MS` pass without another. */
  private kept: { held: HeldLease; timer: NodeJS.Timeout } | null = null;
  /** A kept lease being given back. */
  private giving: Promise<void> = Promise.resolve();

  constructor(private readonly options: WriteGuardOptions) {}

  get shared(): boolean {
    return isRemoteStore(this.options.storeUri);
  }

  /** Takes what a writer holds; resolves to its release. */
  async acquire(): Promise<() => Promise<void>> {
    const { dataDir, waitMs } = this.options;
    const releaseLocal = await acquireWriteLock(dataDir, { waitMs });
    if (!this.shared) return releaseLocal;
    try {
      await this.checkSafe();
      const held = (await this.takeKept()) ?? (await (await this.storeLease()).acquire(waitMs));
      // The lease's end stops writes as the lock's loss would; the local lock stays this process's, given back at release.
      const unbind = bindToWriteLock(dataDir, () => held.problem());
      return async () => {
        unbind();
        try {
          await this.keep(held);
        } finally {
          await releaseLocal();
        }
      };
    } catch (error) {
      await releaseLocal();
      throw error;
    }
  }

  /** Refuses a store this guard could not write safely (unsafe_store) without writing to it: the probe of an `s3://` store's server. */
  check(): Promise<void> {
    return this.shared ? this.checkSafe() : Promise.resolve();
  }

  /** Who holds the store's write lease now (shared stores), or null. */
  async holder(): Promise<string | null> {
    if (!this.shared) return null;
    return (await (await this.storeLease()).current())?.holder ?? null;
  }

  /** Gives back a kept lease, then closes the lease's table. */
  async close(): Promise<void> {
    await this.giveBack();
    this.lease?.close();
    this.lease = null;
  }

  /** The lease kept from the last write, when it can still be written under. */
  private async takeKept(): Promise<HeldLease | null> {
    const kept = this.kept;
    if (kept && kept.held.problem() === null) {
      clearTimeout(kept.timer);
      this.kept = null;
      return kept.held;
    }
    await this.giveBack();
    return null;
  }

  /** Keeps the lease for the next write of this process; gives it back after `LEASE_KEEP_MS` without one. */
  private async keep(held: HeldLease): Promise<void> {
    await this.giveBack();
    const keepMs = Number(testSwitch('SESSION_MEMORY_TEST_LEASE_KEEP_MS') ?? LEASE_KEEP_MS);
    const timer = setTimeout(() => void this.giveBack().catch(() => {}), Math.max(0, keepMs));
    this.kept = { held, timer };
    // A lease that cannot be written under, or is not to be kept, is given back at once.
    if (held.problem() !== null || keepMs <= 0) await this.giveBack();
  }

  /** Gives back the kept lease (and waits for one being given back). */
  private async giveBack(): Promise<void> {
    const kept = this.kept;
    if (kept) {
      this.kept = null;
      clearTimeout(kept.timer);
      this.giving = this.giving.then(async () => {
        if (kept.held.problem() === null) await this.options.beforeGiveBack?.().catch(() => {});
        await kept.held.release();
      });
    }
    const giving = this.giving;
    // A failed release is not this caller's failure: the lease then ends after LEASE_TTL_MS.
    this.giving = giving.catch(() => {});
    await giving;
  }

  private checkSafe(): Promise<void> {
    this.probed ??= (async () => {
      const { storeUri, singleWriter } = this.options;
      if (storeKindOf(storeUri) !== 's3') return;
      const location = resolveStoreLocation(storeUri, this.options.dataDir);
      // Loaded for an s3:// store only: the S3 client is a third of a second of CPU at every start.
      const { probeConcurrentWrites, unsafeStoreMessage } = await import('./storeProbe.js');
      const result = await probeConcurrentWrites(location);
      if (!result.safe && !singleWriter) throw new EngineError('unsafe_store', unsafeStoreMessage(location, result.why));
    })();
    this.probed.catch(() => (this.probed = null));
    return this.probed;
  }

  private async storeLease(): Promise<StoreLease> {
    this.lease ??= new StoreLease(await connectStore(this.options.storeUri, { readConsistencyInterval: 0 }), this.options.storeUri, { machine: machineName(), machineId: await machineId(this.options.dataDir), pid: process.pid });
    return this.lease;
  }
}
