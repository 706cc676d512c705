/**
 * The app's import of staged files: a preview (what each save would do, nothing written) and the
 * import itself, file by file and session by session through the engine. A file that cannot be read,
 * or a session whose save fails, ends that file with its error; the files after it are still read.
 * A ZIP archive is read entry by entry, as the CLI reads it: an entry that holds no message is passed
 * over, and one that cannot be read is a skipped part of the archive (its error names the entry) while
 * the others are read; only an archive none of whose entries could be read ends with the error.
 */
import type { SaveProgress, SaveReport } from '../../shared/domain.js';
import type { ErrorInfo } from '../../shared/errors.js';
import type { FilePreview, ImportResult, SkippedPart } from '../../shared/ipc.js';
import type { MemoryEngine } from '../engine/engine.js';
import { EngineError } from '../engine/errors.js';
import type { ImportError } from '../importers/errors.js';
import { readTranscripts, type ImportedFile } from '../importers/index.js';
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
    const refused: ImportError[] = [];
    for await (const file of readableEntries(staged, options, refused)) {
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
      if (!preview.error && file.skipped.length > 0) preview.skipped = [...(preview.skipped ?? []), ...file.skipped.map(skippedPart)];
    }
    if (preview.format === undefined && refused.length > 0) preview.error = asDropped(staged, toErrorInfo(refused[0]));
    else if (!preview.error && refused.length > 0) preview.skipped = [...(preview.skipped ?? []), ...refused.map((error) => refusedEntry(staged, error))];
  }
  return previews;
}

/**
 * The readable files of a staged file (one, or the entries of a ZIP archive): an entry that holds no
 * message is passed over (read.ts), one that cannot be read goes to `refused`.
 */
async function* readableEntries(staged: StagedFile, options: ReadOptions, refused: ImportError[]): AsyncGenerator<ImportedFile> {
  for await (const file of readTranscripts([staged.path], options.include ? { include: options.include } : {})) {
    if (!('error' in file)) yield file;
    else if (!file.passedOver) refused.push(file.error);
  }
}

/** An entry of an archive that could not be read, as a skipped part of the archive. */
function refusedEntry(staged: StagedFile, error: ImportError): SkippedPart {
  return { error: asDropped(staged, toErrorInfo(error)).message };
}

/**
 * An error as the person knows the file: named as dropped (`logs.zip/logs/cut.json: truncated JSON …`),
 * not by the staged copy's path under the data folder.
 */
function asDropped(staged: StagedFile, error: ErrorInfo): ErrorInfo {
  return { ...error, message: error.message.replaceAll(staged.path, staged.name) };
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
    const refused: ImportError[] = [];
    for await (const file of readableEntries(staged, options, refused)) {
      if (entry.error) break;
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
      if (file.skipped.length > 0) entry.skipped = [...(entry.skipped ?? []), ...file.skipped.map(skippedPart)];
    }
    if (entry.format === undefined && refused.length > 0) entry.error = asDropped(staged, toErrorInfo(refused[0]));
    else if (!entry.error && refused.length > 0) entry.skipped = [...(entry.skipped ?? []), ...refused.map((error) => refusedEntry(staged, error))];
    if (signal.aborted) break;
  }
  result.cancelled = signal.aborted;
  return result;
}
