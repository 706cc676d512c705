/**
 * The app's import of staged files: a preview (what each save would do, nothing written) and the
 * import itself, file by file and session by session through the engine. A file that cannot be read,
 * or a session whose save fails, ends that file with its error; the files after it are still read.
 */
import type { SaveProgress, SaveReport } from '../../shared/domain.js';
import type { FilePreview, ImportResult } from '../../shared/ipc.js';
import type { MemoryEngine } from '../engine/engine.js';
import { EngineError } from '../engine/errors.js';
import { readTranscripts } from '../importers/index.js';
import { forTheApp, incompleteOf, skippedPart, toErrorInfo } from './appReports.js';
import type { StagedFile } from './staging.js';

export interface StagedEntry {
  fileId: string;
  staged: StagedFile;
}

interface ReadOptions {
  include?: Array<'tools' | 'thinking'>;
  mode: SaveReport['mode'];
  syncDeletes: boolean;
  redact: boolean;
}

/** What saving each session of these files would do (a dry run of every save). */
export async function previewFiles(files: readonly StagedEntry[], engineOf: () => Promise<MemoryEngine>, options: ReadOptions): Promise<FilePreview[]> {
  const previews: FilePreview[] = [];
  for (const { fileId, staged } of files) {
    const preview: FilePreview = { fileId, name: staged.name, sessions: [] };
    previews.push(preview);
    for await (const file of readTranscripts([staged.path], options.include ? { include: options.include } : {})) {
      // An entry of an archive that holds no message is passed over (read.ts), as the CLI does.
      if ('error' in file && file.passedOver) continue;
      if ('error' in file) {
        preview.error = toErrorInfo(file.error);
        break;
      }
      preview.format = file.format;
      if (file.encoding) preview.encoding = file.encoding;
      try {
        const engine = await engineOf();
        for await (const session of file.sessions) {
          const saveOptions = { mode: options.mode, syncDeletes: options.syncDeletes, redact: options.redact, dryRun: true, ...incompleteOf(file) };
          const report = await engine.save(session, saveOptions);
          // A forgotten session is left out unless the person ticks it: the preview says what saving it again would do.
          const row = report.forgotten ? { ...forTheApp(await engine.save(session, { ...saveOptions, unforget: true }), session.title), forgotten: true } : forTheApp(report, session.title);
          preview.sessions.push(row);
        }
      } catch (error) {
        preview.error = toErrorInfo(error);
        preview.sessions = [];
      }
      if (!preview.error && file.skipped.length > 0) preview.skipped = file.skipped.map(skippedPart);
    }
  }
  return previews;
}

/**
 * Saves the sessions of these files (those of `sessionIds` when given) until done or `signal` is
 * aborted. A forgotten session is saved again only when it is in `unforget` (the person ticked it).
 * A cancelled save leaves its written commits whole, and the result says it was cancelled.
 */
export async function importFiles(
  files: readonly StagedEntry[],
  engineOf: () => Promise<MemoryEngine>,
  options: ReadOptions & { sessionIds?: readonly string[]; unforget?: readonly string[]; signal: AbortSignal; onProgress?: (progress: SaveProgress & { fileIndex: number; fileCount: number }) => void },
): Promise<ImportResult> {
  const { signal } = options;
  const result: ImportResult = { files: [], cancelled: false };
  const wanted = options.sessionIds ? new Set(options.sessionIds) : null;
  const unforget = new Set(options.unforget ?? []);
  for (const [index, { fileId, staged }] of files.entries()) {
    const entry: ImportResult['files'][number] = { fileId, name: staged.name, reports: [] };
    result.files.push(entry);
    for await (const file of readTranscripts([staged.path], options.include ? { include: options.include } : {})) {
      if ('error' in file && file.passedOver) continue;
      if ('error' in file) {
        entry.error = toErrorInfo(file.error);
        break;
      }
      entry.format = file.format;
      const engine = await engineOf();
      for await (const session of file.sessions) {
        if (wanted && !wanted.has(session.sessionId)) continue;
        if (signal.aborted) break;
        try {
          const report: SaveReport = await engine.save(session, {
            mode: options.mode,
            syncDeletes: options.syncDeletes,
            redact: options.redact,
            signal,
            ...(unforget.has(session.sessionId) ? { unforget: true } : {}),
            ...incompleteOf(file),
            onProgress: (p) => options.onProgress?.({ ...p, fileIndex: index, fileCount: files.length }),
          });
          entry.reports.push(forTheApp(report));
        } catch (error) {
          if (error instanceof EngineError && error.code === 'cancelled') break;
          entry.error = toErrorInfo(error);
          break;
        }
      }
      if (file.skipped.length > 0) entry.skipped = file.skipped.map(skippedPart);
    }
    if (signal.aborted) break;
  }
  result.cancelled = signal.aborted;
  return result;
}
