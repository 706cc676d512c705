/**
 * Importers: transcripts of other tools (and of people's notes) as `SessionInput`s for the engine.
 *
 *   for await (const file of readTranscripts(paths, { include: ['tools'] })) {
 *     if ('error' in file) { report(file.error.message); continue; }
 *     for await (const session of file.sessions) await engine.save(session);
 *   }
 *
 * Folders are expanded (recursively, transcript-looking files only) and ZIP archives read in
 * place. Each file is recognised by its content and checked completely before its first session
 * is handed out, so a bad file fails before anything of it is saved. Plain Node: no Electron here.
 */
import type { SessionInput } from '../../shared/domain.js';
import { readSessionsFromFileWithLimits, readTranscriptsWithLimits, type ImportedFile, type ImportOptions, type TranscriptFile } from './read.js';

export { ImportError, type ImportErrorCode } from './errors.js';
export { detectFormat, IMPORT_FORMATS, type ImportFormat } from './formats.js';
export type { FailedFile, ImportedFile, ImportOptions, SkippedPart, TranscriptFile } from './read.js';
export { isSqliteHeader } from './readers/sqlite.js';
export { isZstd } from './readers/zstd.js';
export { listOpenClawTranscriptSources, type OpenClawSessionMarker, type OpenClawSourceKind, type OpenClawTranscriptSource } from './openclaw/openclaw-store.js';

/**
 * Every transcript under `paths` (files, folders, ZIP archives), file by file, in order: either a
 * file whose sessions can be saved, or a file that failed, with a one-line error naming it.
 * Lazy: a file is read when the caller asks for it, so sessions can be saved before the next file
 * is opened.
 */
export function readTranscripts(paths: string[], opts?: ImportOptions): AsyncIterable<TranscriptFile> {
  return readTranscriptsWithLimits(paths, opts);
}

/** All sessions of one file (or folder, or archive), for small inputs. Throws the first `ImportError`. */
export function readSessionsFromFile(file: string, opts?: ImportOptions): Promise<SessionInput[]> {
  return readSessionsFromFileWithLimits(file, opts);
}

/**
 * What a file's sessions lack when damaged lines of it were skipped (for the engine's `incomplete`
 * save option: such a session is saved without deleting anything), or undefined when they are whole.
 * A damaged conversation of an export is left out as a whole and needs no such care.
 */
export function incompleteSessions(file: Pick<ImportedFile, 'file' | 'skipped'>): string | undefined {
  const lines = file.skipped.filter((part) => part.line !== undefined).length;
  if (lines === 0) return undefined;
  return `${lines} damaged line${lines === 1 ? ' of' : 's of'} ${file.file} ${lines === 1 ? 'was' : 'were'} skipped`;
}
