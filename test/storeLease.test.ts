/**
 * The write lease of a shared store when machines race: the one whose creation of its table fails
 * opens the other's, which on object storage can be listed a moment before its first manifest can be
 * read; a version another machine is committing is waited for, never created over; an update that
 * a concurrent commit failed, or whose answer was lost after it committed, is tried again or
 * recognised. The store's small tables (save history, state) wait for such a version the same way.
 * The machine waits instead of calling the store damaged or refusing to save.
 */
import type * as lancedb from '@lancedb/lancedb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreLease } from '../electron/engine/store/storeLease.js';
import { isTransientStoreError } from '../electron/engine/store/transient.js';
import { SmallTable } from '../electron/engine/store/smallTable.js';
import * as arrow from 'apache-arrow';

/** A connection on which another machine has just created `writer_lease`: readable after `unreadable` failed opens. */
function racingConnection(unreadable: number): { db: lancedb.Connection; opens: () => number } {
  let opens = 0;
  const table = {
    update: async () => ({ rowsUpdated: 1 }),
    checkoutLatest: async () => {},
    query: () => ({ where: () => ({ toArray: async () => [] }) }),
    close: () => {},
  };
  const db = {
    openTable: async () => {
      opens++;
      if (opens <= unreadable) throw new Error('lance error: Object at location memory/writer_lease.lance/_versions/18446744073709551614.manifest not found');
      return table;
    },
    createTable: async () => {
      throw new Error('Table writer_lease already exists');
    },
  };
  return { db: db as unknown as lancedb.Connection, opens: () => opens };
}

/** The lease as this machine, "laptop", asks for it on a shared store. */
const laptopLease = (db: lancedb.Connection) => new StoreLease(db, 's3+ddb://bucket/memory', { machine: 'laptop', machineId: 'laptop-id', pid: process.pid });
const LAPTOP = `laptop (process ${process.pid})`;

afterEach(() => {
  vi.useRealTimers();
});

describe('the write lease of a shared store', () => {
  it('is taken when another machine created its table a moment before its first version could be read', async () => {
    const { db, opens } = racingConnection(3);
    const lease = laptopLease(db);
    const held = await lease.acquire(0);
    expect(opens()).toBe(4);
    await held.release();
    lease.close();
  });

  it('gives a clear error naming the store and the table when that table never becomes readable', async () => {
    vi.useFakeTimers();
    const { db } = racingConnection(Infinity);
    const lease = laptopLease(db);
    const acquiring = lease.acquire(0);
    const failed = expect(acquiring).rejects.toThrow(/^s3\+ddb:\/\/bucket\/memory: the table that says which machine writes \(writer_lease\) could not be opened \(.*manifest not found\); try again$/);
    await vi.advanceTimersByTimeAsync(10_000);
    await failed;
  });

  it('never creates the table over one whose newest version another machine is committing', async () => {
    const { db, opens } = racingConnection(2);
    let creations = 0;
    db.createTable = (async () => {
      creations++;
      return {} as lancedb.Table;
    }) as unknown as lancedb.Connection['createTable'];
    const lease = laptopLease(db);
    const held = await lease.acquire(0);
    expect(creations).toBe(0);
    expect(opens()).toBe(3);
    await held.release();
  });

  it('tries an update again that a concurrent commit made incompatible, and takes the lease', async () => {
    const row = leaseRow();
    const failures = ['lance error: Incompatible transaction: This Update transaction is incompatible with concurrent transaction Overwrite at version 2.'];
    const lease = laptopLease(connectionTo(row, { failBefore: failures }));
    const held = await lease.acquire(5_000);
    expect(row.holder).toBe(LAPTOP);
    await held.release();
    expect(row.holder).toBe('');
  });

  it('holds the lease when its update committed but the answer was lost, instead of waiting for itself', async () => {
    const row = leaseRow();
    const failures = ['lance error: LanceError(IO): Object at location memory/writer_lease.lance/_versions/18446744073709551612.manifest not found: Error performing HEAD'];
    const lease = laptopLease(connectionTo(row, { failAfter: failures }));
    const held = await lease.acquire(0);
    expect(row.holder).toBe(LAPTOP);
    await held.release();
    expect(row).toMatchObject({ holder: '', token: '', expires_at: 0 });
  });

  it('releases the lease when the first release meets a version being committed', async () => {
    const row = leaseRow();
    const connection = connectionTo(row, {});
    const lease = laptopLease(connection);
    const held = await lease.acquire(0);
    failNextUpdate(connection, 'lance error: Generic S3 error: Wanted range starting at 0, but object was only 0 bytes long');
    await held.release();
    expect(row).toMatchObject({ holder: '', token: '', expires_at: 0 });
  });

  it('lets a lease it cannot give back lapse rather than fail the work done under it', async () => {
    vi.useFakeTimers();
    const row = leaseRow();
    const connection = connectionTo(row, {});
    const lease = laptopLease(connection);
    const held = await lease.acquire(0);
    for (let i = 0; i < 10; i++) failNextUpdate(connection, 'lance error: Too many concurrent writers. Attempted 6 times');
    const releasing = held.release();
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(releasing).resolves.toBeUndefined();
    expect(row.expires_at).toBeGreaterThan(0);
  });

  it('does not take a lease another machine holds, and says who holds it', async () => {
    const row = { ...leaseRow(), holder: 'desktop (process 7)', token: 'theirs', expires_at: Date.now() + 20_000 };
    const lease = laptopLease(connectionTo(row, {}));
    await expect(lease.acquire(0)).rejects.toThrow(/another machine is saving to s3\+ddb:\/\/bucket\/memory \(desktop \(process 7\), for up to 30 s more unless it finishes first\)/);
    expect(row.token).toBe('theirs');
  });

  it('stops writes once its last renewal is 20 s old by the wall clock, though the monotonic clock stood still (a laptop asleep)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const row = leaseRow();
    const lease = laptopLease(connectionTo(row, {}));
    const held = await lease.acquire(0);
    expect(held.problem()).toBeNull();
    vi.setSystemTime(Date.now() + 25_000);
    expect(held.problem()?.message).toMatch(/write lease of s3\+ddb:\/\/bucket\/memory was last renewed 25 s ago/);
    await held.release();
  });

  it('takes over a lease another machine stopped renewing only after watching it unchanged for 30 s, whatever its expiry says', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance', 'setTimeout', 'setInterval', 'clearInterval'] });
    // By this machine's clock the lease ran out a minute ago (the holder's clock is behind, say).
    const row = { ...leaseRow(), holder: 'desktop (process 7)', token: 'theirs', expires_at: Date.now() - 60_000 };
    const lease = laptopLease(connectionTo(row, {}));
    let taken = false;
    const acquiring = lease.acquire(60_000).then((held) => {
      taken = true;
      return held;
    });
    await vi.advanceTimersByTimeAsync(25_000);
    expect(taken).toBe(false);
    expect(row.token).toBe('theirs');
    // A renewal resets the watch.
    row.expires_at += 1;
    await vi.advanceTimersByTimeAsync(25_000);
    expect(taken).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(taken).toBe(true);
    expect(row.holder).toBe(LAPTOP);
    await (await acquiring).release();
  });

  it('keeps a lease of the length a test run sets, its margin in proportion: taken over after 15 s unrenewed, no writes after 10 s', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance', 'setTimeout', 'setInterval', 'clearInterval'] });
    process.env.SESSION_MEMORY_TEST_LEASE_TTL_MS = '15000';
    try {
      const row = { ...leaseRow(), holder: 'desktop (process 7)', token: 'theirs', expires_at: Date.now() + 15_000 };
      const lease = laptopLease(connectionTo(row, {}));
      let taken = false;
      const acquiring = lease.acquire(60_000).then((held) => {
        taken = true;
        return held;
      });
      await vi.advanceTimersByTimeAsync(12_000);
      expect(taken).toBe(false);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(taken).toBe(true);
      const held = await acquiring;
      // With no renewal confirmed (the wall clock moves, no timer runs), writes stop 10 s after taking it
      // (taken 0-2 s before now: the watch ended between 15 and 17 s).
      vi.setSystemTime(Date.now() + 7_000);
      expect(held.problem()).toBeNull();
      vi.setSystemTime(Date.now() + 4_000);
      expect(held.problem()?.message).toMatch(/write lease of s3\+ddb:\/\/bucket\/memory was last renewed 1[1-3] s ago/);
      await held.release();
    } finally {
      delete process.env.SESSION_MEMORY_TEST_LEASE_TTL_MS;
    }
  });

  it('tells transient failures from a missing table or damage', () => {
    expect(isTransientStoreError(new Error('lance error: Too many concurrent writers. Attempted 6 times'))).toBe(true);
    expect(isTransientStoreError(new Error('lance error: Generic S3 error: Error performing list request: after 3 retries - Server returned non-2xx status code: 500 Internal Server Error'))).toBe(true);
    expect(isTransientStoreError(new Error('lance error: Generic S3 error: Server returned non-2xx status code: 403 Forbidden'))).toBe(false);
    expect(isTransientStoreError(new Error("Table 'writer_lease' was not found"))).toBe(false);
    expect(isTransientStoreError(new Error('lance error: Not found: memory/chunks.lance/data/0a1b.lance'))).toBe(false);
    expect(isTransientStoreError(new Error('Invalid lance file: bad magic'))).toBe(false);
  });
});

describe('the small tables of a shared store', () => {
  it('open one whose newest version another machine is committing once it can be read, never creating it over', async () => {
    let opens = 0;
    let creations = 0;
    const table = { close: () => {} } as unknown as lancedb.Table;
    const db = {
      openTable: async () => {
        if (++opens <= 2) throw new Error('lance error: LanceError(IO): Object at location memory/save_history.lance/_versions/18446744073709551600.manifest not found');
        return table;
      },
      createEmptyTable: async () => {
        creations++;
        return table;
      },
    } as unknown as lancedb.Connection;
    const small = new SmallTable({ db, uri: 's3+ddb://bucket/memory?ddbTableName=commits' }, 'save_history', new arrow.Schema([new arrow.Field('id', new arrow.Utf8())]));
    expect(await small.open(true)).toBe(table);
    expect(creations).toBe(0);
  });
});

interface LeaseRow {
  id: string;
  holder: string;
  token: string;
  expires_at: number;
}

function leaseRow(): LeaseRow {
  return { id: 'writer', holder: '', token: '', expires_at: 0 };
}

type TestConnection = lancedb.Connection & { failNext: string[] };

/**
 * A connection to a `writer_lease` table of one row whose conditional updates are evaluated as
 * LanceDB would (the three conditions the lease uses). `failBefore`: messages of updates that fail
 * without committing; `failAfter`: of updates that commit and then fail to answer.
 */
function connectionTo(row: LeaseRow, options: { failBefore?: string[]; failAfter?: string[] }): TestConnection {
  const failBefore = [...(options.failBefore ?? [])];
  const failAfter = [...(options.failAfter ?? [])];
  const matches = (where: string): boolean => {
    const token = /token = '([^']*)'/.exec(where);
    if (token) return row.token === token[1];
    const before = /expires_at < (\d+)/.exec(where);
    return before !== null && row.expires_at < Number(before[1]);
  };
  const connection = { failNext: [] as string[] } as unknown as TestConnection;
  const table = {
    update: async ({ where, values }: { where: string; values: Partial<LeaseRow> }) => {
      const early = connection.failNext.shift() ?? failBefore.shift();
      if (early) throw new Error(early);
      const hit = matches(where);
      if (hit) Object.assign(row, values);
      const late = failAfter.shift();
      if (late) throw new Error(late);
      return { rowsUpdated: hit ? 1 : 0 };
    },
    checkoutLatest: async () => {},
    version: async () => 1,
    query: () => ({ where: () => ({ toArray: async () => [{ ...row }] }) }),
    close: () => {},
  };
  Object.assign(connection, {
    openTable: async () => table,
    createTable: async () => {
      throw new Error('Table writer_lease already exists');
    },
  });
  return connection;
}

function failNextUpdate(connection: TestConnection, message: string): void {
  connection.failNext.push(message);
}
