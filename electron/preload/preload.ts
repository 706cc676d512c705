/**
 * Exposes exactly one function per IPC channel and one subscription per event, never ipcRenderer
 * itself. Only plain data crosses; the event object is dropped; subscriptions return an unsubscribe.
 * The functions are made from the shared list of channel names, so a new channel cannot be left out
 * (the UI uses the bridge only when it has every channel). Bundled into one CommonJS file, as a
 * sandboxed preload must be.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { CHANNEL_NAMES, EVENT_NAMES, type ChannelName } from '../../shared/channels.js';
import type { Result } from '../../shared/ipc.js';

const events = new Set<string>(EVENT_NAMES);

const bridge = {
  ...(Object.fromEntries(CHANNEL_NAMES.map((channel) => [channel, (request: unknown) => ipcRenderer.invoke(channel, request) as Promise<Result<unknown>>])) as Record<ChannelName, (request: unknown) => Promise<Result<unknown>>>),
  on(event: string, listener: (payload: unknown) => void): () => void {
    if (!events.has(event)) throw new Error(`unknown event ${String(event)}`);
    const wrapped = (_event: unknown, payload: unknown) => listener(payload);
    ipcRenderer.on(event, wrapped);
    return () => ipcRenderer.removeListener(event, wrapped);
  },
};

contextBridge.exposeInMainWorld('memory', bridge);
