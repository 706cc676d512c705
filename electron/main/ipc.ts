/**
 * Registers one IPC handler per channel. Only our own page may call them (the sender frame's URL is
 * checked, as VS Code does), every request is validated by `dispatch`, and answers are plain data.
 * Takes an ipcMain-like object so it is tested without Electron.
 */
import { CHANNELS, type Result } from '../../shared/ipc.js';
import { dispatch } from '../host/dispatch.js';
import type { Handlers } from '../host/memoryHost.js';
import { isAppUrl } from './windowOptions.js';

export interface IpcInvokeEventLike {
  senderFrame?: { url: string } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, request: unknown) => Promise<Result<unknown>>): void;
}

export function registerIpcHandlers(ipc: IpcMainLike, handlers: Handlers, appUrl: string): void {
  for (const channel of CHANNELS) {
    ipc.handle(channel, async (event, request) => {
      const url = event.senderFrame?.url;
      if (typeof url !== 'string' || !isAppUrl(url, appUrl)) return { ok: false, error: { code: 'forbidden', message: 'request from a page that is not Session Memory' } };
      return dispatch(handlers, channel, request);
    });
  }
}
