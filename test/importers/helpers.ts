/** Shared by the importer tests: fixture paths, temp folders, and reading everything a path yields. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import type { SessionInput } from '../../shared/domain.js';
import type { ImportError, ImportFormat, ImportOptions, SkippedPart } from '../../electron/importers/index.js';
import { DEFAULT_LIMITS, readTranscriptsWithLimits, type ReaderLimits } from '../../electron/importers/read.js';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/import');

export function fixture(...parts: string[]): string {
  return path.join(FIXTURES, ...parts);
}

/** Limits that send every file, however small, down the streaming (two-pass) path. */
export const STREAM_EVERYTHING: ReaderLimits = { ...DEFAULT_LIMITS, streamingThresholdBytes: 0 };

export type ReadResult = { file: string; format: ImportFormat; sessionCount: number; sessions: SessionInput[]; skipped: SkippedPart[]; encoding?: string } | { file: string; error: ImportError; passedOver?: true };

/** Everything `readTranscripts` yields for `paths`, with each file's sessions collected. */
export async function readAll(paths: string[], options: ImportOptions = {}, limits: ReaderLimits = DEFAULT_LIMITS): Promise<ReadResult[]> {
  const results: ReadResult[] = [];
  for await (const result of readTranscriptsWithLimits(paths, options, limits)) {
    if ('error' in result) {
      results.push(result);
      continue;
    }
    const sessions: SessionInput[] = [];
    for await (const session of result.sessions) sessions.push(session);
    results.push({ file: result.file, format: result.format, sessionCount: result.sessionCount, sessions, skipped: result.skipped, ...(result.encoding ? { encoding: result.encoding } : {}) });
  }
  return results;
}

/** The sessions of one file that must import cleanly, in both reading modes (they must agree). */
export async function sessionsOf(file: string, options: ImportOptions = {}): Promise<SessionInput[]> {
  const [whole] = await readAll([file], options);
  const [streamed] = await readAll([file], options, STREAM_EVERYTHING);
  if (!whole || 'error' in whole) throw whole?.error ?? new Error(`nothing read from ${file}`);
  if (JSON.stringify(streamed) !== JSON.stringify(whole)) throw new Error(`${file}: streaming and whole-file reading disagree`);
  return whole.sessions;
}

/** The error one bad file gives. */
export async function errorOf(file: string, limits: ReaderLimits = DEFAULT_LIMITS, options: ImportOptions = {}): Promise<ImportError> {
  const results = await readAll([file], options, limits);
  const [result] = results;
  if (results.length !== 1 || !result || !('error' in result)) throw new Error(`${file}: expected exactly one error, got ${JSON.stringify(results)}`);
  return result.error;
}

const tempDirs: string[] = [];

/** A fresh folder, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'session-memory-import-'));
  tempDirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Messages as `[msgId, role, content]`, the shape most assertions compare. */
export function triples(session: SessionInput | undefined): Array<[string | undefined, string, string]> {
  return (session?.messages ?? []).map((message) => [message.msgId, message.role, message.content]);
}
