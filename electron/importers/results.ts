/**
 * From a file's content to what reading hands out: the sessions of a JSONL log, of a JSON document
 * (one conversation, an array of them, or an export that wraps them), of Markdown; and the two-pass
 * streaming of large JSON documents (see read.ts). Damaged conversations and lines are skipped and
 * named unless the read is strict.
 */
import path from 'node:path';
import { pipeline } from 'node:stream';
import type { SessionInput } from '../../shared/domain.js';
import { Utf8Validator } from './readers/encoding.js';
import { ImportError, ShapeError } from './errors.js';
import { detectDocumentFormat, detectJsonlFormat, documentConversations, IMPORT_FORMATS, mapDocumentConversation, mapJsonlConversation, rewoundByTool, type DocumentFormat } from './formats.js';
import { isObject } from './shape.js';
import { isGeminiActivity, mapGeminiActivity } from './exports/gemini.js';
import { byteOffsetOfChar, findJsonSyntaxProblem } from './readers/json-syntax.js';
import type { JsonlRecord } from './readers/jsonl-record.js';
import { mapMarkdownTranscript, zoneTimeReaderFor } from './exports/markdown.js';
import { mapSpecStory } from './exports/specstory.js';
import { mapWhatsAppChat } from './exports/whatsapp.js';
import { areChatMessagesLines, isChatMessageList, mapChatMessages } from './exports/chatMessages.js';
import { mapAiderHistory } from './agents/aider.js';
import { mapClineMarkdownExport } from './agents/cline-markdown.js';
import { CLINE_API_HISTORY, clineToolOf, isClineApiHistory, isClineUiMessages, mapClineTask } from './agents/cline.js';
import { sessionsResult, type ImportedFile, type ReadMapping, type SkippedPart } from './read-types.js';
import type { TranscriptSource } from './readers/sources.js';

/** Where bad lines go: nowhere with `strict` (the first one refuses the file), else into `skipped`. */
export function badLineCollector(file: string, mapping: ReadMapping, skipped: SkippedPart[]): ((lineNo: number, problem: string) => void) | undefined {
  return mapping.strict ? undefined : (line, error) => skipped.push({ file, line, error });
}

/** A mapper's complaint about one line of a JSONL file names it: "line 12: ...". */
const LINE_PROBLEM = /^line (\d+):/;

export function jsonlResult(source: TranscriptSource, records: JsonlRecord[], mapping: ReadMapping, skipped: SkippedPart[]): ImportedFile {
  const format = detectJsonlFormat(records);
  if (format === undefined) {
    // One line of JSON that is not a JSONL transcript is a compact JSON document.
    const only = records.length === 1 ? records[0] : undefined;
    if (only && skipped.length === 0) return documentResult(source, only.value, mapping);
    // A conversation per line (fine-tuning files, datasets): the lines are a document's conversations.
    if (areChatMessagesLines(records)) {
      const file = documentResult(source, records.map((record) => record.value), mapping);
      return skipped.length === 0 ? file : { ...file, skipped: [...skipped, ...file.skipped] };
    }
    throw unknownFormat(source.label);
  }
  // A line the mapper cannot use is left out and the rest mapped again (few lines are ever damaged).
  let kept = records;
  const firstDropped = skipped.length;
  for (;;) {
    try {
      const session = mapShape(source.label, () => mapJsonlConversation(format, kept, source.baseName, mapping, folderName(source), source.label));
      // When leaving lines out left nothing to read, the first line left out says why.
      const reason = skipped[firstDropped];
      if (session.messages.length === 0 && reason !== undefined) throw new ImportError(source.label, 'wrong-shape', `no readable messages (${reason.error})`);
      return withRewound(sessionsResult(source.label, format, [session], skipped), session.sessionId, rewoundByTool(format, kept));
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

/** The name of the folder holding the file (or ZIP entry). */
function folderName(source: TranscriptSource): string {
  return path.basename(path.dirname(source.label));
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

export function documentResult(source: TranscriptSource, document: unknown, mapping: ReadMapping): ImportedFile {
  // Activity records grouped into sessions by time, rather than one conversation per element.
  if (isGeminiActivity(document)) return sessionsResult(source.label, 'gemini', mapGeminiActivity(document), []);
  // A Cline-family API history read on its own (renamed, or inside an archive): named after its folder, without the panel's times.
  if (isClineApiHistory(document)) {
    const taskId = path.basename(path.dirname(source.label)) || source.baseName.replace(/\.json$/i, '');
    return sessionsResult(source.label, 'cline', [mapShape(source.label, () => mapClineTask({ taskId, tool: clineToolOf(source.label), api: document }, mapping))], []);
  }
  // The chat APIs' bare list of messages is one conversation, not a list of them.
  if (isChatMessageList(document)) return sessionsResult(source.label, 'chat-messages', [mapShape(source.label, () => mapChatMessages(document, '', mapping, source.baseName))], []);
  const { conversations, where, many: isArray } = documentConversations(document);
  if (conversations.length === 0) throw new ImportError(source.label, 'empty', 'no conversations in the file');
  const format = mapping.strict ? detectDocumentFormat(conversations[0]) : conversations.slice(0, DETECT_WITHIN).map(detectDocumentFormat).find((f) => f !== undefined);
  if (format === undefined) {
    // The panel's log holds what the panel showed, not the conversation: the API history beside it does.
    if (isClineUiMessages(document)) throw new ImportError(source.label, 'unknown-format', `the panel log of a Cline, Roo Code or Kilo Code task, not its conversation: that is the ${CLINE_API_HISTORY} beside it`);
    throw unknownFormat(source.label);
  }
  const sessions: SessionInput[] = [];
  const skipped: SkippedPart[] = [];
  let firstError: ImportError | undefined;
  conversations.forEach((conversation, index) => {
    try {
      sessions.push(mapShape(source.label, () => mapDocumentConversation(format, conversation, where(index), mapping, source.baseName, folderName(source))));
    } catch (error) {
      if (!(error instanceof ImportError) || mapping.strict || !isArray) throw error;
      firstError ??= error;
      const session = conversationLabel(conversation, index);
      skipped.push({ file: source.label, ...(session !== undefined ? { session } : {}), error: error.problem });
    }
  });
  // Nothing readable at all: the file is refused, as a damaged single conversation is.
  if (sessions.length === 0 && firstError) throw firstError;
  const result = sessionsResult(source.label, format, sessions, skipped);
  const only = !isArray ? sessions[0] : undefined;
  return only && isObject(document) ? withRewound(result, only.sessionId, rewoundByTool(format, [{ lineNo: 1, value: document }])) : result;
}

function withRewound(file: ImportedFile, sessionId: string, dropped: ((msgId: string) => boolean) | undefined): ImportedFile {
  return dropped === undefined ? file : { ...file, rewound: { sessionId, dropped } };
}

export function aiderResult(source: TranscriptSource, text: string, mapping: ReadMapping): ImportedFile {
  return sessionsResult(source.label, 'aider', mapAiderHistory(text, mapping), []);
}

export async function markdownResult(source: TranscriptSource, text: string): Promise<ImportedFile> {
  return sessionsResult(source.label, 'markdown', [mapMarkdownTranscript(text, source.baseName, await zoneTimeReaderFor(text))], []);
}

export function whatsAppResult(source: TranscriptSource, text: string): ImportedFile {
  return sessionsResult(source.label, 'whatsapp', [mapWhatsAppChat(text, source.baseName, folderName(source))], []);
}

export function clineMarkdownResult(source: TranscriptSource, text: string, mapping: ReadMapping): ImportedFile {
  return sessionsResult(source.label, 'cline', [mapShape(source.label, () => mapClineMarkdownExport(text, source.baseName, mapping))], []);
}

export function specStoryResult(source: TranscriptSource, text: string, mapping: ReadMapping): ImportedFile {
  return sessionsResult(source.label, 'specstory', [mapSpecStory(text, source.baseName, mapping.include)], []);
}

/**
 * A top-level JSON array, streamed twice: the first pass checks every conversation (syntax, UTF-8,
 * shape) and counts; only then are sessions handed out, by a second pass, one at a time.
 */
export async function streamDocument(source: TranscriptSource, mapping: ReadMapping): Promise<ImportedFile> {
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
      const session = mapShape(source.label, () => mapDocumentConversation(format!, value, `[${index}]`, mapping, source.baseName, folderName(source)));
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
            session = mapShape(source.label, () => mapDocumentConversation(checkedFormat, value, `[${index}]`, mapping, source.baseName, folderName(source)));
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
  // Loaded for a large document only: reading a log does not need it.
  const [{ default: Parser }, { default: StreamArray }] = await Promise.all([import('stream-json/Parser.js'), import('stream-json/streamers/StreamArray.js')]);
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

export async function documentSyntaxError(source: TranscriptSource, bytes: () => AsyncIterable<Buffer>): Promise<ImportError> {
  const problem = await findJsonSyntaxProblem(bytes());
  if (problem === undefined) return new ImportError(source.label, 'invalid-json', 'invalid JSON');
  if (problem.kind === 'truncated') return new ImportError(source.label, 'truncated', `truncated JSON at byte ${source.size}`);
  const byte = await byteOffsetOfChar(bytes(), problem.charOffset);
  return new ImportError(source.label, 'invalid-json', `invalid JSON at byte ${byte} (line ${problem.line}, column ${problem.column})`);
}

export async function validatedBytes(source: TranscriptSource): Promise<AsyncIterable<Buffer>> {
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

export function unknownFormat(file: string): ImportError {
  return new ImportError(file, 'unknown-format', `unknown format (understood: ${IMPORT_FORMATS.join(', ')})`);
}
