/** What the CLI's commands share: options, output, reports and exit statuses. Light: `--help` and a hook load this. */
import { NEAR_DUPLICATE_FLOOR, type SaveReport } from '../../shared/domain.js';
import { locate, StoreLocationError, type EngineLocation } from '../engine/files/index.js';
import type { SkippedPart } from '../importers/read-types.js';

export type IncludedExtra = 'tools' | 'thinking';

export function parseInclude(value: string): IncludedExtra[] {
  const parts = value.split(',').map((p) => p.trim()).filter(Boolean);
  for (const p of parts) if (p !== 'tools' && p !== 'thinking') throw new UsageError(`--include takes "tools" and/or "thinking", not "${p}"`);
  return parts as IncludedExtra[];
}

export interface GlobalOptions {
  data?: string;
  model?: string;
  singleWriter?: boolean;
}

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  isTTY: boolean;
}

export const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  isTTY: Boolean(process.stderr.isTTY),
};

/** A failure the user caused: one line, no stack, exit status 2. */
export class UsageError extends Error {}

/** The report fields `save --json` prints, in this order. */
export function reportJson(report: SaveReport): Record<string, unknown> {
  const { sessionId, mode, skippedSession, total, new: added, updated, skipped, deleted, chunksWritten, chunksDeleted, chunkIds, embeddingsComputed, sharedMessages, redacted, nearDuplicates, durationMs, warnings } = report;
  return { sessionId, mode, skippedSession, total, new: added, updated, skipped, deleted, chunksWritten, chunksDeleted, chunkIds, embeddingsComputed, sharedMessages, redacted, nearDuplicates, durationMs, warnings, ...(report.forgotten ? { forgotten: true } : {}) };
}

export function describeReport(report: SaveReport): string {
  const who = `${report.sessionId}:`;
  if (report.forgotten) return `${who} forgotten, not saved again (save it on purpose with --unforget)`;
  if (report.skippedSession) return `${who} already archived, ${report.total} messages skipped (0 embeddings, ${report.durationMs} ms)`;
  const deleted = report.deleted > 0 ? `, ${report.deleted} deleted` : '';
  const removed = report.chunksDeleted > 0 ? `, ${report.chunksDeleted} removed` : '';
  const verb = report.dryRun ? 'would write' : '->';
  const redacted = report.redacted > 0 ? `, ${report.redacted} secret${report.redacted === 1 ? '' : 's'} redacted` : '';
  const copies = report.nearDuplicates > 0 ? `; ${report.nearDuplicates} already in other sessions, see \`duplicates\`` : '';
  return `${who} ${report.total} messages: ${report.new} new, ${report.updated} updated, ${report.skipped} skipped${deleted} ${verb} ${report.chunksWritten} chunks${removed} (${report.embeddingsComputed} embeddings${redacted}, ${report.durationMs} ms)${copies}`;
}

/** Where `--data` points: a folder, or a store on object storage with this machine's folder for it. */
export function locationOf(options: GlobalOptions): EngineLocation {
  try {
    return locate(options.data);
  } catch (error) {
    if (error instanceof StoreLocationError) throw new UsageError(error.message);
    throw error;
  }
}

/** This machine's folder for the memory `--data` names (the folder itself, for a local store). */
export function dataDirOf(options: GlobalOptions): string {
  return locationOf(options).dataDir;
}

/** "conversations.json, conversation abc: [3].mapping must be an object" / "log.jsonl, line 12: invalid JSON ..." */
export function describeSkipped(part: SkippedPart): string {
  const where = part.line !== undefined ? `, line ${part.line}` : part.session !== undefined ? `, conversation ${part.session}` : '';
  return `${part.file}${where}: ${part.error}`;
}

export class ExitStatus extends Error {
  constructor(readonly status: number) {
    super(`exit ${status}`);
  }
}

export function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive whole number, not "${value}"`);
  return n;
}

/** A number of minutes (0 or more, fractions allowed), as `hook --stay` and `hook-saver --idle` take. */
export function minutesOption(value: string, name: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`${name} takes a number of minutes (0 or more), not "${value}"`);
  return n;
}

/** A `--threshold`: a cosine similarity from the lowest kept (NEAR_DUPLICATE_FLOOR) to 1. */
export function similarity(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < NEAR_DUPLICATE_FLOOR || n > 1) throw new UsageError(`--threshold must be a similarity from ${NEAR_DUPLICATE_FLOOR} to 1, not "${value}"`);
  return n;
}

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
