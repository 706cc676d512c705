/**
 * One writer at a time on a shared store, without a lock file: a lease row in the store's own
 * `writer_lease` table, taken and renewed by conditional updates that LanceDB commits atomically
 * (on `s3+ddb://` through the DynamoDB commit table; on S3, R2, MinIO, GCS and Azure through their
 * conditional writes). Two machines updating the row at once conflict in LanceDB's commit; the one
 * that commits second re-checks the condition and finds the lease taken. A holder renews it every
 * few seconds; a machine killed mid-save stops renewing, and the next writer takes over (and finds
 * whatever the killed save committed whole, or not at all). Saves take turns; each holds the lease
 * for the seconds of its own commits. A commit of another machine in progress can fail a read or an
 * update for a moment (transient.ts): such work is tried again, and an update whose answer was lost
 * is recognised by the token it wrote.
 *
 * No two machines' clocks are compared. A taker takes a held lease over only after it has seen the
 * same holder token with the same renewal stamp for a full `LEASE_TTL_MS` on its own monotonic clock
 * (performance.now), and only by an update conditional on that token and stamp, so a renewal that
 * lands first defeats it. The holder counts from the moment it sent its last renewal that was
 * confirmed, and writes nothing once `LEASE_TTL_MS - LEASE_MARGIN_MS` have passed on its monotonic
 * clock or its wall clock, whichever says more (a monotonic clock stands still while a laptop
 * sleeps, the wall clock does not): a taker, whose wait began after that renewal was committed,
 * cannot take over before the margin is over, and the margin is the time a commit begun at the last
 * moment has to land. A holder killed on this machine is recognised by the machine id in its token
 * (a random id kept in the machine's local folder, machineId.ts), never by the host name, which two
 * computers can share; only then is its lease taken over at once.
 *
 * Why not a fence the store enforces: LanceDB 0.31 commits each table on its own (no commit of the
 * chunks can be made conditional on the version of the lease table, and a commit carries no token
 * the store checks), and concurrent merge-inserts of the same new keys both commit
 * (lancedb/lancedb#2463, #3377; lance-format/lance#4585, #8949). The check is therefore the
 * holder's own, made before each commit (`HeldLease.problem`, read by `assertWriteLock`); a pause
 * that falls inside one commit's native call, after the check, is the case it cannot cover.
 */
import type * as lancedb from '@lancedb/lancedb';
import { randomUUID } from 'node:crypto';
import { EngineError } from '../errors.js';
import { isProcessRunning } from '../files/processes.js';
import { testSwitch } from '../files/testSwitches.js';
import { sqlString } from './storeRows.js';
import { isTransientStoreError, pause, retryTransient } from './transient.js';

import { LEASE_TABLE } from '../files/layout.js';
export { LEASE_TABLE };
const LEASE_ID = 'writer';
/** How long a lease is seen unrenewed before another machine takes it: longer than any pause of a live writer, short enough to wait out. */
export const LEASE_TTL_MS = 30_000;
/** The holder stops writing this long before a taker could take over: the time its last commit has to land. */
export const LEASE_MARGIN_MS = 10_000;
const RENEW_MS = 5_000;

/**
 * The lease's times: `LEASE_TTL_MS`, `LEASE_MARGIN_MS` and the renewal interval. A test run may set
 * the lease's length (SESSION_MEMORY_TEST_LEASE_TTL_MS, on every machine of the test): shorter, so
 * that a test of a writer paused past its lease does not wait out 30 s; longer than a save waits for
 * a lease (a minute), so that a test of a lease taken over at once cannot pass by waiting it out.
 * The margin and the renewal interval keep their proportions to it.
 */
function leaseTimes(): { ttl: number; margin: number; renew: number } {
  const asked = Number(testSwitch('SESSION_MEMORY_TEST_LEASE_TTL_MS') ?? 0);
  if (!(asked > 0)) return { ttl: LEASE_TTL_MS, margin: LEASE_MARGIN_MS, renew: RENEW_MS };
  return { ttl: asked, margin: (asked * LEASE_MARGIN_MS) / LEASE_TTL_MS, renew: (asked * RENEW_MS) / LEASE_TTL_MS };
}
/** Versions of the lease table between two compactions of it: every save makes two, every renewal one. */
const LEASE_COMPACT_EVERY = 100;
/** `LEASE_COMPACT_EVERY`, or fewer in a test run (SESSION_MEMORY_TEST_LEASE_COMPACT_EVERY), so a test sees several compactions in few saves. */
function leaseCompactEvery(): number {
  const asked = Number(testSwitch('SESSION_MEMORY_TEST_LEASE_COMPACT_EVERY') ?? 0);
  return asked >= 1 ? Math.floor(asked) : LEASE_COMPACT_EVERY;
}
/**
 * Versions of the lease table younger than this are kept (a reader needs one for a moment); older
 * ones, and their files, are removed when it is compacted. Test runs may shorten it.
 */
const LEASE_VERSION_RETENTION_MS = 10 * 60_000;
/** How often, and how far apart, the lease table another machine is creating is opened before giving up (about 5 s). */
const OPEN_ATTEMPTS = 25;
const OPEN_RETRY_MS = 200;

export interface LeaseHolder {
  /** The machine's name (SESSION_MEMORY_MACHINE, else its host name): shown to people, never trusted. */
  machine: string;
  /** The machine's random id (machineId.ts): tells this machine's processes from another's of the same name. */
  machineId: string;
  pid: number;
}

export interface HeldLease {
  /** Why writing must stop now (the lease was taken over, or is too long unrenewed to commit under), or null. */
  problem(): EngineError | null;
  release(): Promise<void>;
}

interface LeaseRow {
  holder: string;
  token: string;
  expires_at: number;
}

/** A moment on both clocks: the monotonic one for durations, the wall one for what a sleep stops the other from counting. */
interface Moment {
  mono: number;
  wall: number;
}

function now(): Moment {
  // Test runs may set this machine's wall clock off (SESSION_MEMORY_TEST_CLOCK_OFFSET_MS): no decision may depend on it.
  return { mono: performance.now(), wall: Date.now() + Number(testSwitch('SESSION_MEMORY_TEST_CLOCK_OFFSET_MS') ?? 0) };
}

/** Time since `since`, as the longer of the two clocks says. */
function elapsedSince(since: Moment): number {
  const at = now();
  return Math.max(at.mono - since.mono, at.wall - since.wall);
}

/** The lease as this taker first saw it, on its own monotonic clock. */
interface Sighting {
  token: string;
  stamp: number;
  since: number;
}

export class StoreLease {
  private table: lancedb.Table | null = null;

  constructor(
    private readonly db: lancedb.Connection,
    private readonly where: string,
    private readonly holder: LeaseHolder,
  ) {}

  /** Takes the lease, waiting up to `waitMs` for another writer's to end (or to go unrenewed for a full `LEASE_TTL_MS`). */
  async acquire(waitMs: number): Promise<HeldLease> {
    const table = await this.open();
    const token = `${this.holder.machineId}/${randomUUID()}`;
    const started = performance.now();
    let seen: Sighting | null = null;
    for (let attempt = 0; ; attempt++) {
      // Most saves find the lease free: the first try takes it without reading it first (one round trip less).
      const blind = attempt === 0;
      let sent: Moment | null = null;
      try {
        let condition = `token = ''`;
        if (!blind) {
          const row = await this.read();
          const at = performance.now();
          if (!seen || seen.token !== row.token || seen.stamp !== row.expires_at) seen = { token: row.token, stamp: row.expires_at, since: at };
          condition = this.takeable(row, seen, at) ?? '';
        }
        if (condition) {
          sent = now();
          const taken = await table.update({ where: `id = ${sqlString(LEASE_ID)} AND ${condition}`, values: { holder: this.describe(), token, expires_at: sent.wall + leaseTimes().ttl } });
          if (taken.rowsUpdated === 1) return this.hold(table, token, sent, sent.wall + leaseTimes().ttl, taken.version);
        }
      } catch (error) {
        if (!isTransientStoreError(error)) throw error;
        // The update may have been committed before its answer failed: then the lease carries this token.
        if (sent && (await this.read()).token === token) return this.hold(table, token, sent, sent.wall + leaseTimes().ttl, await table.version());
      }
      if (blind) continue;
      if (performance.now() - started >= waitMs) {
        const who = seen?.token ? ` (${(await this.read()).holder || 'another process'}, for up to ${Math.max(1, Math.round((leaseTimes().ttl - (performance.now() - seen.since)) / 1000))} s more unless it finishes first)` : '';
        throw new EngineError('locked', `another machine is saving to ${this.where}${who}; try again when it has finished`);
      }
      // Jittered back-off: writers of several machines do not retry in step.
      await pause(Math.min(1_000, 50 * 2 ** Math.min(attempt - 1, 4)) * (0.5 + Math.random()));
    }
  }

  /**
   * The condition under which this taker may take the lease now, or null: it is free; or its holder
   * is a process of this machine that is no longer running (killed mid-save, taken over at once as
   * the local lock does); or it went unrenewed for a full `LEASE_TTL_MS` of this taker's watch. Each
   * is conditional on what was seen, so of two takers only one succeeds, and a renewal defeats both.
   */
  private takeable(row: LeaseRow, seen: Sighting, at: number): string | null {
    if (row.token === '') return `token = ''`;
    const sameToken = `token = ${sqlString(row.token)}`;
    if (this.heldByDeadProcessHere(row)) return sameToken;
    if (at - seen.since >= leaseTimes().ttl) return `${sameToken} AND expires_at = ${seen.stamp}`;
    return null;
  }

  private heldByDeadProcessHere(row: LeaseRow): boolean {
    if (!row.token.startsWith(`${this.holder.machineId}/`)) return false;
    const pid = Number(/\(process (\d+)\)$/.exec(row.holder)?.[1]);
    return Number.isInteger(pid) && pid !== this.holder.pid && !isProcessRunning(pid);
  }

  /** The lease row as it stands now (free: an empty token). */
  private async read(): Promise<LeaseRow> {
    const table = await this.open();
    const rows = await retryTransient(async () => {
      await table.checkoutLatest();
      return (await table.query().where(`id = ${sqlString(LEASE_ID)}`).toArray()) as LeaseRow[];
    });
    const row = rows[0];
    return row ? { holder: row.holder, token: row.token, expires_at: Number(row.expires_at) } : { holder: '', token: '', expires_at: 0 };
  }

  /**
   * Who holds the lease, or null when nobody does. For display only: a lease whose holder's own
   * clock says it ran out long ago is shown as free (a machine that died with it); whether it may be
   * taken is decided by watching it, never by this.
   */
  async current(): Promise<{ holder: string; token: string } | null> {
    const row = await this.read();
    if (row.token === '' || row.expires_at + leaseTimes().ttl < now().wall) return null;
    return { holder: row.holder, token: row.token };
  }

  private hold(table: lancedb.Table, token: string, taken: Moment, stamp: number, firstVersion: number): HeldLease {
    let confirmed = taken;
    let lastVersion = firstVersion;
    let written = stamp;
    let lost: EngineError | null = null;
    let renewing: Promise<void> | null = null;
    const renew = async (): Promise<void> => {
      const sent = now();
      // The stamp changes at every renewal, whatever this machine's clock does: a taker watching it sees the lease is alive.
      const next = Math.max(written + 1, sent.wall + leaseTimes().ttl);
      try {
        const renewed = await table.update({ where: `id = ${sqlString(LEASE_ID)} AND token = ${sqlString(token)}`, values: { expires_at: next } });
        if (renewed.rowsUpdated === 1) {
          confirmed = sent;
          written = next;
          lastVersion = renewed.version;
          return;
        }
        lost = new EngineError('locked', `the write lease of ${this.where} was taken over by another machine (this one was paused past its end): this one stopped writing; what was written is whole, and saving again finishes it`);
        clearInterval(timer);
      } catch {
        // A failed round trip is tried again at the next tick; meanwhile `problem` stops writes once the lease is too old.
        written = Math.max(written, next);
      }
    };
    const timer = setInterval(() => {
      renewing ??= renew().finally(() => (renewing = null));
    }, leaseTimes().renew);
    timer.unref();
    const problem = (): EngineError | null => {
      if (lost) return lost;
      const age = elapsedSince(confirmed);
      const { ttl, margin } = leaseTimes();
      if (age < ttl - margin) return null;
      return new EngineError('locked', `the write lease of ${this.where} was last renewed ${Math.round(age / 1000)} s ago (this machine was paused or cut off): another machine may be saving now, so this one stopped writing; what was written is whole, and saving again finishes it`);
    };
    return {
      problem,
      release: async () => {
        clearInterval(timer);
        await renewing;
        if (lost) return;
        // Versions first..last, and the release's own, were this hold's: the one that reaches a multiple compacts.
        const every = leaseCompactEvery();
        if (Math.floor((lastVersion + 1) / every) > Math.floor((firstVersion - 1) / every) && !problem()) await this.compact(table);
        try {
          // Conditional on the token: tried again after a commit that went through, it changes nothing.
          await retryTransient(() => table.update({ where: `id = ${sqlString(LEASE_ID)} AND token = ${sqlString(token)}`, values: { holder: '', token: '', expires_at: 0 } }));
        } catch (error) {
          // The work done under the lease is committed: a lease that could not be given back is
          // taken over after LEASE_TTL_MS instead of failing that work.
          if (!isTransientStoreError(error)) throw error;
        }
      },
    };
  }

  /**
   * Folds the lease table's versions into one and removes those older than
   * `LEASE_VERSION_RETENTION_MS` with their files, as the other small tables are compacted: while
   * the lease is held, so no other machine's renewal or release is under way. Upkeep only: a
   * failure is left for the next time.
   */
  private async compact(table: lancedb.Table): Promise<void> {
    const retention = Number(testSwitch('SESSION_MEMORY_TEST_LEASE_RETENTION_MS') ?? LEASE_VERSION_RETENTION_MS);
    try {
      await table.optimize({ cleanupOlderThan: new Date(Date.now() - retention) });
    } catch (error) {
      if (!isTransientStoreError(error)) throw error;
    }
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
