/**
 * One writer at a time on a shared store, without a lock file: a lease row in the store's own
 * `writer_lease` table, taken and renewed by conditional updates that LanceDB commits atomically
 * (on `s3+ddb://` through the DynamoDB commit table; on S3, R2, MinIO, GCS and Azure through their
 * conditional writes). Two machines updating the row at once conflict in LanceDB's commit; the one
 * that commits second re-checks the condition and finds the lease taken. A holder renews it every
 * few seconds; a machine killed mid-save stops renewing and its lease runs out after `LEASE_TTL_MS`,
 * after which the next writer takes over (and finds whatever the killed save committed whole, or not
 * at all). Saves take turns; each holds the lease for the seconds of its own commits. A commit of
 * another machine in progress can fail a read or an update for a moment (transient.ts): such work is
 * tried again, and an update whose answer was lost is recognised by the token it wrote.
 */
import type * as lancedb from '@lancedb/lancedb';
import { randomUUID } from 'node:crypto';
import { EngineError } from '../errors.js';
import { sqlString } from './storeRows.js';
import { isTransientStoreError, pause, retryTransient } from './transient.js';

import { LEASE_TABLE } from '../files/layout.js';
export { LEASE_TABLE };
const LEASE_ID = 'writer';
/** How long a lease lasts without renewal: longer than any pause of a live writer, short enough to wait out. */
export const LEASE_TTL_MS = 30_000;
const RENEW_MS = 5_000;
/** How often, and how far apart, the lease table another machine is creating is opened before giving up (about 5 s). */
const OPEN_ATTEMPTS = 25;
const OPEN_RETRY_MS = 200;

export interface LeaseHolder {
  /** The machine's name (SESSION_MEMORY_MACHINE, else its host name). */
  machine: string;
  pid: number;
}

export interface HeldLease {
  release(): Promise<void>;
}

export class StoreLease {
  private table: lancedb.Table | null = null;

  constructor(
    private readonly db: lancedb.Connection,
    private readonly where: string,
    private readonly holder: LeaseHolder,
  ) {}

  /**
   * Takes the lease, waiting up to `waitMs` for another writer's to end. `onLost` is told when a
   * renewal finds the lease taken over (this process was paused past its end): the caller stops writing.
   */
  async acquire(waitMs: number, onLost: (error: EngineError) => void): Promise<HeldLease> {
    const table = await this.open();
    const token = randomUUID();
    const deadline = Date.now() + waitMs;
    for (let attempt = 0; ; attempt++) {
      try {
        if (await this.take(table, token)) return this.hold(table, token, onLost);
      } catch (error) {
        if (!isTransientStoreError(error)) throw error;
        // The update may have been committed before its answer failed: then the lease carries this token.
        if ((await this.current())?.token === token) return this.hold(table, token, onLost);
      }
      if (Date.now() >= deadline) {
        const current = await this.current();
        const who = current ? ` (${current.holder}, for up to ${Math.max(0, Math.round((current.expires_at - Date.now()) / 1000))} s more)` : '';
        throw new EngineError('locked', `another machine is saving to ${this.where}${who}; try again when it has finished`);
      }
      // Jittered back-off: writers of several machines do not retry in step.
      await pause(Math.min(1_000, 50 * 2 ** Math.min(attempt, 4)) * (0.5 + Math.random()));
    }
  }

  /** One try: takes the lease if it has run out or its holder on this machine is dead. */
  private async take(table: lancedb.Table, token: string): Promise<boolean> {
    const now = Date.now();
    const taken = await table.update({
      where: `id = ${sqlString(LEASE_ID)} AND expires_at < ${now}`,
      values: { holder: this.describe(), token, expires_at: now + LEASE_TTL_MS },
    });
    return taken.rowsUpdated === 1 || (await this.takeOverFromDeadProcess(table, token));
  }

  /** The lease as it stands (who holds it and until when), or null when nobody does. */
  async current(): Promise<{ holder: string; token: string; expires_at: number } | null> {
    const table = await this.open();
    const rows = await retryTransient(async () => {
      await table.checkoutLatest();
      return (await table.query().where(`id = ${sqlString(LEASE_ID)}`).toArray()) as Array<{ holder: string; token: string; expires_at: number }>;
    });
    const row = rows[0];
    return row && row.expires_at > Date.now() ? { holder: row.holder, token: row.token, expires_at: Number(row.expires_at) } : null;
  }

  /**
   * A lease held by a process of this machine that is no longer running (killed mid-save) is taken
   * over at once rather than after it runs out, as the local lock does; the update is conditional on
   * the dead holder's token, so of two processes doing this only one succeeds.
   */
  private async takeOverFromDeadProcess(table: lancedb.Table, token: string): Promise<boolean> {
    const current = await this.current();
    const prefix = `${this.holder.machine} (process `;
    if (!current?.holder.startsWith(prefix)) return false;
    const pid = Number(current.holder.slice(prefix.length, -1));
    if (!Number.isInteger(pid) || pid === this.holder.pid || isRunning(pid)) return false;
    const now = Date.now();
    const taken = await table.update({
      where: `id = ${sqlString(LEASE_ID)} AND token = ${sqlString(current.token)}`,
      values: { holder: this.describe(), token, expires_at: now + LEASE_TTL_MS },
    });
    return taken.rowsUpdated === 1;
  }

  private hold(table: lancedb.Table, token: string, onLost: (error: EngineError) => void): HeldLease {
    let lost = false;
    let renewing: Promise<void> | null = null;
    let lastRenewed = Date.now();
    const renew = async (): Promise<void> => {
      const now = Date.now();
      try {
        const renewed = await table.update({ where: `id = ${sqlString(LEASE_ID)} AND token = ${sqlString(token)}`, values: { expires_at: now + LEASE_TTL_MS } });
        if (renewed.rowsUpdated === 1) {
          lastRenewed = now;
          return;
        }
        lost = true;
      } catch {
        // A failed round trip is retried at the next tick; past the lease's end it counts as lost.
        lost = Date.now() - lastRenewed >= LEASE_TTL_MS;
      }
      if (lost) {
        clearInterval(timer);
        onLost(new EngineError('locked', `the write lease of ${this.where} ran out before it could be renewed: another machine may be saving, so this one stopped writing; what was written is whole, and saving again finishes it`));
      }
    };
    const timer = setInterval(() => {
      renewing ??= renew().finally(() => (renewing = null));
    }, RENEW_MS);
    timer.unref();
    return {
      release: async () => {
        clearInterval(timer);
        await renewing;
        if (lost) return;
        try {
          // Conditional on the token: tried again after a commit that went through, it changes nothing.
          await retryTransient(() => table.update({ where: `id = ${sqlString(LEASE_ID)} AND token = ${sqlString(token)}`, values: { holder: '', token: '', expires_at: 0 } }));
        } catch (error) {
          // The work done under the lease is committed: a lease that could not be given back lapses
          // after LEASE_TTL_MS instead of failing that work.
          if (!isTransientStoreError(error)) throw error;
        }
      },
    };
  }

  private describe(): string {
    return `${this.holder.machine} (process ${this.holder.pid})`;
  }

  private async open(): Promise<lancedb.Table> {
    if (this.table) return this.table;
    try {
      this.table = await this.db.openTable(LEASE_TABLE);
    } catch (opening) {
      // A table whose version cannot be read yet exists: creating it again would overwrite the lease it holds.
      if (isTransientStoreError(opening)) this.table = await this.openCreatedElsewhere(null);
      else {
        try {
          // Of two machines creating it at once, one fails and opens the other's, or LanceDB commits its
          // creation as an overwrite (the same free lease row): a lease taken in between is erased, and
          // its holder finds out at its next renewal, as it would after a pause past the lease's end.
          this.table = await this.db.createTable(LEASE_TABLE, [{ id: LEASE_ID, holder: '', token: '', expires_at: 0 }]);
        } catch (creating) {
          this.table = await this.openCreatedElsewhere(creating);
        }
      }
    }
    return this.table;
  }

  /**
   * The table another machine has just created or committed to: its newest version can be listed a
   * moment before its manifest can be read (on `s3+ddb://` the commit table names it before the
   * object is in place), so the opening is tried again for a few seconds before the error is given.
   */
  private async openCreatedElsewhere(creating: unknown): Promise<lancedb.Table> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.openTable(LEASE_TABLE);
      } catch (opening) {
        if (attempt >= OPEN_ATTEMPTS) {
          const reason = (error: unknown) => (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').slice(0, 200);
          const failed = creating === null ? `could not be opened (${reason(opening)})` : `could neither be created (${reason(creating)}) nor opened (${reason(opening)})`;
          throw new EngineError('internal', `${this.where}: the table that says which machine writes (${LEASE_TABLE}) ${failed}; try again`, { cause: opening });
        }
        await pause(OPEN_RETRY_MS);
      }
    }
  }

  close(): void {
    this.table?.close();
    this.table = null;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
