/**
 * The formats we understand, how each is recognised by its content, and which mapper reads it.
 * Two families: JSON documents (one conversation, or an array of them, which large files stream
 * one at a time) and JSONL files (one conversation per file, one entry per line).
 *
 * Adding a format is one importer plus one catalogue entry:
 * 1. The importer: a module in the family folder it belongs to (exports/ for what people download
 *    from a chat app, agents/ for a coding agent's logs or database, openclaw/ for OpenClaw), with a
 *    check (`isX`, true only for content of that format) and a mapper (`mapX`, to `SessionInput`),
 *    built from the shared pieces (shape.ts, parts.ts, time.ts, titles.ts) and the readers in
 *    readers/. Export it from the folder's index.ts.
 * 2. The catalogue entry: its name in `IMPORT_FORMATS` and `ImportFormat` (read-types.ts), and here
 *    its check in `detectDocumentFormat` or `detectJsonlFormat` (most specific first; a SQLite
 *    database's in `detectFormat`) and its case in `mapDocumentConversation` or
 *    `mapJsonlConversation` (the compiler asks for it).
 * Then a fixture and a test under test/importers/, and its section in docs/formats.md. A format whose
 * transcript is a folder of files rather than one file is also named in tool-folders.ts.
 */
import type { SessionInput } from '../../shared/domain.js';
import { isChatGptConversation, mapChatGptConversation } from './exports/chatgpt.js';
import { isDeepSeekConversation, mapDeepSeekConversation } from './exports/deepseek.js';
import { areChatMessagesLines, isChatMessageList, isChatMessagesConversation, mapChatMessages } from './exports/chatMessages.js';
import { claudeCodeRewound, isClaudeCodeTranscript, mapClaudeCodeTranscript } from './agents/claude-code.js';
import { isClaudeConversation, mapClaudeConversation } from './exports/claude.js';
import { isCodexRollout, isCodexSavedSession, mapCodexRollout, mapCodexSavedSession } from './agents/codex.js';
import { isContinueSession, mapContinueSession } from './agents/continue.js';
import { isAiStudioPrompt, mapAiStudioPrompt } from './exports/ai-studio.js';
import { isEngineSession, mapEngineSession } from './exports/engine-json.js';
import { isGeminiActivity } from './exports/gemini.js';
import { geminiCliRewound, isGeminiCliChat, isGeminiCliDocument, mapGeminiCliChat, mapGeminiCliDocument } from './agents/gemini-cli.js';
import { copilotCliRewound, isCopilotCliEvents, mapCopilotCliEvents } from './agents/copilot-cli.js';
import { isQwenCodeChat, mapQwenCodeChat, qwenCodeRewound } from './agents/qwen-code.js';
import { isAntigravityTranscript, mapAntigravityTranscript } from './agents/antigravity.js';
import { grokConversations, isGrokConversation, mapGrokConversation } from './exports/grok.js';
import { isLibreChatExport, mapLibreChatExport } from './exports/librechat.js';
import type { JsonlRecord } from './readers/jsonl-record.js';
import { looksLikeMarkdownTranscript } from './exports/markdown.js';
import { looksLikeSpecStory } from './exports/specstory.js';
import { looksLikeWhatsAppChat } from './exports/whatsapp.js';
import { isOpenClawSession, mapOpenClawSession } from './openclaw/openclaw.js';
import { isJanThreadMessages, mapJanThreadMessages } from './exports/jan.js';
import { isLmStudioConversation, lmStudioRewound, mapLmStudioConversation } from './exports/lmstudio.js';
import { isOpenWebUiChat, mapOpenWebUiChat } from './exports/open-webui.js';
import type { MappingOptions } from './parts.js';
import type { ImportFormat } from './read-types.js';
import { isObject } from './shape.js';
import { isSillyTavernChat, mapSillyTavernChat } from './exports/sillytavern.js';
import { isAiderHistory } from './agents/aider.js';
import { isClineMarkdownExport } from './agents/cline-markdown.js';
import { isClineApiHistory } from './agents/cline.js';
import { isClineCliSession, mapClineCliSession } from './agents/cline-cli.js';
import { isOpencodeExport, mapOpencodeExport } from './agents/opencode.js';
import { isOpencodeDatabase } from './agents/opencode-files.js';
import { isCursorDatabase } from './agents/cursor.js';
import { isVsCodeChatLog, isVsCodeChatSession, mapVsCodeChatLog, mapVsCodeChatSession } from './agents/vscode-chat.js';
import { isSqliteHeader, withDatabaseBytes } from './readers/sqlite.js';

export { IMPORT_FORMATS, type ImportFormat } from './read-types.js';

export type DocumentFormat = Extract<ImportFormat, 'json' | 'chat-messages' | 'chatgpt' | 'deepseek' | 'claude' | 'open-webui' | 'grok' | 'librechat' | 'ai-studio' | 'codex' | 'gemini-cli' | 'continue' | 'cline' | 'opencode' | 'vscode-chat' | 'lmstudio'>;

/**
 * The conversations of a JSON document: the document itself when it is an array (or one
 * conversation), the array inside it for exports that wrap theirs (Grok's `{"conversations": [...]}`).
 */
export function documentConversations(document: unknown): { conversations: unknown[]; where: (index: number) => string; many: boolean } {
  const wrapped = grokConversations(document);
  if (wrapped) return { conversations: wrapped, where: (index) => `conversations[${index}]`, many: true };
  if (Array.isArray(document)) return { conversations: document, where: (index) => `[${index}]`, many: true };
  return { conversations: [document], where: () => '', many: false };
}
export type JsonlFormat = Extract<ImportFormat, 'openclaw' | 'sillytavern' | 'claude-code' | 'codex' | 'gemini-cli' | 'qwen-code' | 'copilot-cli' | 'antigravity' | 'vscode-chat' | 'jan'>;

/** The format of one conversation of a JSON document (an element of the top-level array, or the document itself). */
export function detectDocumentFormat(conversation: unknown): DocumentFormat | undefined {
  // Most specific first: the engine's own format only asks for a message list.
  // DeepSeek's conversations have ChatGPT's tree of messages, with fragments in place of content.
  if (isDeepSeekConversation(conversation)) return 'deepseek';
  if (isChatGptConversation(conversation)) return 'chatgpt';
  if (isClaudeConversation(conversation)) return 'claude';
  if (isOpenWebUiChat(conversation)) return 'open-webui';
  if (isGrokConversation(conversation)) return 'grok';
  if (isLibreChatExport(conversation)) return 'librechat';
  if (isAiStudioPrompt(conversation)) return 'ai-studio';
  if (isLmStudioConversation(conversation)) return 'lmstudio';
  if (isCodexSavedSession(conversation)) return 'codex';
  if (isGeminiCliDocument(conversation)) return 'gemini-cli';
  if (isContinueSession(conversation)) return 'continue';
  if (isClineCliSession(conversation)) return 'cline';
  // `{info, messages}`: before the chat APIs' `{messages}`, which it would be taken for.
  if (isOpencodeExport(conversation)) return 'opencode';
  if (isVsCodeChatSession(conversation)) return 'vscode-chat';
  // The chat APIs' `{"messages": [...]}` without a session id, and ShareGPT's and Alpaca's datasets:
  // before the engine's own format, which needs a session id.
  if (isChatMessagesConversation(conversation)) return 'chat-messages';
  if (isEngineSession(conversation)) return 'json';
  return undefined;
}

/**
 * @param baseName the file name without folders: AI Studio prompts are titled only by it.
 * @param folderName the name of the folder holding the file: Gemini CLI names a sub-agent's after its parent.
 */
export function mapDocumentConversation(format: DocumentFormat, conversation: unknown, where: string, options: MappingOptions, baseName = '', folderName = ''): SessionInput {
  switch (format) {
    case 'codex':
      return mapCodexSavedSession(conversation, where, options);
    case 'gemini-cli':
      return mapGeminiCliDocument(conversation, where, options, folderName);
    case 'continue':
      return mapContinueSession(conversation, where, options);
    case 'cline':
      return mapClineCliSession(conversation, where, options);
    case 'opencode':
      return mapOpencodeExport(conversation, where, options);
    case 'vscode-chat':
      return mapVsCodeChatSession(conversation, where, options);
    case 'grok':
      return mapGrokConversation(conversation, where, options);
    case 'librechat':
      return mapLibreChatExport(conversation, where, options);
    case 'ai-studio':
      return mapAiStudioPrompt(conversation, where, options, baseName);
    case 'chatgpt':
      return mapChatGptConversation(conversation, where, options);
    case 'deepseek':
      return mapDeepSeekConversation(conversation, where, options);
    case 'chat-messages':
      return mapChatMessages(conversation, where, options, baseName);
    case 'claude':
      return mapClaudeConversation(conversation, where, options);
    case 'open-webui':
      return mapOpenWebUiChat(conversation, where, options);
    case 'lmstudio':
      return mapLmStudioConversation(conversation, where, options, baseName);
    case 'json':
      return mapEngineSession(conversation, where, options.sessionId);
  }
}

/** The format of a JSONL file, from its first lines. */
export function detectJsonlFormat(records: readonly JsonlRecord[]): JsonlFormat | undefined {
  if (isOpenClawSession(records)) return 'openclaw';
  if (isSillyTavernChat(records)) return 'sillytavern';
  if (isCodexRollout(records)) return 'codex';
  if (isGeminiCliChat(records)) return 'gemini-cli';
  if (isCopilotCliEvents(records)) return 'copilot-cli';
  if (isAntigravityTranscript(records)) return 'antigravity';
  if (isJanThreadMessages(records)) return 'jan';
  // Before Claude Code's, whose lines have the same fields around another kind of message.
  if (isQwenCodeChat(records)) return 'qwen-code';
  if (isClaudeCodeTranscript(records)) return 'claude-code';
  if (isVsCodeChatLog(records)) return 'vscode-chat';
  return undefined;
}

/**
 * @param baseName the file name without folders: Claude Code and Codex name their files after the session.
 * @param folderName the name of the folder holding the file: Gemini CLI names a sub-agent's after its parent,
 *   GitHub Copilot CLI a session's after the session.
 * @param filePath the file's path: Antigravity names a conversation's folder after it, two folders above its logs.
 */
export function mapJsonlConversation(format: JsonlFormat, records: readonly JsonlRecord[], baseName: string, options: MappingOptions, folderName = '', filePath = ''): SessionInput {
  switch (format) {
    case 'codex':
      return mapCodexRollout(records, baseName, options);
    case 'gemini-cli':
      return mapGeminiCliChat(records, options, folderName);
    case 'qwen-code':
      return mapQwenCodeChat(records, options);
    case 'copilot-cli':
      return mapCopilotCliEvents(records, options, folderName);
    case 'antigravity':
      return mapAntigravityTranscript(records, options, filePath);
    case 'openclaw':
      return mapOpenClawSession(records, options);
    case 'sillytavern':
      return mapSillyTavernChat(records, options, baseName);
    case 'jan':
      return mapJanThreadMessages(records, options, folderName);
    case 'claude-code':
      return mapClaudeCodeTranscript(records, baseName.replace(/\.jsonl$/i, ''), options);
    case 'vscode-chat':
      return mapVsCodeChatLog(records, options);
  }
}

/**
 * Whether a stored message of a conversation was dropped by its tool, for the formats whose file is
 * the whole conversation as the tool keeps it and says what was dropped: Claude Code (a branch the
 * person left by rewinding or editing a prompt), Gemini CLI, Qwen Code and GitHub Copilot CLI (`/rewind`) and LM Studio (a version of a
 * message the person switched away from, a message deleted). Undefined for the others:
 * their files only add (Codex, OpenClaw's event logs, SillyTavern's swipes are kept as they are), or
 * are exports a person made, which say nothing of what was removed since the last one.
 * @param records the file's lines (a JSON document is one).
 */
export function rewoundByTool(format: ImportFormat, records: readonly JsonlRecord[]): ((msgId: string) => boolean) | undefined {
  if (format === 'claude-code') {
    const left = claudeCodeRewound(records);
    return (msgId) => left.has(msgId);
  }
  if (format === 'qwen-code') {
    const dropped = qwenCodeRewound(records);
    return (msgId) => dropped.has(msgId);
  }
  if (format === 'copilot-cli') return copilotCliRewound(records);
  if (format === 'lmstudio') return lmStudioRewound(records[0]?.value);
  if (format === 'gemini-cli') {
    const rewound = geminiCliRewound(records);
    return 'held' in rewound ? (msgId) => !rewound.held.has(msgId) : (msgId) => rewound.dropped.has(msgId);
  }
  return undefined;
}

/**
 * The format of a transcript, from its content alone (file names are often wrong: a ChatGPT export
 * renamed to .txt is still a ChatGPT export). Undefined when it is none of ours, or not valid
 * enough to tell; `readTranscripts` says precisely what is wrong with such a file.
 */
export function detectFormat(content: string | Uint8Array): ImportFormat | undefined {
  if (typeof content !== 'string' && isSqliteHeader(content)) return withDatabaseBytes(content, (db) => (isOpencodeDatabase(db) ? 'opencode' : isCursorDatabase(db) ? 'cursor' : undefined));
  let text: string;
  try {
    text = typeof content === 'string' ? content : new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    return undefined;
  }
  text = text.replace(/^\uFEFF/, '');
  const start = text.trimStart()[0];
  if (start === '[' || start === '{') {
    const document = parseJsonOrUndefined(text);
    if (document !== undefined) {
      if (isObject(document)) {
        const asLine = detectJsonlFormat([{ lineNo: 1, value: document }]);
        if (asLine) return asLine;
      }
      if (isGeminiActivity(document)) return 'gemini';
      if (isClineApiHistory(document)) return 'cline';
      if (isChatMessageList(document)) return 'chat-messages';
      return detectDocumentFormat(documentConversations(document).conversations[0]);
    }
    const records = text
      .split('\n')
      .map((line, index) => ({ lineNo: index + 1, value: parseJsonOrUndefined(line) }))
      .filter((record): record is JsonlRecord => isObject(record.value));
    const jsonl = records.length > 0 ? detectJsonlFormat(records) : undefined;
    if (jsonl) return jsonl;
    if (areChatMessagesLines(records)) return 'chat-messages';
  }
  if (isAiderHistory(text)) return 'aider';
  if (looksLikeSpecStory(text)) return 'specstory';
  if (isClineMarkdownExport(text)) return 'cline';
  if (looksLikeWhatsAppChat(text)) return 'whatsapp';
  return looksLikeMarkdownTranscript(text) ? 'markdown' : undefined;
}

function parseJsonOrUndefined(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
