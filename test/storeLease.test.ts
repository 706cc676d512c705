/**
 * The write lease of a shared store when two machines create its table at once: the one whose
 * creation fails opens the other's, which on object storage can be listed a moment before its first
 * manifest can be read. The machine waits for it instead of calling the store damaged.
 */
import type * as lancedb from '@lancedb/lancedb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreLease } from '../electron/engine/store/storeLease.js';

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

afterEach(() => {
  vi.useRealTimers();
});

describe('the write lease of a shared store', () => {
  it('is taken when another machine created its table a moment before its first version could be read', async () => {
    const { db, opens } = racingConnection(3);
    const lease = new StoreLease(db, 's3+ddb://bucket/memory', { machine: 'laptop', pid: process.pid });
    const held = await lease.acquire(0, () => {});
    expect(opens()).toBe(4);
    await held.release();
    lease.close();
  });

  it('gives a clear error naming the store and the table when that table never becomes readable', async () => {
    vi.useFakeTimers();
    const { db } = racingConnection(Infinity);
    const lease = new StoreLease(db, 's3+ddb://bucket/memory', { machine: 'laptop', pid: process.pid });
    const acquiring = lease.acquire(0, () => {});
    const failed = expect(acquiring).rejects.toThrow(/^s3\+ddb:\/\/bucket\/memory: the table that says which machine writes \(writer_lease\) could neither be created \(Table writer_lease already exists\) nor opened \(.*manifest not found\); try again$/);
    await vi.advanceTimersByTimeAsync(10_000);
    await failed;
  });
});
