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
import { isUtf8 } from 'node:buffer';
import { decodeText, incompleteTailLength, notTextError, sniffNotText, SNIFF_BYTES, utf8BomLength, Utf8Validator } from './encoding.js';
import { ImportError, ShapeError } from './errors.js';
import {
  detectDocumentFormat,
  detectJsonlFormat,
  documentConversations,
  IMPORT_FORMATS,
  mapDocumentConversation,
  mapJsonlConversation,
  type DocumentFormat,
  type ImportFormat,
} from './formats.js';
import { byteOffsetOfChar, findJsonSyntaxProblem } from './json-syntax.js';
import { readJsonlRecords } from './jsonl.js';
import type { JsonlRecord } from './jsonl-record.js';
import { isGeminiActivity, mapGeminiActivity } from './gemini.js';
import { looksLikeMarkdownTranscript, mapMarkdownTranscript } from './markdown.js';
import type { IncludedExtra, MappingOptions } from './parts.js';

/** The mappers' options, and whether a damaged part refuses its whole file. */
interface ReadMapping extends MappingOptions {
  strict: boolean;
}
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
  /**
   * Refuse a whole file when any part of it is damaged. By default a damaged conversation (of a
   * multi-conversation export) or line (of a JSONL log) is skipped, named in `skipped`, and the rest read.
   */
  strict?: boolean;
}

/** A damaged part of a file that was left out: a conversation of an export, or a line of a JSONL log. */
export interface SkippedPart {
  file: string;
  /** The conversation's id when it could be read, else its place (`[12]`). */
  session?: string;
  line?: number;
  error: string;
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
  /** Damaged parts that were left out (always empty with `strict`). */
  skipped: SkippedPart[];
  /** Set when the file is not UTF-8: the encoding it was read in (`UTF-16LE`, `GB18030`, ...). */
  encoding?: string;
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

async function* readFile(filePath: string, size: number, mapping: ReadMapping, limits: ReaderLimits): AsyncGenerator<TranscriptFile> {
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
async function readSource(source: TranscriptSource, mapping: ReadMapping, limits: ReaderLimits): Promise<TranscriptFile> {
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
    if (error instanceof ImportError) return { file: source.label, error };
    throw error;
  }
}

async function readWhole(source: TranscriptSource, original: Buffer, mapping: ReadMapping): Promise<ImportedFile> {
  const { text, encoding } = decodeText(source.label, original);
  if (text.trim() === '') throw new ImportError(source.label, 'empty', 'empty file (only whitespace)');
  const result = await readText(source, text, encoding === 'UTF-8' ? original : Buffer.from(text, 'utf8'), mapping);
  return encoding === 'UTF-8' ? result : { ...result, encoding };
}

/** `bytes`: the text in UTF-8 (the file's own bytes when it is UTF-8). */
async function readText(source: TranscriptSource, text: string, bytes: Buffer, mapping: ReadMapping): Promise<ImportedFile> {
  const first = text.trimStart()[0];
  if (first === '{') {
    const skipped: SkippedPart[] = [];
    const records = await readJsonlRecords(source.label, [bytes], true, badLineCollector(source.label, mapping, skipped));
    if (records !== undefined) return jsonlResult(source, records, mapping, skipped);
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

async function readLarge(source: TranscriptSource, head: Buffer, mapping: ReadMapping): Promise<ImportedFile> {
  const headText = head.subarray(utf8BomLength(head)).toString('utf8');
  const first = headText.trimStart()[0];
  // A Takeout activity file is grouped as a whole (records are newest first): read in memory.
  if (first === '[' && /"header"\s*:\s*"[^"]*"[\s\S]*"time"\s*:|"products"\s*:\s*\[/.test(headText)) return readWhole(source, await source.readAll(), mapping);
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

/** Where bad lines go: nowhere with `strict` (the first one refuses the file), else into `skipped`. */
function badLineCollector(file: string, mapping: ReadMapping, skipped: SkippedPart[]): ((lineNo: number, problem: string) => void) | undefined {
  return mapping.strict ? undefined : (line, error) => skipped.push({ file, line, error });
}

/** A mapper's complaint about one line of a JSONL file names it: "line 12: ...". */
const LINE_PROBLEM = /^line (\d+):/;

function jsonlResult(source: TranscriptSource, records: JsonlRecord[], mapping: ReadMapping, skipped: SkippedPart[]): ImportedFile {
  const format = detectJsonlFormat(records);
  if (format === undefined) {
    // One line of JSON that is not a JSONL transcript is a compact JSON document.
    const only = records.length === 1 ? records[0] : undefined;
    if (only && skipped.length === 0) return documentResult(source, only.value, mapping);
    throw unknownFormat(source.label);
  }
  // A line the mapper cannot use is left out and the rest mapped again (few lines are ever damaged).
  let kept = records;
  for (;;) {
    try {
      const session = mapShape(source.label, () => mapJsonlConversation(format, kept, source.baseName, mapping));
      return sessionsResult(source.label, format, [session], skipped);
    } catch (error) {
      const line = error instanceof ImportError && error.code === 'wrong-shape' ? LINE_PROBLEM.exec(error.problem) : null;
      if (mapping.strict || !line || kept.length <= 1) throw error;
      const lineNo = Number(line[1]);
      const without = kept.filter((record) => record.lineNo !== lineNo);
      if (without.length === kept.length) throw error;
      skipped.push({ file: source.label, line: lineNo, error: (error as ImportError).problem });
      kept = without;
    }
  }
}

/** An id a person can find the conversation by, read without trusting its shape. */
function conversationLabel(conversation: unknown, index: number | undefined): string | undefined {
  if (conversation !== null && typeof conversation === 'object' && !Array.isArray(conversation)) {
    const outer = conversation as Record<string, unknown>;
    // Grok wraps each conversation's fields in `conversation`.
    const fields = outer.conversation !== null && typeof outer.conversation === 'object' ? (outer.conversation as Record<string, unknown>) : outer;
    for (const key of ['conversation_id', 'id', 'uuid', 'session_id', 'conversationId']) {
      const value = fields[key];
      if (typeof value === 'string' && value.trim() !== '') return value;
    }
  }
  return index === undefined ? undefined : `[${index}]`;
}

/** The format of a multi-conversation document, from its first recognisable conversations. */
const DETECT_WITHIN = 50;

function documentResult(source: TranscriptSource, document: unknown, mapping: ReadMapping): ImportedFile {
  // Activity records grouped into sessions by time, rather than one conversation per element.
  if (isGeminiActivity(document)) return sessionsResult(source.label, 'gemini', mapGeminiActivity(document), []);
  const { conversations, where, many: isArray } = documentConversations(document);
  if (conversations.length === 0) throw new ImportError(source.label, 'empty', 'no conversations in the file');
  const format = mapping.strict ? detectDocumentFormat(conversations[0]) : conversations.slice(0, DETECT_WITHIN).map(detectDocumentFormat).find((f) => f !== undefined);
  if (format === undefined) throw unknownFormat(source.label);
  const sessions: SessionInput[] = [];
  const skipped: SkippedPart[] = [];
  let firstError: ImportError | undefined;
  conversations.forEach((conversation, index) => {
    try {
      sessions.push(mapShape(source.label, () => mapDocumentConversation(format, conversation, where(index), mapping, source.baseName)));
    } catch (error) {
      if (!(error instanceof ImportError) || mapping.strict || !isArray) throw error;
      firstError ??= error;
      const session = conversationLabel(conversation, index);
      skipped.push({ file: source.label, ...(session !== undefined ? { session } : {}), error: error.problem });
    }
  });
  // Nothing readable at all: the file is refused, as a damaged single conversation is.
  if (sessions.length === 0 && firstError) throw firstError;
  return sessionsResult(source.label, format, sessions, skipped);
}

function markdownResult(source: TranscriptSource, text: string): ImportedFile {
  return sessionsResult(source.label, 'markdown', [mapMarkdownTranscript(text, source.baseName)], []);
}

/** Sessions without messages (a chat opened and left empty, only tool calls left out) are not handed out. */
function sessionsResult(file: string, format: ImportFormat, all: SessionInput[], skipped: SkippedPart[]): ImportedFile {
  const sessions = all.filter((session) => session.messages.length > 0);
  if (sessions.length === 0) throw new ImportError(file, 'empty', 'no messages to import');
  return {
    file,
    format,
    skipped,
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
async function streamDocument(source: TranscriptSource, mapping: ReadMapping): Promise<ImportedFile> {
  const version = await source.version();
  let format: DocumentFormat | undefined;
  let conversations = 0;
  let withMessages = 0;
  const skipped: SkippedPart[] = [];
  let firstError: ImportError | undefined;
  // Conversations seen before one told the format (a damaged first conversation), checked once it is known.
  const undetected: Array<{ index: number; value: unknown }> = [];
  const check = (index: number, value: unknown): void => {
    try {
      const session = mapShape(source.label, () => mapDocumentConversation(format!, value, `[${index}]`, mapping, source.baseName));
      if (session.messages.length > 0) withMessages++;
    } catch (error) {
      if (!(error instanceof ImportError) || mapping.strict) throw error;
      firstError ??= error;
      const session = conversationLabel(value, index);
      skipped.push({ file: source.label, ...(session !== undefined ? { session } : {}), error: error.problem });
    }
  };
  for await (const { index, value } of arrayItems(source)) {
    conversations++;
    if (format === undefined) {
      format = detectDocumentFormat(value);
      if (format === undefined) {
        if (mapping.strict || index + 1 >= DETECT_WITHIN) throw unknownFormat(source.label);
        undetected.push({ index, value });
        continue;
      }
      for (const earlier of undetected.splice(0)) check(earlier.index, earlier.value);
    }
    check(index, value);
  }
  if (format === undefined && undetected.length > 0) throw unknownFormat(source.label);
  if (format === undefined || conversations === 0) throw new ImportError(source.label, 'empty', 'no conversations in the file');
  if (withMessages === 0) throw firstError ?? new ImportError(source.label, 'empty', 'no messages to import');

  const checkedFormat = format;
  return {
    file: source.label,
    format: checkedFormat,
    sessionCount: withMessages,
    skipped,
    sessions: {
      async *[Symbol.asyncIterator]() {
        if ((await source.version()) !== version) {
          throw new ImportError(source.label, 'changed', 'file changed while it was being imported; import it again');
        }
        for await (const { index, value } of arrayItems(source)) {
          let session: SessionInput;
          try {
            session = mapShape(source.label, () => mapDocumentConversation(checkedFormat, value, `[${index}]`, mapping, source.baseName));
          } catch (error) {
            // Damaged conversations were found and reported by the first pass.
            if (error instanceof ImportError && !mapping.strict) continue;
            throw error;
          }
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
