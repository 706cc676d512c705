/**
 * Where the memory lives and the settings that choose it: the data folder or store, the model, and
 * the app's other choices (Settings, with its Storage section), with the channels that read and
 * change them. A move to another folder or store, or another model, reopens the engine there.
 */
import { existsSync } from 'node:fs';
import type { DeletedObjectRetention } from '../../shared/domain.js';
import type { McpLaunch, RequestMap, Settings, StorageView } from '../../shared/ipc.js';
import { storeKindOf } from '../../shared/storeUri.js';
import { DEFAULT_MODEL, OFFLINE_MODEL } from '../embedding/models.js';
import { machineName, MemoryEngine } from '../engine/engine.js';
import { EngineError } from '../engine/errors.js';
import type { EngineLocation } from '../engine/files/index.js';
import { ChunkStore, storeRetention } from '../engine/store/index.js';
import { carrySourceSettings } from '../sources/sourceSettings.js';
import type { HandlersOf } from './handlers.js';
import type { PersistedSettings } from './settingsFile.js';
import { chosenLocation, copyMemory, locateOrRefuse } from './storeChoice.js';

export interface StorageHostOptions {
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
  /** Called when settings change, with what the person chose (the model only once they chose one), so the shell can persist it. */
  onSettingsChanged?: (settings: PersistedSettings) => void;
  /** How to start the CLI (`session-memory`) from outside: the app's binary in a package, node and the bin script in a checkout. */
  cliLauncher?: { command: string; args: string[]; env?: Record<string, string> };
}

/** What a change of store or model needs of the rest of the host. */
export interface StorageHostParts {
  /** The engine, opened on first use. */
  engine(): Promise<MemoryEngine>;
  closeEngine(): Promise<void>;
  /** Whether an import runs now: the store and the model are not changed under it. */
  importRunning(): boolean;
  /** Restarts what lives in this machine's folder of the memory in the current one, after a move. */
  followLocalFolder(): Promise<void>;
  /** The folder of the app's log, when it keeps one. */
  logDir(): string | null;
}

export class StorageHost {
  settings: Omit<Settings, 'storeModel' | 'model' | 'mcpServer' | 'hookCommand' | 'logDir' | 'storage'> & { model?: string };
  /** Where `settings.dataDir` leads: this machine's folder for it, the store's URI. */
  location: EngineLocation;
  /** A store on object storage found once is not looked for again at every request. */
  private storeFound = false;
  private retention: { uri: string; answer: Promise<DeletedObjectRetention | null> } | null = null;

  constructor(
    private readonly options: StorageHostOptions,
    private readonly host: StorageHostParts,
  ) {
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
  }

  readonly handlers: HandlersOf<'settings:get' | 'settings:set' | 'store:writers' | 'store:change'> = {
    'settings:get': async () => this.currentSettings(),
    'settings:set': async (changes) => this.changeSettings(changes),
    'store:writers': async ({ days }) => ((await this.storeExists()) ? (await this.host.engine()).recentWriters(days ?? 30) : []),
    'store:change': async ({ to, copy }) => {
      const chosen = chosenLocation(to);
      if (copy) await this.copyTo(chosen);
      return this.changeSettings({ dataDir: chosen });
    },
  };

  private get storeUri(): string {
    return this.location.storeUri;
  }

  async storeExists(): Promise<boolean> {
    if (!this.location.shared) return existsSync(this.location.dataDir) && (await ChunkStore.readModel(this.storeUri)) !== null;
    this.storeFound ||= (await ChunkStore.readModel(this.storeUri)) !== null;
    return this.storeFound;
  }

  engineOptions(location: EngineLocation): { dataDir: string; storeUri: string; modelsDir?: string; singleWriter?: boolean } {
    const modelsDir = this.options.modelsDir ?? location.modelsDir;
    return { dataDir: location.dataDir, storeUri: location.storeUri, ...(modelsDir ? { modelsDir } : {}), ...(this.options.singleWriter ? { singleWriter: true } : {}) };
  }

  /** The MCP server of this store, as an assistant's configuration names it (Settings › Connect an assistant writes it too). */
  mcpServer(): McpLaunch | null {
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
    if (this.host.importRunning()) throw new EngineError('invalid_request', 'an import is running; wait for it or cancel it before changing the store or the model');
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
      logDir: this.host.logDir(),
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
      if (this.host.importRunning()) throw new EngineError('invalid_request', 'an import is running; wait for it or cancel it before changing the store or the model');
      const location = moved ? locateOrRefuse(chosen) : this.location;
      // A store its writers could not share safely is refused before the app leaves the current one.
      if (moved) await MemoryEngine.checkWritable(this.engineOptions(location));
      if (moved) this.settings.dataDir = chosen;
      if (changes.model !== undefined) this.settings.model = changes.model;
      await this.host.closeEngine();
      this.location = location;
      this.storeFound = false;
      // Sources' choices, cursors, the hooks' door and the log live in this machine's folder of the memory: they follow it.
      // The choices are carried there first (unless that place has its own), so that sources stay on.
      if (moved) await carrySourceSettings(previousLocation.dataDir, location.dataDir);
      if (moved) await this.host.followLocalFolder();
      try {
        // Open now, so a wrong model or an unusable folder is reported here, not at the next save.
        if (await this.storeExists()) await this.host.engine();
        else if (changes.model !== undefined) await (await this.host.engine()).embedder();
      } catch (error) {
        await this.host.closeEngine();
        this.settings = previous;
        if (this.location !== previousLocation) {
          this.location = previousLocation;
          this.storeFound = false;
          await this.host.followLocalFolder();
        }
        throw error;
      }
    }
    const { dataDir, model, language, theme, redactSecrets } = this.settings;
    this.options.onSettingsChanged?.({ dataDir, ...(model !== undefined ? { model } : {}), language, theme, ...(redactSecrets ? {} : { redactSecrets }) });
    return this.currentSettings();
  }
}
