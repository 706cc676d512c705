/**
 * Sources in the app: what is found on this machine, which a person turned on, and a sync of
 * those in the background while the app runs (a look every few seconds, which reads only files
 * that changed). Nothing is read from a source before a person turns it on. While the app runs,
 * hooks hand their saves to it (sources/handoff.ts) instead of opening the store themselves.
 */
import type { SaveReport } from '../../shared/domain.js';
import type { SourceView } from '../../shared/ipc.js';
import { EngineError } from '../engine/errors.js';
import { SourceCursors } from '../sources/cursors.js';
import { discoverSources, type DiscoverOptions, type FoundSource } from '../sources/discover.js';
import { serveHandoff, type HandoffServer } from '../sources/handoff.js';
import type { SavingEngine } from '../sources/saveFile.js';
import { loadSourceSettings, saveSourceSettings, type SourceSettings } from '../sources/sourceSettings.js';
import { syncFile, syncSources, type SourceSyncResult, type SyncOptions } from '../sources/sync.js';
import type { AppLog } from './appLog.js';

export interface SourcesHostOptions {
  dataDir: () => string;
  engine: () => Promise<SavingEngine>;
  redact: () => boolean;
  logger: Pick<AppLog, 'info' | 'warn'>;
  /** How often enabled sources are looked at while the app runs (default 10 s); 0: only when asked. */
  intervalMs?: number;
  /** Serve hooks' saves (the desktop app and web mode do). */
  serveHooks?: boolean;
  /** Where sources are looked for (tests point HOME and the tools' variables elsewhere). */
  discover?: DiscoverOptions;
}

export class SourcesHost {
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private server: Promise<HandoffServer | null> | null = null;
  private closed = false;

  constructor(private readonly options: SourcesHostOptions) {}

  /** Starts the background sync and the hooks' door. */
  start(): void {
    const every = this.options.intervalMs ?? 10_000;
    if (every > 0 && !this.timer) {
      this.timer = setInterval(() => void this.sync().catch((error: Error) => this.options.logger.warn(`background sync failed: ${error.message}`)), every);
      this.timer.unref?.();
    }
    if (this.options.serveHooks && !this.server) {
      this.server = serveHandoff(this.options.dataDir(), (request, reply) =>
        this.serial(async () => {
          const cursors = await SourceCursors.load(this.options.dataDir());
          await syncFile('hook', request.file, 'files', {
            ...this.syncOptions(cursors),
            ...(request.include ? { include: request.include } : {}),
            onReport: (source, file, report) => reply({ report: { source, file, ...report } }),
            onError: (_source, file, message) => reply({ error: message, file }),
          });
          return true;
        }),
        // A saver a hook left running gives way to the app.
        { takeOver: true },
      ).catch((error: Error) => {
        this.options.logger.warn(`hooks cannot hand their saves to the app (${error.message}); they save on their own`);
        return null;
      });
    }
  }

  async list(): Promise<SourceView[]> {
    const settings = await loadSourceSettings(this.options.dataDir());
    return (await this.found(settings)).map((source) => this.view(source, settings));
  }

  async setEnabled(id: string, enabled: boolean): Promise<SourceView[]> {
    await this.serial(async () => {
      const settings = await loadSourceSettings(this.options.dataDir());
      if (!(await this.found(settings)).some((s) => s.id === id)) throw new EngineError('not_found', `no source "${id}" on this computer`);
      settings.enabled[id] = enabled;
      await saveSourceSettings(this.options.dataDir(), settings);
    });
    // A source just turned on is saved at once, not at the next look.
    if (enabled) await this.sync(id);
    return this.list();
  }

  /** Saves what is new in the enabled sources (or the one named). Returns the sources as they are after it. */
  async sync(id?: string): Promise<SourceView[]> {
    if (this.closed) return [];
    await this.serial(async () => {
      const dataDir = this.options.dataDir();
      const settings = await loadSourceSettings(dataDir);
      const wanted = (await this.found(settings)).filter((s) => settings.enabled[s.id] === true && (id === undefined || s.id === id));
      if (wanted.length === 0) return;
      const results = await syncSources(wanted, this.syncOptions(await SourceCursors.load(dataDir)));
      // Written again after the sync: a source turned off meanwhile stays off.
      const latest = await loadSourceSettings(dataDir);
      for (const result of results) this.record(latest, result);
      await saveSourceSettings(dataDir, latest);
    });
    return this.list();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await (await this.server)?.close();
    this.server = null;
    await this.queue.catch(() => {});
  }

  /** One source job at a time: a background sync, a hook's save and a person's click never overlap. */
  private serial<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => {});
    return next;
  }

  private syncOptions(cursors: SourceCursors): SyncOptions {
    return {
      cursors,
      engine: this.options.engine,
      redact: this.options.redact(),
      onReport: (source: string, file: string, report: SaveReport) => {
        if (report.new + report.updated > 0) this.options.logger.info(`${source}: saved ${report.new} new messages of ${report.sessionId} from ${file}`);
      },
      onError: (source, _file, message) => this.options.logger.warn(`${source}: ${message}`),
    };
  }

  private found(settings: SourceSettings): Promise<FoundSource[]> {
    return discoverSources({ ...this.options.discover, personFolders: settings.folders });
  }

  private record(settings: SourceSettings, result: SourceSyncResult): void {
    const before = settings.status[result.id];
    const changed = result.filesSaved > 0 || result.errors.length > 0;
    settings.status[result.id] = {
      lastSync: new Date().toISOString(),
      // A sync with nothing new keeps what the last one that saved something said.
      sessionsSaved: changed ? result.sessionsSaved : (before?.sessionsSaved ?? 0),
      errors: changed ? result.errors : (before?.errors ?? []),
      ...(result.unsupported ? { unsupported: result.unsupported } : {}),
    };
  }

  private view(source: FoundSource, settings: SourceSettings): SourceView {
    const status = settings.status[source.id];
    return {
      id: source.id,
      tool: source.tool,
      path: source.path,
      sessions: source.sessions,
      lastModified: source.lastModified,
      enabled: settings.enabled[source.id] === true,
      imports: source.picks.some((p) => p.pick.imports),
      lastSync: status?.lastSync ?? null,
      sessionsSaved: status?.sessionsSaved ?? 0,
      errors: [...(status?.errors ?? []), ...(status?.unsupported ? [status.unsupported] : [])],
    };
  }
}
