/**
 * Hosts the engine for a UI: the handlers behind every IPC channel, shared by the Electron main
 * process and the web-mode server. Plain Node: no Electron here, so every handler is tested directly.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { EventMap, EventName, ResponseMap } from '../../shared/ipc.js';
import type { Readable } from 'node:stream';
import { stagingDirOf } from './staging.js';
import { MemoryEngine, type Logger } from '../engine/engine.js';
import { DUPLICATE_THRESHOLD } from '../engine/duplicates/index.js';
import { EngineError } from '../engine/errors.js';
import { sourceTraces } from '../sources/forgottenSessions.js';
import { LOG_FOLDER, openAppLog, type AppLog } from './appLog.js';
import type { Handlers, HandlersOf } from './handlers.js';
import { ImportsHost } from './importsHost.js';
import { SourcesHost, type SourcesHostOptions } from './sourcesHost.js';
import { StorageHost, type StorageHostOptions } from './storageHost.js';
import { AssistantsHost, type AssistantsHostOptions } from './assistantsHost.js';

export type { Handlers } from './handlers.js';

/** The storage options (where the memory lives, the model, the settings) are in storageHost.ts. */
export interface MemoryHostOptions extends StorageHostOptions {
  /** Pushes an event to the UI. */
  emit?: <E extends EventName>(event: E, payload: EventMap[E]) => void;
  logger?: Logger;
  /** The embedding worker script of a packaged build. */
  embedWorkerUrl?: URL;
  /** Where dropped files are staged. Default: `staging` under the data folder (leftovers of a killed run are swept at start). */
  stagingDir?: string;
  /** Chunks from which the store gets a vector index (the engine's default, 10k, unless a test says otherwise). */
  vectorIndexMinRows?: number;
  /** Keep the app's log in `<data folder>/logs` (the desktop app and web mode do; tests may not). */
  fileLog?: boolean;
  /** Opens a folder in the system's file manager (the desktop app). */
  openFolder?: (dir: string) => Promise<void>;
  /** Sources: background sync of those a person turned on, and hooks' saves handed over (the app and web mode). Off when absent. */
  sources?: Pick<SourcesHostOptions, 'intervalMs' | 'serveHooks' | 'discover'>;
  /** Whose assistants Settings › Connect an assistant sets up (default: this user's). */
  assistants?: Omit<AssistantsHostOptions, 'launcher'>;
}

export { toErrorInfo } from './appReports.js';

export { stagedFileName } from './staging.js';

export class MemoryHost {
  private enginePromise: Promise<MemoryEngine> | null = null;
  private readonly imports: ImportsHost;
  /** Where the memory lives, and the settings. */
  private readonly storage: StorageHost;
  private sources: SourcesHost;
  private readonly assistants: AssistantsHost;
  private closed = false;
  private appLog: AppLog | null = null;

  constructor(private readonly options: MemoryHostOptions) {
    this.imports = new ImportsHost({
      stagingDir: options.stagingDir ?? (() => stagingDirOf(this.location.dataDir)),
      engine: () => this.engine(),
      redact: () => this.settings.redactSecrets,
      onSaveProgress: (p) => this.options.emit?.('onSaveProgress', p),
      logger: this.logger,
      onImportOver: () => void this.maintainInBackground(),
    });
    this.storage = new StorageHost(options, {
      engine: () => this.engine(),
      closeEngine: () => this.closeEngine(),
      importRunning: () => this.imports.isRunning,
      followLocalFolder: () => this.followLocalFolder(),
      logDir: () => this.appLog?.dir ?? null,
    });
    if (options.fileLog) this.appLog = openAppLog(this.location.dataDir);
    this.imports.sweep();
    this.sources = this.startSources();
    // The CLI without its subcommand: the MCP server's launch minus `mcp`.
    this.assistants = new AssistantsHost({
      ...options.assistants,
      launcher: () => {
        const server = this.storage.mcpServer();
        return server ? { ...server, args: server.args.slice(0, -1) } : null;
      },
    });
    this.handlers = {
      ...this.memoryHandlers,
      ...this.imports.handlers,
      ...this.storage.handlers,
      ...this.sourcesHandlers,
      ...this.assistants.handlers,
      ...this.appHandlers,
    };
  }

  private startSources(): SourcesHost {
    const sources = new SourcesHost({
      dataDir: () => this.location.dataDir,
      engine: () => this.engine(),
      redact: () => this.settings.redactSecrets,
      logger: this.logger,
      intervalMs: this.options.sources?.intervalMs ?? 0,
      ...this.options.sources,
    });
    if (this.options.sources) sources.start();
    return sources;
  }

  /** Where warnings and background failures go: the log file (when kept) and the shell's logger. */
  readonly logger: AppLog = {
    dir: '',
    info: (message) => {
      this.appLog?.info(message);
      this.options.logger?.info(message);
    },
    warn: (message) => {
      this.appLog?.warn(message);
      this.options.logger?.warn(message);
    },
    error: (message, error) => {
      this.appLog?.error(message, error);
      this.options.logger?.warn(`${message}${error instanceof Error ? `: ${error.message}` : ''}`);
    },
    close: async () => {},
  };

  /** This machine's folder for the memory: the data folder, or for a store on object storage its local folder (caches, lock, logs, staging). */
  get dataDir(): string {
    return this.location.dataDir;
  }

  private get location(): StorageHost['location'] {
    return this.storage.location;
  }

  private get settings(): StorageHost['settings'] {
    return this.storage.settings;
  }

  private storeExists(): Promise<boolean> {
    return this.storage.storeExists();
  }

  /** The engine, opened on first use (a new store loads the model to learn its dimension). */
  engine(): Promise<MemoryEngine> {
    if (this.closed) return Promise.reject(new EngineError('cancelled', 'the app is shutting down'));
    if (!this.enginePromise) {
      this.enginePromise = MemoryEngine.open({
        ...this.storage.engineOptions(this.location),
        ...(this.settings.model ? { model: this.settings.model } : {}),
        logger: this.logger,
        ...(this.options.embedWorkerUrl ? { embedWorkerUrl: this.options.embedWorkerUrl } : {}),
        ...(this.options.vectorIndexMinRows ? { vectorIndexMinRows: this.options.vectorIndexMinRows } : {}),
        onDownloadProgress: (p) => this.options.emit?.('onModelDownload', p),
        localTraces: sourceTraces,
      });
      this.enginePromise.then(
        // A store that outgrew a flat vector scan before this version (or while the app was closed) gets its index now.
        () => void this.maintainInBackground(),
        () => {
          this.enginePromise = null;
        },
      );
    }
    return this.enginePromise;
  }

  /** Every channel's handler: those of the memory and the app here, the others from the host's parts. */
  readonly handlers: Handlers;

  private readonly memoryHandlers: HandlersOf<'sessions:list' | 'sessions:show' | 'sessions:history' | 'chunks:inspect' | 'search:query' | 'store:verify' | 'sessions:forget' | 'duplicates:list' | 'duplicates:dismiss'> = {
    'sessions:list': async () => ((await this.storeExists()) ? (await this.engine()).listSessions() : []),
    'sessions:show': async ({ sessionId }) => {
      if (!(await this.storeExists())) throw new EngineError('not_found', `no session "${sessionId}" in this store`);
      return (await this.engine()).showSession(sessionId);
    },
    'sessions:history': async ({ sessionId }) => ((await this.storeExists()) ? (await this.engine()).history(sessionId) : []),
    'chunks:inspect': async ({ chunkId, similar }) => {
      if (!(await this.storeExists())) throw new EngineError('not_found', `no chunk "${chunkId}" in this store`);
      return (await this.engine()).inspectChunk(chunkId, similar ?? 5);
    },
    'search:query': async ({ query, limit, sessionId }) => ((await this.storeExists()) ? (await this.engine()).search(query, { ...(limit ? { limit } : {}), ...(sessionId ? { sessionId } : {}) }) : []),
    'store:verify': async ({ repair }) => ((await this.storeExists()) ? (await this.engine()).verify({ repair: Boolean(repair) }) : { ok: true, sessions: 0, messages: 0, chunks: 0, problems: [] }),
    'sessions:forget': async ({ sessionIds, messageIds }) => {
      if (this.imports.isRunning) throw new EngineError('invalid_request', 'an import is running; wait for it or cancel it before deleting');
      if (!(await this.storeExists())) throw new EngineError('not_found', `no session "${sessionIds[0]}" in this store; nothing was forgotten`);
      const engine = await this.engine();
      if (messageIds) {
        if (sessionIds.length !== 1) throw new EngineError('invalid_request', 'messages are forgotten from one session at a time');
        return [await engine.forgetMessages(sessionIds[0]!, messageIds)];
      }
      return engine.forget(sessionIds);
    },
    'duplicates:list': async ({ threshold, limit, includeDismissed }) => {
      if (!(await this.storeExists())) return { threshold: threshold ?? DUPLICATE_THRESHOLD, total: 0, dismissed: 0, clusters: [] };
      return (await this.engine()).duplicates({ ...(threshold !== undefined ? { threshold } : {}), ...(limit ? { limit } : {}), includeDismissed: Boolean(includeDismissed) });
    },
    // The threshold the view listed at is accepted but not needed: a cluster's id names it at every threshold.
    'duplicates:dismiss': async ({ clusterId }) => {
      if (!(await this.storeExists())) throw new EngineError('not_found', `no near-duplicate cluster ${clusterId} in this store`);
      return (await this.engine()).dismissDuplicates(clusterId);
    },
  };

  // Through `this.sources` at each call: a move of the memory starts another SourcesHost.
  private readonly sourcesHandlers: HandlersOf<'sources:list' | 'sources:set' | 'sources:sync'> = {
    'sources:list': async () => this.sources.list(),
    'sources:set': async ({ id, enabled }) => this.sources.setEnabled(id, enabled),
    'sources:sync': async ({ id }) => this.sources.sync(id),
  };

  private readonly appHandlers: HandlersOf<'app:openLogFolder'> = {
    'app:openLogFolder': async () => {
      const dir = this.appLog?.dir ?? path.join(this.location.dataDir, LOG_FOLDER);
      if (!this.options.openFolder) return { opened: false, path: dir };
      await fs.mkdir(dir, { recursive: true });
      await this.options.openFolder(dir);
      return { opened: true, path: dir };
    },
  };

  /** Restarts what lives in this machine's folder of the memory (sources, the hooks' door, the log) in the current one. */
  private async followLocalFolder(): Promise<void> {
    await this.sources.close();
    this.sources = this.startSources();
    if (this.appLog && this.appLog.dir !== path.join(this.location.dataDir, LOG_FOLDER)) {
      await this.appLog.close();
      this.appLog = openAppLog(this.location.dataDir);
    }
  }

  /** A file streamed in (web mode's upload), written to disk as it arrives. */
  stageStream(name: string, body: Readable): Promise<ResponseMap['files:stage']> {
    return this.imports.stageStream(name, body);
  }

  /** A file dropped on the desktop app, by its path: read where it lies. */
  stagePath(filePath: string): Promise<ResponseMap['files:stage']> {
    return this.imports.stagePath(filePath);
  }

  private maintaining = false;

  /**
   * Once the store has outgrown a flat vector scan, builds its vector index in the background
   * (minutes on a large store; imports and searches go on meanwhile). A failure is logged and the
   * next import tries again: searches stay exact without the index, only slower.
   */
  private async maintainInBackground(): Promise<void> {
    if (this.maintaining || this.closed || !this.enginePromise) return;
    this.maintaining = true;
    try {
      const engine = await this.enginePromise;
      if (!(await engine.maintenanceDue())) return;
      this.options.logger?.info(`building the vector index of ${await engine.store.countChunks()} chunks in the background`);
      const report = await engine.maintain();
      this.options.logger?.info(`vector index built in ${(report.vectorIndexMs / 1000).toFixed(1)} s; store compacted in ${(report.compactMs / 1000).toFixed(1)} s`);
    } catch (error) {
      if (!this.closed) this.options.logger?.warn(`building the vector index failed; the next import tries again: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.maintaining = false;
    }
  }

  private async closeEngine(): Promise<void> {
    const engine = this.enginePromise;
    this.enginePromise = null;
    if (engine) await (await engine.catch(() => null))?.close();
  }

  /** Cancels a running import (its written commits stay whole), then closes the store and removes staged files. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.imports.cancel();
    this.closed = true;
    await this.sources.close();
    await this.closeEngine();
    await this.imports.close();
    await this.appLog?.close();
  }
}

