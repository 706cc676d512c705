/**
 * What the app is sent of the engine's and the importers' results: save reports without the chunk
 * ids, skipped parts, errors as codes the UI can act on.
 */
import type { SaveReport } from '../../shared/domain.js';
import type { ErrorInfo } from '../../shared/errors.js';
import type { SkippedPart } from '../../shared/ipc.js';
import { detachedString } from '../engine/save/index.js';
import { EngineError } from '../engine/errors.js';
import { ImportError, incompleteSessions, type ImportedFile, type SkippedPart as ImporterSkippedPart } from '../importers/index.js';

export function toErrorInfo(error: unknown): ErrorInfo {
  if (error instanceof EngineError) return error.toInfo();
  if (error instanceof ImportError) return { code: error.code === 'unknown-format' ? 'unknown_format' : 'invalid_input', message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message };
}

/** The save option that keeps a session read without its damaged lines from deleting anything. */
export function incompleteOf(file: ImportedFile): { incomplete?: string } {
  const incomplete = incompleteSessions(file);
  return incomplete ? { incomplete } : {};
}

/**
 * A save report as the app gets it: without the chunk ids (a hundred per session of an export, which
 * no view shows; a preview of a 20,000-conversation export would otherwise hold and send 100+ MB).
 * The CLI's `--json` lists them. Written out field by field: an object made by spreading twenty-odd
 * fields is kept by V8 as a dictionary, about five times the size, and a preview holds one per
 * conversation of the export until it answers.
 */
export function forTheApp(report: SaveReport, title?: string): SaveReport & { title?: string } {
  const row: SaveReport & { title?: string } = {
    sessionId: report.sessionId,
    mode: report.mode,
    skippedSession: report.skippedSession,
    total: report.total,
    new: report.new,
    updated: report.updated,
    skipped: report.skipped,
    deleted: report.deleted,
    chunksWritten: report.chunksWritten,
    chunksDeleted: report.chunksDeleted,
    chunkIds: NO_CHUNK_IDS,
    embeddingsComputed: report.embeddingsComputed,
    sharedMessages: report.sharedMessages,
    redacted: report.redacted,
    nearDuplicates: report.nearDuplicates,
    durationMs: report.durationMs,
    warnings: report.warnings.length > 0 ? report.warnings : NO_WARNINGS,
  };
  if (report.dryRun) row.dryRun = true;
  if (report.forgotten) row.forgotten = true;
  if (title) row.title = detachedString(title);
  return row;
}
const NO_CHUNK_IDS: string[] = [];
const NO_WARNINGS: string[] = [];

/** A skipped part as the app shows it: the file is the row it sits in. */
export function skippedPart(part: ImporterSkippedPart): SkippedPart {
  return { ...(part.session !== undefined ? { session: part.session } : {}), ...(part.line !== undefined ? { line: part.line } : {}), error: part.error };
}
