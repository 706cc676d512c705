/**
 * Every LanceDB connection of the engine goes through here, so that a store on object storage is
 * reached with the storage options its URI and the environment give (files/location.ts).
 */
import * as lancedb from '@lancedb/lancedb';
import { isStoreUri, storageOptionsFor, storeKindOf } from '../files/location.js';

export function connectStore(uri: string, options: Partial<lancedb.ConnectionOptions> = {}): Promise<lancedb.Connection> {
  const storageOptions = storageOptionsFor(storeKindOf(uri), process.env);
  return lancedb.connect(uri, { ...options, ...(Object.keys(storageOptions).length > 0 ? { storageOptions } : {}) });
}

/** True when the store is on object storage (no local files to read, sweep or copy). */
export function isRemoteStore(uri: string): boolean {
  return isStoreUri(uri);
}
