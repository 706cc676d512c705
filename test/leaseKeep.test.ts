/**
 * Saves in a row on a shared store take its write lease once: the lease is kept a moment after a
 * save for the next one of the same process, and given back after LEASE_KEEP_MS without one, or at
 * once when the engine closes. Another machine waits at most that long more for it. Real S3 and
 * DynamoDB servers (s3rver and dynalite on 127.0.0.1).
 */
import { describe, expect, it } from 'vitest';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import { connectStore } from '../electron/engine/store/connect.js';
import { LEASE_TABLE, LEASE_TTL_MS } from '../electron/engine/store/storeLease.js';
import { LEASE_KEEP_MS } from '../electron/engine/store/writeGuard.js';
import { conversation, scratchDirs } from './helpers/engine.js';
import { historyVersion } from './helpers/historyTable.js';
import type { ObjectStoreServers } from './helpers/objectStore.js';
import { useObjectStoreServers } from './helpers/objectStoreMachine.js';

let servers: ObjectStoreServers;
// The subject is what a save reads and holds on the bucket, not embedding: the hashing stand-in embeds, and no model loads.
const embedder = new HashEmbedder();
const dir = scratchDirs('sm-lease-keep-');
useObjectStoreServers((started) => {
  servers = started;
});

/** The lease as the store holds it now: its holder's token (a new one at every take; empty when free). */
async function leaseNow(storeUri: string): Promise<string> {
  const db = await connectStore(storeUri, { readConsistencyInterval: 0 });
  try {
    const table = await db.openTable(LEASE_TABLE);
    const rows = (await table.query().toArray()) as Array<{ token: string }>;
    table.close();
    return rows[0]?.token ?? '';
  } finally {
    db.close();
  }
}

const open = (storeUri: string, dataDir = dir()) => MemoryEngine.open({ dataDir, storeUri, embedder, lockWaitMs: 20_000 });

describe('the write lease of a shared store across saves in a row', () => {
  it('is taken once for a save, re-saves and an append of one process, and given back when the engine closes', async () => {
    const { sharedUri } = await servers.newStore('keep');
    const engine = await open(sharedUri);
    try {
      await engine.save(conversation(6));
      const taken = await leaseNow(sharedUri);
      expect(taken).not.toBe('');
      expect((await engine.save(conversation(6))).skippedSession).toBe(true);
      expect((await engine.save(conversation(6))).skippedSession).toBe(true);
      expect((await engine.save(conversation(9))).new).toBe(3);
      // The same hold (renewed, perhaps), not taken and given back at each save.
      expect(await leaseNow(sharedUri)).toBe(taken);
    } finally {
      await engine.close();
    }
    expect(await leaseNow(sharedUri)).toBe('');
  }, 120_000);

  it('is given back by itself after a moment without a save: another machine saves without waiting for it to lapse', async () => {
    const { sharedUri } = await servers.newStore('handover');
    const laptop = await open(sharedUri);
    let waited = Infinity;
    const desktop = await MemoryEngine.open({ dataDir: dir(), storeUri: sharedUri, embedder, lockWaitMs: 20_000, onSaveTimings: (t) => (waited = t.phases.lock ?? Infinity) });
    try {
      await laptop.save(conversation(4));
      expect(await leaseNow(sharedUri)).not.toBe('');
      const saved = await desktop.save({ ...conversation(5), sessionId: 'desktop-session' });
      expect(saved.new).toBe(5);
      // The desktop's wait for the lease: far below the 30 s a lease must go unrenewed before it is taken over.
      expect(waited).toBeLessThan(LEASE_KEEP_MS + 10_000);
      // The laptop's hold ended on its own: it saves again after the desktop gave the lease back.
      expect((await laptop.save(conversation(7))).new).toBe(3);
    } finally {
      await laptop.close();
      await desktop.close();
    }
    expect(await leaseNow(sharedUri)).toBe('');
  }, 120_000);

  it('is not written under once it went too long unrenewed while kept (a laptop asleep): the next save takes it again', async () => {
    const { sharedUri } = await servers.newStore('stale');
    const engine = await open(sharedUri);
    try {
      await engine.save(conversation(4));
      const kept = await leaseNow(sharedUri);
      // The wall clock jumps past the point where the holder stops writing (it slept).
      process.env.SESSION_MEMORY_TEST_CLOCK_OFFSET_MS = String(LEASE_TTL_MS);
      expect((await engine.save(conversation(6))).new).toBe(2);
      const taken = await leaseNow(sharedUri);
      expect(taken).not.toBe('');
      expect(taken).not.toBe(kept);
    } finally {
      delete process.env.SESSION_MEMORY_TEST_CLOCK_OFFSET_MS;
      await engine.close();
    }
  }, 120_000);

  it('commits the history events of saves in a row once, when the lease is given back; another machine then reads them all', async () => {
    const { sharedUri } = await servers.newStore('history');
    const engine = await open(sharedUri);
    try {
      await engine.save(conversation(5));
      for (let i = 0; i < 3; i++) expect((await engine.save(conversation(5))).skippedSession).toBe(true);
      expect((await engine.save(conversation(7))).new).toBe(2);
      // Not committed yet, neither the events of the saves that wrote (the first, the append) nor the
      // others', and yet this process's history shows them.
      expect(await historyVersion(sharedUri)).toBe(0);
      expect((await engine.history('session-a')).map((e) => [e.skippedSession, e.new])).toEqual([[false, 5], [true, 0], [true, 0], [true, 0], [false, 2]]);
    } finally {
      await engine.close();
    }
    // One commit for the five (after the one that made the table), made before the lease was given back.
    expect(await historyVersion(sharedUri)).toBe(2);
    const reader = await open(sharedUri);
    try {
      expect((await reader.history('session-a')).map((e) => [e.skippedSession, e.new])).toEqual([[false, 5], [true, 0], [true, 0], [true, 0], [false, 2]]);
    } finally {
      await reader.close();
    }
  }, 120_000);
});
