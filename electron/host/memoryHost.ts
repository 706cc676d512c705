/**
 * Hosts the engine for a UI: the handlers behind every IPC channel, shared by the Electron main
 * process and the web-mode server. Plain Node: no Electron here, so every handler is tested directly.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { DeletedObjectRetention, SaveReport } from '../../shared/domain.js';
import type { PersistedSettings } from './settingsFile.js';
import type { Channel, EventMap, EventName, McpLaunch, FilePreview, ImportResult, RequestMap, ResponseMap, Settings, StorageView } from '../../shared/ipc.js';
import type { Readable } from 'node:stream';
import { StagingArea, stagingDirOf, type StagedFile } from './staging.js';
import { DEFAULT_MODEL, OFFLINE_MODEL } from '../embedding/models.js';
import { MemoryEngine, type Logger } from '../engine/engine.js';
import { DUPLICATE_THRESHOLD } from '../engine/duplicates/index.js';
import { EngineError } from '../engine/errors.js';
import { ChunkStore, storeRetention } from '../engine/store/index.js';
import type { EngineLocation } from '../engine/files/index.js';
import { chosenLocation, copyMemory, locateOrRefuse } from './storeChoice.js';
import { sourceTraces } from '../sources/forgottenSessions.js';
import { carrySourceSettings } from '../sources/sourceSettings.js';
import { storeKindOf } from '../../shared/storeUri.js';
import { machineName } from '../engine/engine.js';
import { LOG_FOLDER, openAppLog, type AppLog } from './appLog.js';
import { importFiles, previewFiles } from './stagedImport.js';
import { SourcesHost, type SourcesHostOptions } from './sourcesHost.js';

export type Handlers = { [C in Channel]: (request: RequestMap[C]) => Promise<ResponseMap[C]> };

export interface MemoryHostOptions {
  /** Where the memory lives: a folder, or a store URI (`s3+ddb://…`, `s3://…`, `gs://…`, `az://…`). */
  dataDir: string;
  /** Only this machine writes to the shared store: an `s3://` store without conditional writes is used all the same. */
  singleWriter?: boolean;
  model?: string;
  modelsDir?: string;
  language?: Settings['language'];
  theme?: Settings['theme'];
  /** Default true. */
  redactSecrets?: boolean;
  nativeDialogs?: boolean;
  /** Pushes an event to the UI. */
  emit?: <E extends EventName>(event: E, payload: EventMap[E]) => void;
  /** Called when settings change, with what the person chose (the model only once they chose one), so the shell can persist it. */
  onSettingsChanged?: (settings: PersistedSettings) => void;
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
  /** How to start the CLI (`session-memory`) from outside: the app's binary in a package, node and the bin script in a checkout. */
  cliLauncher?: { command: string; args: string[]; env?: Record<string, string> };
  /** Sources: background sync of those a person turned on, and hooks' saves handed over (the app and web mode). Off when absent. */
  sources?: Pick<SourcesHostOptions, 'intervalMs' | 'serveHooks' | 'discover'>;
}

export { toErrorInfo } from './appReports.js';

export { stagedFileName } from './staging.js';

export class MemoryHost {
  private enginePromise: Promise<MemoryEngine> | null = null;
  private readonly staging: StagingArea;
  private running: AbortController | null = null;
  private runningJob: Promise<unknown> | null = null;
  private settings: Omit<Settings, 'storeModel' | 'model' | 'mcpServer' | 'hookCommand' | 'logDir' | 'storage'> & { model?: string };
  /** Where `settings.dataDir` leads: this machine's folder for it, the store's URI. */
  private location: EngineLocation;
  /** A store on object storage found once is not looked for again at every request. */
  private storeFound = false;
  private sources: SourcesHost;
  private closed = false;
  private appLog: AppLog | null = null;
  private retention: { uri: string; answer: Promise<DeletedObjectRetention | null> } | null = null;

  constructor(private readonly options: MemoryHostOptions) {
    this.staging = new StagingArea(options.stagingDir ?? (() => stagingDirOf(this.location.dataDir)));
    const chosen = chosenLocation(options.dataDir);
    this.location = locateOrRefuse(chosen);
    this.settings = {
      dataDir: chosen,
      ...(options.model ? { model: options.model } : {}),
      defaultModel: DEFAULT_MODEL,
      offlineModel: OFFLINE_MODEL,
      language: options.language ?? 'system',
      theme: options.theme ?? 'system',
      redactSecrets: options.redactSecrets ?? true,
      nativeDialogs: options.nativeDialogs ?? false,
    };
    if (options.fileLog) this.appLog = openAppLog(this.location.dataDir);
    try {
      const swept = this.staging.sweep();
      if (swept.length > 0) this.logger.info(`deleted ${swept.length} staged upload folder(s) that a run which did not finish left behind`);
    } catch (error) {
      this.logger.warn(`staged uploads left by an earlier run could not be deleted: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.sources = this.startSources();
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

  private get storeUri(): string {
    return this.location.storeUri;
  }

  private async storeExists(): Promise<boolean> {
    if (!this.location.shared) return existsSync(this.location.dataDir) && (await ChunkStore.readModel(this.storeUri)) !== null;
    this.storeFound ||= (await ChunkStore.readModel(this.storeUri)) !== null;
    return this.storeFound;
  }

  private engineOptions(location: EngineLocation): { dataDir: string; storeUri: string; modelsDir?: string; singleWriter?: boolean } {
    const modelsDir = this.options.modelsDir ?? location.modelsDir;
    return { dataDir: location.dataDir, storeUri: location.storeUri, ...(modelsDir ? { modelsDir } : {}), ...(this.options.singleWriter ? { singleWriter: true } : {}) };
  }

  /** The engine, opened on first use (a new store loads the model to learn its dimension). */
  engine(): Promise<MemoryEngine> {
    if (this.closed) return Promise.reject(new EngineError('cancelled', 'the app is shutting down'));
    if (!this.enginePromise) {
      this.enginePromise = MemoryEngine.open({
        ...this.engineOptions(this.location),
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

  readonly handlers: Handlers = {
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
    'files:stage': async ({ name, dataBase64 }) => this.staging.stageBytes(name, Buffer.from(dataBase64, 'base64')),
    'import:preview': async ({ fileIds, include, mode, syncDeletes }) => this.preview(fileIds, include, { mode: (mode as SaveReport['mode'] | undefined) ?? 'incremental', syncDeletes: Boolean(syncDeletes) }),
    'import:run': async (request) => this.runImport(request),
    'import:cancel': async () => {
      const running = this.running;
      running?.abort();
      return { cancelled: running !== null };
    },
    'search:query': async ({ query, limit, sessionId }) => ((await this.storeExists()) ? (await this.engine()).search(query, { ...(limit ? { limit } : {}), ...(sessionId ? { sessionId } : {}) }) : []),
    'store:verify': async ({ repair }) => ((await this.storeExists()) ? (await this.engine()).verify({ repair: Boolean(repair) }) : { ok: true, sessions: 0, messages: 0, chunks: 0, problems: [] }),
    'sessions:forget': async ({ sessionIds, messageIds }) => {
      if (this.running) throw new EngineError('invalid_request', 'an import is running; wait for it or cancel it before deleting');
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
    'sources:list': async () => this.sources.list(),
    'sources:set': async ({ id, enabled }) => this.sources.setEnabled(id, enabled),
    'sources:sync': async ({ id }) => this.sources.sync(id),
    'settings:get': async () => this.currentSettings(),
    'settings:set': async (changes) => this.changeSettings(changes),
    'store:writers': async ({ days }) => ((await this.storeExists()) ? (await this.engine()).recentWriters(days ?? 30) : []),
    'store:change': async ({ to, copy }) => {
      const chosen = chosenLocation(to);
      if (copy) await this.copyTo(chosen);
      return this.changeSettings({ dataDir: chosen });
    },
    'app:openLogFolder': async () => {
      const dir = this.appLog?.dir ?? path.join(this.location.dataDir, LOG_FOLDER);
      if (!this.options.openFolder) return { opened: false, path: dir };
      await fs.mkdir(dir, { recursive: true });
      await this.options.openFolder(dir);
      return { opened: true, path: dir };
    },
  };

  /** The MCP server of this store, as an assistant's configuration names it. */
  private mcpServer(): McpLaunch | null {
    const launcher = this.options.cliLauncher;
    if (!launcher) return null;
    const env: Record<string, string> = { ...launcher.env };
    // The app keeps models apart from the data; the server must find them there, not download them again.
    if (this.options.modelsDir) env.SESSION_MEMORY_MODELS_DIR = this.options.modelsDir;
    return { command: launcher.command, args: [...launcher.args, '--data', this.settings.dataDir, ...(this.options.singleWriter ? ['--single-writer'] : []), 'mcp'], env };
  }

  /** Where the memory lives, as Settings › Storage shows it. */
  private storageView(): StorageView {
    return { kind: storeKindOf(this.storeUri), display: this.location.display, localDir: this.location.dataDir, shared: this.location.shared, machine: machineName() };
  }

  /**
   * Whether the store's provider keeps deleted objects (Settings › Storage says so, since forgotten
   * text stays there): asked once per place the app points at, never failing the settings.
   */
  private async retentionView(): Promise<{ retention?: DeletedObjectRetention }> {
    const uri = this.storeUri;
    if (this.retention?.uri !== uri) this.retention = { uri, answer: storeRetention(uri).catch(() => null) };
    const retention = await this.retention.answer;
    return retention ? { retention } : {};
  }

  /**
   * Copies the current memory to `chosen` before the app moves there. Everything that would refuse
   * the move refuses the copy first (a running import, a bad URI, a store its writers could not
   * share safely), so nothing is copied to a place the app would not use.
   */
  private async copyTo(chosen: string): Promise<void> {
    if (chosen === this.settings.dataDir) throw new EngineError('invalid_input', `${this.location.display} is the memory in use; name another folder or store to copy it to`);
    if (this.running) throw new EngineError('invalid_request', 'an import is running; wait for it or cancel it before changing the store or the model');
    if (!(await this.storeExists())) throw new EngineError('invalid_input', `${this.location.display} holds no memory yet: there is nothing to copy; move without copying`);
    await MemoryEngine.checkWritable(this.engineOptions(locateOrRefuse(chosen)));
    await copyMemory(this.settings.dataDir, chosen, this.options.singleWriter ? { singleWriter: true } : {});
  }

  /** The hook command of this store (`session-memory --data <folder> hook`), as assistants' hook settings name it. */
  private hookCommand(): McpLaunch | null {
    const server = this.mcpServer();
    return server ? { ...server, args: [...server.args.slice(0, -1), 'hook'] } : null;
  }

  private async currentSettings(): Promise<Settings> {
    const stored = await ChunkStore.readModel(this.storeUri).catch(() => null);
    return {
      ...this.settings,
      storage: { ...this.storageView(), ...(await this.retentionView()) },
      mcpServer: this.mcpServer(),
      hookCommand: this.hookCommand(),
      logDir: this.appLog?.dir ?? null,
      model: stored?.model ?? this.settings.model ?? process.env.SESSION_MEMORY_MODEL ?? DEFAULT_MODEL,
      storeModel: stored?.model ?? null,
    };
  }

  private async changeSettings(changes: RequestMap['settings:set']): Promise<Settings> {
    const previous = { ...this.settings };
    const previousLocation = this.location;
    const chosen = changes.dataDir !== undefined ? chosenLocation(changes.dataDir) : undefined;
    const moved = chosen !== undefined && chosen !== this.settings.dataDir;
    const reopen = moved || (changes.model !== undefined && changes.model !== this.settings.model);
    if (changes.language) this.settings.language = changes.language;
    if (changes.theme) this.settings.theme = changes.theme;
    if (changes.redactSecrets !== undefined) this.settings.redactSecrets = changes.redactSecrets;
    if (reopen) {
      if (this.running) throw new EngineError('invalid_request', 'an import is running; wait for it or cancel it before changing the store or the model');
      const location = moved ? locateOrRefuse(chosen) : this.location;
      // A store its writers could not share safely is refused before the app leaves the current one.
      if (moved) await MemoryEngine.checkWritable(this.engineOptions(location));
      if (moved) this.settings.dataDir = chosen;
      if (changes.model !== undefined) this.settings.model = changes.model;
      await this.closeEngine();
      this.location = location;
      this.storeFound = false;
      // Sources' choices, cursors, the hooks' door and the log live in this machine's folder of the memory: they follow it.
      // The choices are carried there first (unless that place has its own), so that sources stay on.
      if (moved) await carrySourceSettings(previousLocation.dataDir, location.dataDir);
      if (moved) await this.followLocalFolder();
      try {
        // Open now, so a wrong model or an unusable folder is reported here, not at the next save.
        if (await this.storeExists()) await this.engine();
        else if (changes.model !== undefined) await (await this.engine()).embedder();
      } catch (error) {
        await this.closeEngine();
        this.settings = previous;
        if (this.location !== previousLocation) {
          this.location = previousLocation;
          this.storeFound = false;
          await this.followLocalFolder();
        }
        throw error;
      }
    }
    const { dataDir, model, language, theme, redactSecrets } = this.settings;
    this.options.onSettingsChanged?.({ dataDir, ...(model !== undefined ? { model } : {}), language, theme, ...(redactSecrets ? {} : { redactSecrets }) });
    return this.currentSettings();
  }

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
    return this.staging.stageStream(name, body);
  }

  /** A file dropped on the desktop app, by its path: read where it lies. */
  stagePath(filePath: string): Promise<ResponseMap['files:stage']> {
    return this.staging.stagePath(filePath);
  }

  private stagedFile(fileId: string): StagedFile {
    return this.staging.get(fileId);
  }


  private preview(fileIds: string[], include: Array<'tools' | 'thinking'> | undefined, saveOptions: { mode: SaveReport['mode']; syncDeletes: boolean }): Promise<FilePreview[]> {
    const files = fileIds.map((id) => ({ fileId: id, staged: this.stagedFile(id) }));
    return previewFiles(files, () => this.engine(), { ...saveOptions, redact: this.settings.redactSecrets, ...(include ? { include } : {}) });
  }

  private async runImport(request: RequestMap['import:run']): Promise<ImportResult> {
    if (this.running) throw new EngineError('invalid_request', 'an import is already running');
    const files = request.fileIds.map((id) => ({ fileId: id, staged: this.stagedFile(id) }));
    const controller = new AbortController();
    this.running = controller;
    const job = importFiles(files, () => this.engine(), {
      ...(request.sessionIds ? { sessionIds: request.sessionIds } : {}),
      ...(request.include ? { include: request.include } : {}),
      mode: (request.mode as SaveReport['mode'] | undefined) ?? 'incremental',
      syncDeletes: Boolean(request.syncDeletes),
      redact: this.settings.redactSecrets,
      signal: controller.signal,
      onProgress: (p) => this.options.emit?.('onSaveProgress', p),
    });
    this.runningJob = job;
    try {
      return await job;
    } finally {
      // The import is over (done, failed or cancelled): copies made for it are deleted.
      await this.staging.release(request.fileIds).catch((error: Error) => this.logger.warn(`staged files could not be removed: ${error.message}`));
      this.running = null;
      this.runningJob = null;
      void this.maintainInBackground();
    }
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
    this.running?.abort();
    await this.runningJob?.catch(() => {});
    this.closed = true;
    await this.sources.close();
    await this.closeEngine();
    await this.staging.close();
    await this.appLog?.close();
  }
}

