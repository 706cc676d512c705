/**
 * Transcripts that are not one file: a Cline-family task folder (several files make one session),
 * opencode's `storage/` folder (one file per message and part), and SQLite databases (opencode's
 * `opencode.db`, Cursor's `state.vscdb`). Reading a folder asks here first whether a folder is one of these, so its
 * files are read together rather than one by one (where each alone means nothing).
 */
import type { Dirent } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { CLINE_API_HISTORY, CLINE_UI_MESSAGES, clineToolOf, mapClineTask } from './agents/cline.js';
import { ImportError, ShapeError } from './errors.js';
import { isOpencodeStorage, readOpencodeDatabase, readOpencodeStorage } from './agents/opencode-files.js';
import { sessionsResult, type ImportedFile, type ReadMapping, type SkippedPart, type TranscriptFile } from './read-types.js';
import { documentSyntaxError } from './results.js';
import { fileSource, unreadableError } from './readers/sources.js';
import { withReadOnlyDatabase } from './readers/sqlite.js';
import { databaseKind, unknownDatabaseError } from './database-changes.js';
import { readCursorDatabase } from './agents/cursor.js';
import { readOpenClawDatabase } from './openclaw/openclaw-db.js';

export type ToolFolderKind = 'cline-task' | 'opencode-storage';

/** Whether a folder, given its entries, is read as a whole. */
export function toolFolderKind(entries: readonly Dirent[]): ToolFolderKind | undefined {
  if (entries.some((entry) => entry.isFile() && entry.name === CLINE_API_HISTORY)) return 'cline-task';
  if (isOpencodeStorage(new Set(entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name)))) return 'opencode-storage';
  return undefined;
}

export async function readToolFolder(kind: ToolFolderKind, folder: string, mapping: ReadMapping): Promise<TranscriptFile> {
  try {
    return kind === 'cline-task' ? await readClineTaskFolder(folder, mapping) : await readOpencodeStorage(folder, mapping);
  } catch (error) {
    if (error instanceof ImportError) return { file: error.file, error };
    throw error;
  }
}

/** One task of Cline, Roo Code or Kilo Code: its API history (required) and its panel messages (for times and the title). */
export async function readClineTaskFolder(folder: string, mapping: ReadMapping): Promise<ImportedFile> {
  const historyFile = path.join(folder, CLINE_API_HISTORY);
  const api = await readJson(historyFile);
  const skipped: SkippedPart[] = [];
  let ui: unknown;
  const uiFile = path.join(folder, CLINE_UI_MESSAGES);
  try {
    ui = await readJson(uiFile);
  } catch (error) {
    // The panel messages only add times and a title; a task without them is still the conversation.
    if (!(error instanceof ImportError)) throw error;
    if (error.code !== 'unreadable' || (error.cause as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') {
      if (mapping.strict) throw error;
      skipped.push({ file: uiFile, error: error.problem });
    }
  }
  try {
    const session = mapClineTask({ taskId: path.basename(folder), tool: clineToolOf(folder), api, ui }, mapping);
    return sessionsResult(historyFile, 'cline', [session], skipped);
  } catch (error) {
    if (error instanceof ShapeError) throw new ImportError(historyFile, 'wrong-shape', error.problem, { cause: error });
    throw error;
  }
}

async function readJson(file: string): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw unreadableError(file, error);
  }
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    const source = fileSource(file, bytes.length);
    throw await documentSyntaxError(source, async function* () {
      yield bytes;
    });
  }
}

/** A SQLite database, by the tables in it: OpenClaw's, opencode's and Cursor's are read. */
export async function readDatabaseFile(file: string, mapping: ReadMapping, maxEntryBytes: number): Promise<TranscriptFile> {
  try {
    await stat(file);
    const kind = withReadOnlyDatabase(file, databaseKind);
    if (kind === 'openclaw') return await readOpenClawDatabase(file, mapping, maxEntryBytes);
    if (kind === 'opencode') return readOpencodeDatabase(file, mapping);
    if (kind === 'cursor') return readCursorDatabase(file, mapping);
    throw unknownDatabaseError(file);
  } catch (error) {
    if (error instanceof ImportError) return { file: error.file, error };
    throw unreadableError(file, error);
  }
}

