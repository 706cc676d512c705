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
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream';
import Parser from 'stream-json/Parser.js';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import type { SessionInput } from '../../shared/domain.js';
import { decodeUtf8, notTextError, sniffNotText, SNIFF_BYTES, utf8BomLength, Utf8Validator } from './encoding.js';
import { ImportError, ShapeError } from './errors.js';
import {
  detectDocumentFormat,
  detectJsonlFormat,
  IMPORT_FORMATS,
  mapDocumentConversation,
  mapJsonlConversation,
  type DocumentFormat,
  type ImportFormat,
} from './formats.js';
import { byteOffsetOfChar, findJsonSyntaxProblem } from './json-syntax.js';
import { readJsonlRecords } from './jsonl.js';
import type { JsonlRecord } from './jsonl-record.js';
import { looksLikeMarkdownTranscript, mapMarkdownTranscript } from './markdown.js';
import type { IncludedExtra, MappingOptions } from './parts.js';
import { fileSource, unreadableError, type TranscriptSource } from './sources.js';
import { isTranscriptFileName, isZipFileName } from './transcript-files.js';
import { isZip, transcriptsInZip, type ZipLimits } from './zip.js';

export interface ImportOptions {
  /** Also import tool calls and results (`tools`) and model thinking (`thinking`). Both are left out by default. */
  include?: Array<IncludedExtra>;
  /** Largest uncompressed size of a ZIP entry that is read (default 1 GiB); larger entries are refused as zip bombs. */
  maxEntryBytes?: number;
  /** Supplies the session id of an engine-format transcript that has none. */
  sessionId?: string;
}

/** A file that was read completely and understood; its sessions can be saved one by one. */
export interface ImportedFile {
  file: string;
  format: ImportFormat;
  /** How many sessions `sessions` yields (known before the first is handed out). */
  sessionCount: number;
  /**
   * The sessions, in file order, each with at least one message. Iterating it again reads the file
   * again. For a large file it throws only if the file changes or becomes unreadable meanwhile.
   */
  sessions: AsyncIterable<SessionInput>;
}

export interface FailedFile {
  file: string;
  error: ImportError;
}

export type TranscriptFile = ImportedFile | FailedFile;

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
  const mapping: MappingOptions = { include: new Set(options.include ?? []), ...(options.sessionId ? { sessionId: options.sessionId } : {}) };

  for (const given of paths) {
    let stats;
    try {
      stats = await stat(given);
    } catch (error) {
      yield { file: given, error: unreadableError(given, error) };
      continue;
    }
    if (stats.isDirectory()) {
      for await (const found of filesInFolder(given)) {
        yield* 'error' in found ? [found] : readFile(found.path, found.size, mapping, effectiveLimits);
      }
    } else if (stats.isFile()) {
      yield* readFile(given, stats.size, mapping, effectiveLimits);
    } else {
      yield { file: given, error: new ImportError(given, 'unreadable', 'cannot read: not a regular file or folder') };
    }
  }
}

/**
 * Files under a folder that look like transcripts or archives, in name order. Hidden files and
 * folders are skipped, and symbolic links to folders are not followed (they can form loops).
 */
async function* filesInFolder(folder: string): AsyncGenerator<{ path: string; size: number } | FailedFile> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    yield { file: folder, error: unreadableError(folder, error) };
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === '__MACOSX') continue;
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      yield* filesInFolder(full);
      continue;
    }
    if (!isTranscriptFileName(entry.name) && !isZipFileName(entry.name)) continue;
    try {
      const stats = await stat(full);
      if (stats.isFile()) yield { path: full, size: stats.size };
    } catch (error) {
      yield { file: full, error: unreadableError(full, error) };
    }
  }
}

async function* readFile(filePath: string, size: number, mapping: MappingOptions, limits: ReaderLimits): AsyncGenerator<TranscriptFile> {
  const source = fileSource(filePath, size);
  let entries: Array<TranscriptSource | ImportError>;
  try {
    if (!isZip(await source.readHead(4))) {
      yield await readSource(source, mapping, limits);
      return;
    }
    entries = await transcriptsInZip(filePath, filePath, limits);
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    yield { file: error.file, error };
    return;
  }
  for (const entry of entries) {
    yield entry instanceof ImportError ? { file: entry.file, error: entry } : await readSource(entry, mapping, limits);
  }
}

/** Reads one file (or ZIP entry) to the point where all of it is known to be good. Never throws an ImportError. */
async function readSource(source: TranscriptSource, mapping: MappingOptions, limits: ReaderLimits): Promise<TranscriptFile> {
  try {
    if (source.size === 0) throw new ImportError(source.label, 'empty', 'empty file');
    const head = await source.readHead(SNIFF_BYTES);
    if (isZip(head)) throw new ImportError(source.label, 'unsupported', 'a ZIP archive inside a ZIP archive is not read; unpack the outer one first');
    const notText = sniffNotText(head);
    if (notText) throw notTextError(source.label, notText);
    if (source.size <= limits.streamingThresholdBytes) return await readWhole(source, await source.readAll(), mapping);
    return await readLarge(source, head, mapping);
  } catch (error) {
    if (error instanceof ImportError) return { file: source.label, error };
    throw error;
  }
}

async function readWhole(source: TranscriptSource, bytes: Buffer, mapping: MappingOptions): Promise<ImportedFile> {
  const text = decodeUtf8(source.label, bytes);
  if (text.trim() === '') throw new ImportError(source.label, 'empty', 'empty file (only whitespace)');

  const first = text.trimStart()[0];
  if (first === '{') {
    const records = await readJsonlRecords(source.label, [bytes], true);
    if (records !== undefined) return jsonlResult(source, records, mapping);
  }
  if (first === '{' || first === '[') {
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      // Notes that merely start with a bracket are still notes.
      if (looksLikeMarkdownTranscript(text)) return markdownResult(source, text);
      throw await documentSyntaxError(source, async function* () {
        yield bytes;
      });
    }
    return documentResult(source, document, mapping);
  }
  if (looksLikeMarkdownTranscript(text)) return markdownResult(source, text);
  throw unknownFormat(source.label);
}

async function readLarge(source: TranscriptSource, head: Buffer, mapping: MappingOptions): Promise<ImportedFile> {
  const first = head.subarray(utf8BomLength(head)).toString('utf8').trimStart()[0];
  if (first === '[') return streamDocument(source, mapping);
  if (first === '{') {
    const records = await readJsonlRecords(source.label, await validatedBytes(source), true);
    if (records !== undefined) return jsonlResult(source, records, mapping);
  }
  // A single large JSON object is one conversation, which is held in memory anyway; and large
  // Markdown is rare enough not to need streaming.
  return readWhole(source, await source.readAll(), mapping);
}

function jsonlResult(source: TranscriptSource, records: JsonlRecord[], mapping: MappingOptions): ImportedFile {
  const format = detectJsonlFormat(records);
  if (format === undefined) {
    // One line of JSON that is not a JSONL transcript is a compact JSON document.
    const only = records.length === 1 ? records[0] : undefined;
    if (only) return documentResult(source, only.value, mapping);
    throw unknownFormat(source.label);
  }
  const session = mapShape(source.label, () => mapJsonlConversation(format, records, source.baseName, mapping));
  return sessionsResult(source.label, format, [session]);
}

function documentResult(source: TranscriptSource, document: unknown, mapping: MappingOptions): ImportedFile {
  const conversations = Array.isArray(document) ? document : [document];
  if (conversations.length === 0) throw new ImportError(source.label, 'empty', 'no conversations in the file');
  const format = detectDocumentFormat(conversations[0]);
  if (format === undefined) throw unknownFormat(source.label);
  const where = (index: number) => (Array.isArray(document) ? `[${index}]` : '');
  const sessions = conversations.map((conversation, index) =>
    mapShape(source.label, () => mapDocumentConversation(format, conversation, where(index), mapping)),
  );
  return sessionsResult(source.label, format, sessions);
}

function markdownResult(source: TranscriptSource, text: string): ImportedFile {
  return sessionsResult(source.label, 'markdown', [mapMarkdownTranscript(text, source.baseName)]);
}

/** Sessions without messages (a chat opened and left empty, only tool calls left out) are not handed out. */
function sessionsResult(file: string, format: ImportFormat, all: SessionInput[]): ImportedFile {
  const sessions = all.filter((session) => session.messages.length > 0);
  if (sessions.length === 0) throw new ImportError(file, 'empty', 'no messages to import');
  return {
    file,
    format,
    sessionCount: sessions.length,
    sessions: {
      async *[Symbol.asyncIterator]() {
        yield* sessions;
      },
    },
  };
}

/**
 * A top-level JSON array, streamed twice: the first pass checks every conversation (syntax, UTF-8,
 * shape) and counts; only then are sessions handed out, by a second pass, one at a time.
 */
async function streamDocument(source: TranscriptSource, mapping: MappingOptions): Promise<ImportedFile> {
  const version = await source.version();
  let format: DocumentFormat | undefined;
  let conversations = 0;
  let withMessages = 0;
  for await (const { index, value } of arrayItems(source)) {
    if (index === 0) {
      format = detectDocumentFormat(value);
      if (format === undefined) throw unknownFormat(source.label);
    }
    const session = mapShape(source.label, () => mapDocumentConversation(format!, value, `[${index}]`, mapping));
    conversations++;
    if (session.messages.length > 0) withMessages++;
  }
  if (format === undefined || conversations === 0) throw new ImportError(source.label, 'empty', 'no conversations in the file');
  if (withMessages === 0) throw new ImportError(source.label, 'empty', 'no messages to import');

  const checkedFormat = format;
  return {
    file: source.label,
    format: checkedFormat,
    sessionCount: withMessages,
    sessions: {
      async *[Symbol.asyncIterator]() {
        if ((await source.version()) !== version) {
          throw new ImportError(source.label, 'changed', 'file changed while it was being imported; import it again');
        }
        for await (const { index, value } of arrayItems(source)) {
          const session = mapShape(source.label, () => mapDocumentConversation(checkedFormat, value, `[${index}]`, mapping));
          if (session.messages.length > 0) yield session;
        }
      },
    },
  };
}

/** The elements of the top-level array, parsed one at a time (stream-json keeps only the current one). */
async function* arrayItems(source: TranscriptSource): AsyncGenerator<{ index: number; value: unknown }> {
  const items = new StreamArray();
  pipeline(await source.open(), new Utf8Validator(source.label), new Parser({ streamValues: false }), items, () => {
    // Errors reach us through the iteration below.
  });
  try {
    for await (const item of items as AsyncIterable<{ key: number; value: unknown }>) {
      yield { index: item.key, value: item.value };
    }
  } catch (error) {
    if (error instanceof ImportError) throw error;
    // The streaming parser says only that the JSON is bad: find out where, reading it again.
    throw await documentSyntaxError(source, async function* () {
      yield* (await source.open()) as AsyncIterable<Buffer>;
    });
  }
}

async function documentSyntaxError(source: TranscriptSource, bytes: () => AsyncIterable<Buffer>): Promise<ImportError> {
  const problem = await findJsonSyntaxProblem(bytes());
  if (problem === undefined) return new ImportError(source.label, 'invalid-json', 'invalid JSON');
  if (problem.kind === 'truncated') return new ImportError(source.label, 'truncated', `truncated JSON at byte ${source.size}`);
  const byte = await byteOffsetOfChar(bytes(), problem.charOffset);
  return new ImportError(source.label, 'invalid-json', `invalid JSON at byte ${byte} (line ${problem.line}, column ${problem.column})`);
}

async function validatedBytes(source: TranscriptSource): Promise<AsyncIterable<Buffer>> {
  const validator = new Utf8Validator(source.label);
  pipeline(await source.open(), validator, () => {
    // Errors reach the reader through the validator.
  });
  return validator as AsyncIterable<Buffer>;
}

function mapShape(file: string, map: () => SessionInput): SessionInput {
  try {
    return map();
  } catch (error) {
    if (error instanceof ShapeError) throw new ImportError(file, 'wrong-shape', error.problem, { cause: error });
    throw error;
  }
}

function unknownFormat(file: string): ImportError {
  return new ImportError(file, 'unknown-format', `unknown format (understood: ${IMPORT_FORMATS.join(', ')})`);
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
