/**
 * Registers one IPC handler per channel. Only our own page may call them (the sender frame's URL is
 * checked, as VS Code does), every request is validated by `dispatch`, and answers are plain data.
 * Takes an ipcMain-like object so it is tested without Electron.
 */
import { CHANNELS, STAGE_PATH_CHANNEL, stagePathSchema, type ResponseMap, type Result } from '../../shared/ipc.js';
import { dispatch } from '../host/dispatch.js';
import { toErrorInfo, type Handlers } from '../host/memoryHost.js';
import { isAppUrl } from './windowOptions.js';

export interface IpcInvokeEventLike {
  senderFrame?: { url: string } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, request: unknown) => Promise<Result<unknown>>): void;
}

const FORBIDDEN: Result<never> = { ok: false, error: { code: 'forbidden', message: 'request from a page that is not Session Memory' } };

export function registerIpcHandlers(ipc: IpcMainLike, handlers: Handlers, appUrl: string, stagePath?: (filePath: string) => Promise<ResponseMap['files:stage']>): void {
  const fromApp = (event: IpcInvokeEventLike) => typeof event.senderFrame?.url === 'string' && isAppUrl(event.senderFrame.url, appUrl);
  for (const channel of CHANNELS) {
    ipc.handle(channel, async (event, request) => (fromApp(event) ? dispatch(handlers, channel, request) : FORBIDDEN));
  }
  // A dropped file by its path. The preload takes the path from the File object of the drop
  // (webUtils.getPathForFile), and the page itself has no way to send one: it is given only the
  // bridge's functions, and this one takes a File, not a string.
  if (stagePath) {
    ipc.handle(STAGE_PATH_CHANNEL, async (event, request) => {
      if (!fromApp(event)) return FORBIDDEN;
      const parsed = stagePathSchema.safeParse(request);
      if (!parsed.success) return { ok: false, error: { code: 'invalid_request', message: `${STAGE_PATH_CHANNEL}: give the path of one file` } };
      try {
        return { ok: true, value: await stagePath(parsed.data.path) };
      } catch (error) {
        return { ok: false, error: toErrorInfo(error) };
      }
    });
  }
}
