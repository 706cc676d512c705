/**
 * Reading transcript files: folders and ZIP archives expanded, each file recognised by content,
 * checked completely, then handed out session by session.
 *
 * The guarantee the engine relies on: a file is handed out only once all of it has been read and
 * understood, so a bad file fails before any of its sessions is saved. Small files are parsed
 * whole. Large JSON exports (a ChatGPT `conversations.json` of hundreds of MB) are read twice,
 * streaming: a first pass parses and maps every conversation and throws the results away, a
 * second pass maps them again and hands them out one at a time. Memory stays flat whatever the
 * size of the file, at the cost of reading it twice.
 */
import { isUtf8 } from 'node:buffer';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { SessionInput } from '../../shared/domain.js';
import { withCompanionFacts } from './companions.js';
import { decodeText, incompleteTailLength, notTextError, sniffNotText, SNIFF_BYTES, utf8BomLength } from './readers/encoding.js';
import { ImportError } from './errors.js';
import { readJsonlRecords } from './readers/jsonl.js';
import { looksLikeMarkdownTranscript } from './exports/markdown.js';
import { looksLikeSpecStory } from './exports/specstory.js';
import { looksLikeWhatsAppChat } from './exports/whatsapp.js';
import { looksLikeChatMessageListStart } from './exports/chatMessages.js';
import type { IncludedExtra } from './parts.js';
import type { FailedFile, ImportedFile, ReadMapping, SkippedPart, TranscriptFile } from './read-types.js';
import { isClineMarkdownExport } from './agents/cline-markdown.js';
import { aiderResult, badLineCollector, clineMarkdownResult, documentResult, documentSyntaxError, jsonlResult, markdownResult, specStoryResult, whatsAppResult, streamDocument, unknownFormat, validatedBytes } from './results.js';
import { decompressedSource, fileSource, prefixSource, unreadableError, type TranscriptSource } from './readers/sources.js';
import { findCutArray } from './readers/json-cut.js';
import { detectDocumentFormat } from './formats.js';
import { isOpenClawStateFolder, listOpenClawTranscriptSources } from './openclaw/openclaw-store.js';
import { isDatabaseFileName, isSessionRecordBeside, isToolLogFolder, isTranscriptFileName, isZipFileName } from './transcript-files.js';
import { isZip, transcriptsInZip, type ZipLimits } from './readers/zip.js';
import { decompressZstd, isZstd } from './readers/zstd.js';
import { AIDER_HISTORY_FILE, isAiderHistory } from './agents/aider.js';
import { CLINE_API_HISTORY } from './agents/cline.js';
import { ANTIGRAVITY_CUT_LOG, ANTIGRAVITY_FULL_LOG, ANTIGRAVITY_GENERATED, antigravityFullLogFor } from './agents/antigravity.js';
import { isSqliteHeader } from './readers/sqlite.js';
import { readDatabaseFile, readToolFolder, toolFolderKind, type ToolFolderKind } from './tool-folders.js';

export type { FailedFile, ImportedFile, SkippedPart, TranscriptFile } from './read-types.js';

export interface ImportOptions {
  /** Also import tool calls and results (`tools`) and model thinking (`thinking`). Both are left out by default. */
  include?: Array<IncludedExtra>;
  /** Largest uncompressed size of a ZIP entry that is read (default 1 GiB); larger entries are refused as zip bombs. */
  maxEntryBytes?: number;
  /** Supplies the session id of an engine-format transcript that has none. */
  sessionId?: string;
  /**
   * Refuse a whole file when any part of it is damaged. By default a damaged conversation (of a
   * multi-conversation export) or line (of a JSONL log) is skipped, named in `skipped`, and the rest read.
   */
  strict?: boolean;
}


export interface ReaderLimits extends ZipLimits {
  /** Files up to this size are parsed whole; larger ones are streamed twice. */
  streamingThresholdBytes: number;
}

export const DEFAULT_LIMITS: ReaderLimits = {
  streamingThresholdBytes: 8 * 1024 * 1024,
  // Real ChatGPT exports reach several hundred MB; a GiB leaves room without inviting abuse.
  maxEntryBytes: 1024 * 1024 * 1024,
  // JSON text compresses 5 to 20 times; only crafted data gets near deflate's 1032:1 maximum.
  maxCompressionRatio: 100,
  ratioCheckMinBytes: 1024 * 1024,
};

export async function* readTranscriptsWithLimits(paths: readonly string[], options: ImportOptions = {}, limits: ReaderLimits = DEFAULT_LIMITS): AsyncGenerator<TranscriptFile> {
  const effectiveLimits = { ...limits, ...(options.maxEntryBytes !== undefined ? { maxEntryBytes: options.maxEntryBytes } : {}) };
  const mapping: ReadMapping = { include: new Set(options.include ?? []), ...(options.sessionId ? { sessionId: options.sessionId } : {}), strict: Boolean(options.strict) };

  for (const given of paths) {
    let stats;
    try {
      stats = await stat(given);
    } catch (error) {
      yield { file: given, error: unreadableError(given, error) };
      continue;
    }
    if (stats.isDirectory()) {
      for await (const found of (await isOpenClawStateFolder(given)) ? openClawFiles(given) : filesInFolder(given)) {
        if ('error' in found) yield found;
        else if ('toolFolder' in found) yield oneOfMany(await readToolFolder(found.toolFolder, found.path, mapping));
        else for await (const file of readFile(found.path, found.size, mapping, effectiveLimits)) yield oneOfMany(file);
      }
    } else if (stats.isFile()) {
      yield* readFile(given, stats.size, mapping, effectiveLimits);
    } else {
      yield { file: given, error: new ImportError(given, 'unreadable', 'cannot read: not a regular file or folder') };
    }
  }
}

/**
 * A file of a folder, or an entry of a ZIP archive, that holds no message is passed over
 * (FailedFile.passedOver): people import a tool's whole folder, or an archive of it, where chats
 * opened and left empty, or a file Gemini CLI starts at a resume and leaves holding only its context,
 * are common and refuse nothing.
 */
function oneOfMany(file: TranscriptFile): TranscriptFile {
  return 'error' in file && file.error.code === 'empty' ? { ...file, passedOver: true } : file;
}

/**
 * Files under a folder that look like transcripts or archives, in name order, and folders that are
 * read as a whole (a Cline task, opencode's storage). Hidden files and folders are skipped (but
 * aider's log, which is hidden), and so are a tool's own run logs (transcript-files.ts); symbolic links
 * to folders are not followed (they can form loops).
 */
async function* filesInFolder(folder: string): AsyncGenerator<{ path: string; size: number } | { path: string; toolFolder: ToolFolderKind } | FailedFile> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    yield { file: folder, error: unreadableError(folder, error) };
    return;
  }
  const toolFolder = toolFolderKind(entries);
  if (toolFolder) {
    yield { path: folder, toolFolder };
    return;
  }
  // An Antigravity conversation: its log, and not the documents the agent wrote beside it (plans, walkthroughs).
  if (entries.some((entry) => entry.isDirectory() && entry.name === ANTIGRAVITY_GENERATED)) {
    const log = await antigravityLog(folder);
    if (log !== undefined) {
      yield log;
      return;
    }
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const names = new Set(entries.map((entry) => entry.name));
  for (const entry of entries) {
    if ((entry.name.startsWith('.') && entry.name !== AIDER_HISTORY_FILE) || entry.name === 'node_modules' || entry.name === '__MACOSX') continue;
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (isToolLogFolder(entry.name, names)) continue;
      yield* filesInFolder(full);
      continue;
    }
    if (!isTranscriptFileName(entry.name) && !isZipFileName(entry.name) && !isDatabaseFileName(entry.name)) continue;
    if (isSessionRecordBeside(entry.name, names)) continue;
    try {
      const stats = await stat(full);
      if (stats.isFile()) yield { path: full, size: stats.size };
    } catch (error) {
      yield { file: full, error: unreadableError(full, error) };
    }
  }
}

/** The full log of an Antigravity conversation's folder, else its cut copy; undefined when it has neither. */
async function antigravityLog(conversation: string): Promise<{ path: string; size: number } | undefined> {
  for (const name of [ANTIGRAVITY_FULL_LOG, ANTIGRAVITY_CUT_LOG]) {
    const file = path.join(conversation, ANTIGRAVITY_GENERATED, 'logs', name);
    try {
      const stats = await stat(file);
      if (stats.isFile()) return { path: file, size: stats.size };
    } catch {
      // Not written (yet): the other one, or none.
    }
  }
  return undefined;
}

/** An OpenClaw state folder's transcripts only: its databases, session files and archives (see openclaw-store.ts). */
async function* openClawFiles(stateFolder: string): AsyncGenerator<{ path: string; size: number } | FailedFile> {
  for (const source of await listOpenClawTranscriptSources(stateFolder)) {
    try {
      yield { path: source.path, size: (await stat(source.path)).size };
    } catch (error) {
      yield { file: source.path, error: unreadableError(source.path, error) };
    }
  }
}

async function* readFile(filePath: string, size: number, mapping: ReadMapping, limits: ReaderLimits): AsyncGenerator<TranscriptFile> {
  // A Cline task is its folder: the API history named alone is read with the panel messages beside it.
  if (path.basename(filePath) === CLINE_API_HISTORY) {
    yield await readToolFolder('cline-task', path.dirname(filePath), mapping);
    return;
  }
  // Antigravity's cut copy of a conversation is read through the full log beside it, when there is one.
  const fullLog = await antigravityFullLogFor(filePath, isFile);
  const fullSize = fullLog !== filePath ? await stat(fullLog).then((stats) => stats.size, () => undefined) : undefined;
  if (fullSize !== undefined) {
    yield* readFile(fullLog, fullSize, mapping, limits);
    return;
  }
  const source = fileSource(filePath, size);
  let entries: Array<TranscriptSource | ImportError>;
  try {
    const head = await source.readHead(16);
    if (isSqliteHeader(head)) {
      yield await readDatabaseFile(filePath, mapping, limits.maxEntryBytes);
      return;
    }
    if (isZstd(head)) {
      // Codex compresses rollouts (`.jsonl.zst`): their thread names are in the index beside them all the same.
      yield await withCompanionFacts(await readSource(decompressedSource(source, decompressZstd(filePath, await source.readAll(), limits.maxEntryBytes)), mapping, limits), filePath);
      return;
    }
    if (!isZip(head)) {
      yield await withCompanionFacts(await readSource(source, mapping, limits), filePath);
      return;
    }
    entries = await transcriptsInZip(filePath, filePath, limits);
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    yield { file: error.file, error };
    return;
  }
  for (const entry of entries) {
    yield entry instanceof ImportError ? { file: entry.file, error: entry } : oneOfMany(await readSource(entry, mapping, limits));
  }
}

/**
 * Reads one file (or ZIP entry) to the point where all of it is known to be good. Never throws an ImportError.
 * A cut-off export gives its complete conversations (see `readCutExport`), unless `strict`.
 */
async function readSource(source: TranscriptSource, mapping: ReadMapping, limits: ReaderLimits, mayBeCut = true): Promise<TranscriptFile> {
  try {
    if (source.size === 0) throw new ImportError(source.label, 'empty', 'empty file');
    const head = await source.readHead(SNIFF_BYTES);
    if (isZip(head)) throw new ImportError(source.label, 'unsupported', 'a ZIP archive inside a ZIP archive is not read; unpack the outer one first');
    const notText = sniffNotText(head);
    if (notText === 'binary') throw notTextError(source.label, notText);
    // UTF-16, or a legacy encoding (see encoding.ts): such files are decoded whole, whatever their size.
    const otherEncoding = notText === 'utf16' || !isUtf8(head.subarray(0, head.length - (head.length < source.size ? incompleteTailLength(head) : 0)));
    if (otherEncoding || source.size <= limits.streamingThresholdBytes) return await readWhole(source, await source.readAll(), mapping);
    return await readLarge(source, head, mapping);
  } catch (error) {
    if (error instanceof ImportError && error.code === 'truncated' && mayBeCut && !mapping.strict) return readCutExport(source, mapping, limits, error);
    if (error instanceof ImportError) return { file: source.label, error };
    throw error;
  }
}

/**
 * A JSON array of conversations that an interrupted download or copy cut off: the conversations
 * before the cut are whole, and are read as the file would be if it ended after them; the cut one is
 * named as a skipped part. A file with no complete conversation, or whose array is not one of
 * conversations (a single conversation's messages, Gemini's activity records), keeps `cutError`.
 */
async function readCutExport(source: TranscriptSource, mapping: ReadMapping, limits: ReaderLimits, cutError: ImportError): Promise<TranscriptFile> {
  const refused = { file: source.label, error: cutError };
  try {
    const cut = await findCutArray((await source.open()) as AsyncIterable<Buffer>);
    if (cut?.first === undefined) return refused;
    const first: unknown = JSON.parse((await source.readHead(cut.first.end)).subarray(cut.first.start).toString('utf8'));
    if (detectDocumentFormat(first) === undefined) return refused;
    const complete = await readSource(prefixSource(source, cut.completeEnd, Buffer.from(']')), mapping, limits, false);
    if ('error' in complete) return refused;
    const conversations = `${cut.complete} complete conversation${cut.complete === 1 ? '' : 's'}`;
    const where = `truncated: the file is cut off at byte ${source.size}, after ${conversations}`;
    const part: SkippedPart = cut.partial
      ? { file: source.label, session: `[${cut.complete}]`, error: `${where}; this last, partial conversation was not imported (a fresh export or copy of the file brings it and the rest)` }
      : { file: source.label, error: `${where}; a fresh export or copy of the file brings the rest` };
    return { ...complete, skipped: [...complete.skipped, part] };
  } catch (error) {
    if (error instanceof ImportError || error instanceof SyntaxError) return refused;
    throw error;
  }
}

async function readWhole(source: TranscriptSource, original: Buffer, mapping: ReadMapping): Promise<ImportedFile> {
  let decoded: ReturnType<typeof decodeText>;
  try {
    decoded = decodeText(source.label, original);
  } catch (error) {
    const cutLines = error instanceof ImportError && error.code === 'truncated' ? await readCutLines(source, original, mapping) : undefined;
    if (cutLines) return cutLines;
    throw error;
  }
  const { text, encoding } = decoded;
  if (text.trim() === '') throw new ImportError(source.label, 'empty', 'empty file (only whitespace)');
  const result = await readText(source, text, encoding === 'UTF-8' ? original : Buffer.from(text, 'utf8'), mapping);
  return encoding === 'UTF-8' ? result : { ...result, encoding };
}

/**
 * A file of JSON lines cut off in the middle of a character of its last line (a log still being
 * written, or copied short): read as one cut between two characters is, its complete lines kept and
 * the cut line named. Undefined for any other file, which keeps the error of the cut character.
 */
async function readCutLines(source: TranscriptSource, original: Buffer, mapping: ReadMapping): Promise<ImportedFile | undefined> {
  const tail = incompleteTailLength(original);
  const bytes = original.subarray(0, original.length - tail);
  if (tail === 0 || !isUtf8(bytes)) return undefined;
  const text = bytes.toString('utf8', utf8BomLength(bytes));
  if (text.trimStart()[0] !== '{') return undefined;
  try {
    return await jsonLinesResult(source, bytes, mapping);
  } catch (error) {
    if (error instanceof ImportError) return undefined;
    throw error;
  }
}

/** The file read as JSON lines, each damaged line named as a skipped part; undefined when it is not JSON lines. */
async function jsonLinesResult(source: TranscriptSource, bytes: Buffer, mapping: ReadMapping): Promise<ImportedFile | undefined> {
  const skipped: SkippedPart[] = [];
  const records = await readJsonlRecords(source.label, [bytes], true, badLineCollector(source.label, mapping, skipped));
  return records === undefined ? undefined : jsonlResult(source, records, mapping, skipped);
}

/** `bytes`: the text in UTF-8 (the file's own bytes when it is UTF-8). */
async function readText(source: TranscriptSource, text: string, bytes: Buffer, mapping: ReadMapping): Promise<ImportedFile> {
  const first = text.trimStart()[0];
  if (first === '{') {
    const lines = await jsonLinesResult(source, bytes, mapping);
    if (lines) return lines;
  }
  if (first === '{' || first === '[') {
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      // Notes that merely start with a bracket are still notes.
      if (looksLikeSpecStory(text)) return specStoryResult(source, text, mapping);
      // An iPhone's WhatsApp export starts with a bracketed date.
      if (looksLikeWhatsAppChat(text)) return whatsAppResult(source, text);
      if (looksLikeMarkdownTranscript(text)) return markdownResult(source, text);
      throw await documentSyntaxError(source, async function* () {
        yield bytes;
      });
    }
    return documentResult(source, document, mapping);
  }
  if (isAiderHistory(text)) return aiderResult(source, text, mapping);
  if (looksLikeSpecStory(text)) return specStoryResult(source, text, mapping);
  if (isClineMarkdownExport(text)) return clineMarkdownResult(source, text, mapping);
  if (looksLikeWhatsAppChat(text)) return whatsAppResult(source, text);
  if (looksLikeMarkdownTranscript(text)) return markdownResult(source, text);
  throw unknownFormat(source.label);
}

async function readLarge(source: TranscriptSource, head: Buffer, mapping: ReadMapping): Promise<ImportedFile> {
  const headText = head.subarray(utf8BomLength(head)).toString('utf8');
  const first = headText.trimStart()[0];
  // A Takeout activity file is grouped as a whole (records are newest first): read in memory.
  if (first === '[' && /"header"\s*:\s*"[^"]*"[\s\S]*"time"\s*:|"products"\s*:\s*\[/.test(headText)) return readWhole(source, await source.readAll(), mapping);
  // A bare list of messages is one conversation: read whole, as the one conversation is held in memory anyway.
  if (first === '[' && looksLikeChatMessageListStart(headText)) return readWhole(source, await source.readAll(), mapping);
  // A long WhatsApp chat from an iPhone: text whose lines start with a bracketed date, not JSON.
  if (first === '[' && looksLikeWhatsAppChat(headText)) return readWhole(source, await source.readAll(), mapping);
  if (first === '[') return streamDocument(source, mapping);
  if (first === '{') {
    const skipped: SkippedPart[] = [];
    const records = await readJsonlRecords(source.label, await validatedBytes(source), true, badLineCollector(source.label, mapping, skipped));
    if (records !== undefined) return jsonlResult(source, records, mapping, skipped);
  }
  // A single large JSON object is one conversation, which is held in memory anyway; and large
  // Markdown is rare enough not to need streaming.
  return readWhole(source, await source.readAll(), mapping);
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** Sessions of a set of files, for small inputs: everything in memory, the first error thrown. */
export async function readSessionsFromFileWithLimits(file: string, options: ImportOptions = {}, limits: ReaderLimits = DEFAULT_LIMITS): Promise<SessionInput[]> {
  const sessions: SessionInput[] = [];
  for await (const result of readTranscriptsWithLimits([file], options, limits)) {
    if ('error' in result) throw result.error;
    for await (const session of result.sessions) sessions.push(session);
  }
  return sessions;
}
