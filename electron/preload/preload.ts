/**
 * Exposes exactly one function per IPC channel and one subscription per event, never ipcRenderer
 * itself. Only plain data crosses; the event object is dropped; subscriptions return an unsubscribe.
 * The functions are made from the shared list of channel names, so a new channel cannot be left out
 * (the UI uses the bridge only when it has every channel). Bundled into one CommonJS file, as a
 * sandboxed preload must be.
 */
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { CHANNEL_NAMES, EVENT_NAMES, type ChannelName } from '../../shared/channels.js';
import { STAGE_PATH_CHANNEL, type Result } from '../../shared/ipc.js';

const events = new Set<string>(EVENT_NAMES);

const bridge = {
  ...(Object.fromEntries(CHANNEL_NAMES.map((channel) => [channel, (request: unknown) => ipcRenderer.invoke(channel, request) as Promise<Result<unknown>>])) as Record<ChannelName, (request: unknown) => Promise<Result<unknown>>>),
  /** Stages a dropped or picked file by its path, which only a real File of the person's gives. */
  uploadFile(file: File): Promise<Result<unknown>> {
    const filePath = webUtils.getPathForFile(file);
    if (!filePath) return Promise.resolve({ ok: false, error: { code: 'invalid_input', message: `${file.name} is not a file on this computer` } });
    return ipcRenderer.invoke(STAGE_PATH_CHANNEL, { path: filePath }) as Promise<Result<unknown>>;
  },
  on(event: string, listener: (payload: unknown) => void): () => void {
    if (!events.has(event)) throw new Error(`unknown event ${String(event)}`);
    const wrapped = (_event: unknown, payload: unknown) => listener(payload);
    ipcRenderer.on(event, wrapped);
    return () => ipcRenderer.removeListener(event, wrapped);
  },
};

contextBridge.exposeInMainWorld('memory', bridge);
