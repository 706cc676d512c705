/**
 * Every LanceDB connection of the engine goes through here, so that a store on object storage is
 * reached with the storage options its URI and the environment give (files/location.ts).
 */
import * as lancedb from '@lancedb/lancedb';
import os from 'node:os';
import { isStoreUri, storageOptionsFor, storeKindOf } from '../files/location.js';

/**
 * LanceDB sizes its thread pool by the number of cores. With 2 threads, updating the n-gram
 * full-text index of a table past roughly 30k rows deadlocks (every thread parks; seen on 2-core
 * machines by the large-store benchmark), and a save would hang while holding the write lock.
 * Give it at least 4 unless the user chose. Read when LanceDB starts its runtime (first use).
 */
export function ensureLanceThreads(): void {
  if (!process.env.LANCE_CPU_THREADS && os.availableParallelism() < 4) process.env.LANCE_CPU_THREADS = '4';
}

/**
 * `through`: the storage options to use instead of the store's own (the searches' read cache,
 * objectCacheEndpoint.ts, puts its endpoint in place of the store's).
 */
export function connectStore(uri: string, options: Partial<lancedb.ConnectionOptions> = {}, through?: (storageOptions: Record<string, string>) => Record<string, string>): Promise<lancedb.Connection> {
  ensureLanceThreads();
  const own = storageOptionsFor(storeKindOf(uri), process.env);
  const storageOptions = through ? through(own) : own;
  const connectOptions = { ...options, ...(Object.keys(storageOptions).length > 0 ? { storageOptions } : {}) };
  // LanceDB keeps the object stores it opened in its session, by bucket: a connection with other
  // storage options in the same session would be handed the store's own, so it gets a session of its own.
  return through ? lancedb.connect(uri, connectOptions, new lancedb.Session()) : lancedb.connect(uri, connectOptions);
}

/** True when the store is on object storage (no local files to read, sweep or copy). */
export function isRemoteStore(uri: string): boolean {
  return isStoreUri(uri);
}
