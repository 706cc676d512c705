/**
 * Imports in the app: the files staged for them (dropped, picked or uploaded), the preview of what
 * an import would change, and the one import that runs at a time, which can be cancelled.
 */
import type { Readable } from 'node:stream';
import type { SaveReport } from '../../shared/domain.js';
import type { EventMap, FilePreview, ImportResult, RequestMap, ResponseMap } from '../../shared/ipc.js';
import type { MemoryEngine } from '../engine/engine.js';
import { EngineError } from '../engine/errors.js';
import type { AppLog } from './appLog.js';
import type { HandlersOf } from './handlers.js';
import { importFiles, previewFiles } from './stagedImport.js';
import { StagingArea, type StagedFile } from './staging.js';

export interface ImportsHostOptions {
  /** Where files are staged (a function: the folder follows the memory when it moves). */
  stagingDir: string | (() => string);
  engine: () => Promise<MemoryEngine>;
  redact: () => boolean;
  /** Pushes a save's progress to the UI. */
  onSaveProgress: (progress: EventMap['onSaveProgress']) => void;
  logger: Pick<AppLog, 'info' | 'warn'>;
  /** Called when an import is over (done, failed or cancelled). */
  onImportOver: () => void;
}

export class ImportsHost {
  private readonly staging: StagingArea;
  private running: AbortController | null = null;
  private runningJob: Promise<unknown> | null = null;

  constructor(private readonly options: ImportsHostOptions) {
    this.staging = new StagingArea(options.stagingDir);
  }

  /** Deletes the staged files a run that did not finish left behind. */
  sweep(): void {
    try {
      const swept = this.staging.sweep();
      if (swept.length > 0) this.options.logger.info(`deleted ${swept.length} staged upload folder(s) that a run which did not finish left behind`);
    } catch (error) {
      this.options.logger.warn(`staged uploads left by an earlier run could not be deleted: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Whether an import runs now (a forget, a move of the store or a change of model waits for it). */
  get isRunning(): boolean {
    return this.running !== null;
  }

  readonly handlers: HandlersOf<'files:stage' | 'import:preview' | 'import:run' | 'import:cancel'> = {
    'files:stage': async ({ name, dataBase64 }) => this.staging.stageBytes(name, Buffer.from(dataBase64, 'base64')),
    'import:preview': async ({ fileIds, include, mode, syncDeletes }) => this.preview(fileIds, include, { mode: (mode as SaveReport['mode'] | undefined) ?? 'incremental', syncDeletes: Boolean(syncDeletes) }),
    'import:run': async (request) => this.runImport(request),
    'import:cancel': async () => {
      const running = this.running;
      running?.abort();
      return { cancelled: running !== null };
    },
  };

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
    return previewFiles(files, () => this.options.engine(), { ...saveOptions, redact: this.options.redact(), ...(include ? { include } : {}) });
  }

  private async runImport(request: RequestMap['import:run']): Promise<ImportResult> {
    if (this.running) throw new EngineError('invalid_request', 'an import is already running');
    const files = request.fileIds.map((id) => ({ fileId: id, staged: this.stagedFile(id) }));
    const controller = new AbortController();
    this.running = controller;
    const job = importFiles(files, () => this.options.engine(), {
      ...(request.sessionIds ? { sessionIds: request.sessionIds } : {}),
      ...(request.unforget ? { unforget: request.unforget } : {}),
      ...(request.include ? { include: request.include } : {}),
      mode: (request.mode as SaveReport['mode'] | undefined) ?? 'incremental',
      syncDeletes: Boolean(request.syncDeletes),
      redact: this.options.redact(),
      signal: controller.signal,
      onProgress: (p) => this.options.onSaveProgress(p),
    });
    this.runningJob = job;
    try {
      return await job;
    } finally {
      // The import is over (done, failed or cancelled): copies made for it are deleted.
      await this.staging.release(request.fileIds).catch((error: Error) => this.options.logger.warn(`staged files could not be removed: ${error.message}`));
      this.running = null;
      this.runningJob = null;
      this.options.onImportOver();
    }
  }

  /** Cancels a running import and waits for it to stop (its written commits stay whole). */
  async cancel(): Promise<void> {
    this.running?.abort();
    await this.runningJob?.catch(() => {});
  }

  /** Removes the staged files. */
  close(): Promise<void> {
    return this.staging.close();
  }
}
