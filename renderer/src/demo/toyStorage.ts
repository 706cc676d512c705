/**
 * Where the demo host's memory "lives": a folder or a store URI, read with the same parser as the
 * real host (shared/storeUri.ts), so a bad URI gets the same message; and the machines that saved,
 * from the demo's save history with the same computation as the engine's.
 */
import type { SaveEvent } from '../../../shared/domain.js';
import type { RequestMap, ResponseMap, Settings, StorageView } from '../../../shared/ipc.js';
import { recentWriters } from '../../../shared/recentWriters.js';
import { isStoreUri, parseStoreUri, StoreLocationError } from '../../../shared/storeUri.js';
import { HostError } from './toyEngine.js';

const DEMO_HOME = '/home/demo/.session-memory';
export const DEMO_MACHINE = 'demo-laptop';

/** The Storage card's view of a folder or store URI; a URI the parser refuses is `invalid_input` with its message. */
export function storageViewOf(dataDir: string, machine: string = DEMO_MACHINE): StorageView {
  if (!isStoreUri(dataDir)) {
    if (!/^(\/|[A-Za-z]:[\\/]|\\\\)/.test(dataDir)) throw new HostError('invalid_input', `The data directory must be an absolute path, not "${dataDir}".`);
    return { kind: 'folder', display: dataDir, localDir: dataDir, shared: false, machine };
  }
  try {
    const { kind, display, key } = parseStoreUri(dataDir);
    return { kind, display, localDir: `${DEMO_HOME}/stores/${key}`, shared: true, machine };
  } catch (error) {
    if (error instanceof StoreLocationError) throw new HostError('invalid_input', error.message);
    throw error;
  }
}

export function toyStorageHandlers(
  settings: Settings,
  events: () => SaveEvent[],
  now: () => Date,
): { 'store:writers': (request: RequestMap['store:writers']) => Promise<ResponseMap['store:writers']>; 'store:change': (request: RequestMap['store:change']) => Promise<ResponseMap['store:change']> } {
  return {
    'store:writers': async ({ days }) => recentWriters(events(), new Date(now().getTime() - (days ?? 30) * 86_400_000)),
    'store:change': async ({ to, copy }) => {
      const storage = storageViewOf(to.trim(), settings.storage.machine);
      if (copy) {
        if (to.trim() === settings.dataDir) throw new HostError('invalid_input', `${settings.storage.display} is the memory in use; name another folder or store to copy it to`);
        // The demo's memory is in the page: a copy is the same memory at its new place.
      }
      settings.dataDir = to.trim();
      settings.storage = storage;
      return { ...settings };
    },
  };
}
