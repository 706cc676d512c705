/**
 * The desktop shell: one secure window, the IPC handlers, the app menu, and an orderly shutdown.
 * Everything with logic lives in plain-Node modules (host, engine) or pure functions (window
 * options, URL checks) that are tested without Electron; this file only wires them to Electron.
 */
// First: quiets LanceDB's own warnings before it loads.
import '../host/lanceLog.js';
import { app, BrowserWindow, Menu, dialog, ipcMain, session, shell, nativeTheme } from 'electron';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerIpcHandlers } from './ipc.js';
import { MemoryHost } from '../host/memoryHost.js';
import { loadSettingsFile, saveSettingsFile } from '../host/settingsFile.js';
import { PRODUCT_NAME } from '../engine/files/index.js';
import { appMenuTemplate } from './menu.js';
import { CONTENT_SECURITY_POLICY, isAppUrl, isSafeExternalUrl, secureWindowOptions } from './windowOptions.js';

app.setName(PRODUCT_NAME);
// The packaged app ships the offline model ready-built in its resources; it is copied on first use.
if (app.isPackaged) process.env.SESSION_MEMORY_BUNDLED_MODELS ??= path.join(process.resourcesPath, 'models');

const here = __dirname;
// Worker threads cannot start from inside the asar archive: the database reader's worker is unpacked beside it.
process.env.SESSION_MEMORY_DATABASE_WORKER ??= path.join(here, 'databaseWorker.mjs').replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`);
// A development renderer server, never in a packaged app.
const devRendererUrl = app.isPackaged ? undefined : process.env.SESSION_MEMORY_RENDERER_URL;
const rendererIndex = devRendererUrl ?? pathToFileURL(path.join(here, '..', 'dist-renderer', 'index.html')).toString();
const settingsFile = () => path.join(app.getPath('userData'), 'settings.json');

let host: MemoryHost | null = null;
let mainWindow: BrowserWindow | null = null;


function createWindow(): BrowserWindow {
  const window = new BrowserWindow(secureWindowOptions(path.join(here, 'preload.cjs'), nativeTheme.shouldUseDarkColors));
  window.once('ready-to-show', () => window.show());
  window.webContents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url, rendererIndex)) event.preventDefault();
  });
  window.webContents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url, rendererIndex)) event.preventDefault();
  });
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  window.webContents.on('will-attach-webview', (event) => event.preventDefault());
  void window.loadURL(rendererIndex);
  return window;
}


/** How long quitting waits for a running save to stop and the store to close. */
const SHUTDOWN_DEADLINE_MS = 10_000;

async function start(): Promise<void> {
  const loaded = await loadSettingsFile(settingsFile());
  const saved = loaded.settings;
  if (loaded.problem) {
    console.warn(loaded.problem);
    app.once('browser-window-created', (_event, window) => {
      window.once('ready-to-show', () => void dialog.showMessageBox(window, { type: 'warning', message: 'Some settings could not be used', detail: loaded.problem }));
    });
  }
  host = new MemoryHost({
    dataDir: saved.dataDir ?? process.env.SESSION_MEMORY_HOME ?? path.join(app.getPath('userData'), 'memory'),
    ...(saved.model ? { model: saved.model } : {}),
    modelsDir: path.join(app.getPath('userData'), 'models'),
    ...(saved.language ? { language: saved.language } : {}),
    ...(saved.theme ? { theme: saved.theme } : {}),
    ...(saved.redactSecrets === false ? { redactSecrets: false } : {}),
    nativeDialogs: true,
    fileLog: true,
    // Sources a person turned on are synced while the app runs; hooks hand their saves to it.
    sources: { intervalMs: 10_000, serveHooks: true },
    openFolder: async (dir) => {
      const problem = await shell.openPath(dir);
      if (problem) throw new Error(`${dir} could not be opened: ${problem}`);
    },
    // What "Connect an assistant" shows: the packaged CLI run by the app's own binary, or the checkout's.
    cliLauncher: app.isPackaged
      ? { command: process.execPath, args: [path.join(here, 'cli.cjs')], env: { ELECTRON_RUN_AS_NODE: '1' } }
      : { command: 'node', args: [path.join(here, '..', 'bin', 'session-memory.mjs')] },
    // Worker threads cannot start from inside the asar archive; the worker is unpacked beside it.
    embedWorkerUrl: pathToFileURL(path.join(here, 'embedWorker.mjs').replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`)),
    emit: (event, payload) => mainWindow?.webContents.send(event, payload),
    onSettingsChanged: (settings) => {
      saveSettingsFile(settingsFile(), settings).catch((error: Error) => console.error(`settings could not be saved: ${error.message}`));
    },
  });
  if (loaded.problem) host.logger.warn(loaded.problem);
  registerIpcHandlers(ipcMain, host.handlers, rendererIndex, (filePath) => host!.stagePath(filePath));
  session.defaultSession.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(process.platform, { openDataFolder: () => void shell.openPath(host!.dataDir) })));
  mainWindow = createWindow();
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (mainWindow) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    }
  });
  app.whenReady().then(start, (error: unknown) => {
    console.error(error);
    app.exit(1);
  });
  app.on('window-all-closed', () => app.quit());
  let shuttingDown = false;
  app.on('before-quit', (event) => {
    if (shuttingDown || !host) return;
    // Finish or cleanly cancel a running save before the store closes.
    event.preventDefault();
    shuttingDown = true;
    // A store or worker that does not close in time does not keep the app from quitting.
    const deadline = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_DEADLINE_MS).unref());
    void Promise.race([host.close(), deadline]).finally(() => app.exit(0));
  });
  process.on('uncaughtException', (error) => {
    host?.logger.error('crash', error);
    console.error(error);
  });
  process.on('unhandledRejection', (reason) => host?.logger.error('unhandled rejection', reason));
}
