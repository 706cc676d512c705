/** What reading transcript files hands out: files read whole and understood, files refused, and damaged parts left out. */
import type { SessionInput } from '../../shared/domain.js';
import { ImportError } from './errors.js';
import type { MappingOptions } from './parts.js';

/** Every format's name (the registry, formats.ts, says how each is recognised and read). */
export type ImportFormat = 'json' | 'chatgpt' | 'claude' | 'openclaw' | 'open-webui' | 'sillytavern' | 'claude-code' | 'markdown' | 'specstory' | 'grok' | 'deepseek' | 'chat-messages' | 'librechat' | 'ai-studio' | 'gemini' | 'codex' | 'gemini-cli' | 'qwen-code' | 'copilot-cli' | 'antigravity' | 'continue' | 'cline' | 'aider' | 'opencode' | 'cursor' | 'vscode-chat' | 'lmstudio' | 'jan' | 'whatsapp';

export const IMPORT_FORMATS: readonly ImportFormat[] = ['json', 'chatgpt', 'claude', 'openclaw', 'open-webui', 'sillytavern', 'claude-code', 'markdown', 'specstory', 'grok', 'deepseek', 'chat-messages', 'librechat', 'ai-studio', 'gemini', 'codex', 'gemini-cli', 'qwen-code', 'copilot-cli', 'antigravity', 'continue', 'cline', 'aider', 'opencode', 'cursor', 'vscode-chat', 'lmstudio', 'jan', 'whatsapp'];

/** The mappers' options, and whether a damaged part refuses its whole file. */
export interface ReadMapping extends MappingOptions {
  strict: boolean;
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
  /**
   * Set when the file is the whole conversation of its session as its tool keeps it (formats.ts,
   * `rewoundByTool`): which stored messages the tool itself dropped (a rewind, a branch left), for a
   * save that removes them. Sources save with it; an import of a file does not.
   */
  rewound?: ToolRewind;
}

/** What a tool dropped from the conversation of one session. */
export interface ToolRewind {
  sessionId: string;
  /** Whether a stored message of the session that the file no longer gives was dropped by the tool. */
  dropped(msgId: string): boolean;
}

export interface FailedFile {
  file: string;
  error: ImportError;
  /**
   * Found in a folder given to import, or an entry of a ZIP archive, and holding no message (its
   * error's code is `empty`: a chat opened and left, a file a tool keeps beside its chats): passed
   * over, not refused. A file named itself and holding nothing is refused.
   */
  passedOver?: true;
}

export type TranscriptFile = ImportedFile | FailedFile;

/** Sessions without messages (a chat opened and left empty, only tool calls left out) are not handed out. */
export function sessionsResult(file: string, format: ImportFormat, all: SessionInput[], skipped: SkippedPart[]): ImportedFile {
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
