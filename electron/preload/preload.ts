/**
 * Exposes exactly one function per IPC channel and one subscription per event, never ipcRenderer
 * itself. Only plain data crosses; the event object is dropped; subscriptions return an unsubscribe.
 * Bundled into one CommonJS file, as a sandboxed preload must be.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { EventName, Result } from '../../shared/ipc.js';

const call = (channel: string) => (request: unknown) => ipcRenderer.invoke(channel, request) as Promise<Result<unknown>>;

const bridge = {
  'sessions:list': call('sessions:list'),
  'sessions:show': call('sessions:show'),
  'sessions:history': call('sessions:history'),
  'chunks:inspect': call('chunks:inspect'),
  'files:stage': call('files:stage'),
  'import:preview': call('import:preview'),
  'import:run': call('import:run'),
  'import:cancel': call('import:cancel'),
  'search:query': call('search:query'),
  'store:verify': call('store:verify'),
  'settings:get': call('settings:get'),
  'settings:set': call('settings:set'),
  on(event: EventName, listener: (payload: unknown) => void): () => void {
    if (event !== 'onSaveProgress' && event !== 'onModelDownload') throw new Error(`unknown event ${String(event)}`);
    const wrapped = (_event: unknown, payload: unknown) => listener(payload);
    ipcRenderer.on(event, wrapped);
    return () => ipcRenderer.removeListener(event, wrapped);
  },
};

contextBridge.exposeInMainWorld('memory', bridge);
