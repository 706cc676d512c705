/**
 * Conversations as programs and datasets keep them, without a session id of their own:
 *
 * - the chat APIs' message lists: `[{"role": "user", "content": "…"}, …]`, alone or as
 *   `{"messages": [...]}` (OpenAI's chat completions and fine-tuning files, Hugging Face chat
 *   datasets, Anthropic's messages), with content as a string or a list of parts (`text`,
 *   `input_text` / `output_text`, images, `tool_use` / `tool_result`, `thinking`), `tool_calls`,
 *   `tool` / `function` messages answering them, and a participant's `name` as who said it;
 * - ShareGPT's datasets: `{"id": "…", "conversations": [{"from": "human", "value": "…"}, {"from": "gpt", …}]}`;
 * - either, one conversation per line of a JSONL file, or many in a JSON array.
 *
 * A list with a `session_id` is the engine's own format (engine-json.ts), read strictly as before;
 * `save --session <id>` names a file's one conversation, as it does a file of that format without one.
 * A conversation's id is its `id` when it has one, else the file's name (with its place in the file
 * when the file holds several), so a file saved again updates the same sessions. A message keeps its
 * `id` (or `msg_id`) when it has one; else the engine derives one from role, content and position. Reasoning and tool calls and results
 * are kept only when asked for (`include`).
 */
import type { MessageInput, Role, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, textOfResultContent, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, type JsonObject } from '../shape.js';
import { isoFromDateString, isoFromEpoch } from '../time.js';

const API_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function', 'model', 'human']);
const SHAREGPT_FROM = new Set(['human', 'user', 'gpt', 'chatgpt', 'assistant', 'bing', 'bard', 'model', 'system', 'function_call', 'observation', 'function', 'tool']);
/** How many elements are looked at to tell the shape. */
const LOOK_AT = 50;

function isApiMessage(value: unknown): value is JsonObject {
  return isObject(value) && typeof value.role === 'string' && API_ROLES.has(value.role.toLowerCase()) && ('content' in value || Array.isArray(value.tool_calls) || 'parts' in value);
}

function isShareGptTurn(value: unknown): value is JsonObject {
  return isObject(value) && typeof value.from === 'string' && SHAREGPT_FROM.has(value.from.toLowerCase()) && 'value' in value;
}

/** A JSON array that is one conversation's messages (`[{"role": …, "content": …}, …]`). */
export function isChatMessageList(document: unknown): document is unknown[] {
  return Array.isArray(document) && document.length > 0 && document.slice(0, LOOK_AT).every(isApiMessage);
}

/** The start of a large file that is one conversation's messages: `[{"role": …` or `[{"content": …`. */
export function looksLikeChatMessageListStart(head: string): boolean {
  return /^\s*\[\s*\{\s*"(?:role|content)"\s*:/.test(head);
}

/** One conversation: `{"messages": [...]}` without a session id, or ShareGPT's `{"conversations": [...]}`. */
export function isChatMessagesConversation(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (Array.isArray(value.messages)) return !('session_id' in value) && !('sessionId' in value) && value.messages.length > 0 && value.messages.slice(0, LOOK_AT).every(isApiMessage);
  return Array.isArray(value.conversations) && value.conversations.length > 0 && value.conversations.slice(0, LOOK_AT).every(isShareGptTurn);
}

/** Lines of a JSONL file that are each a conversation (a fine-tuning file, a dataset). */
export function areChatMessagesLines(records: ReadonlyArray<{ value: unknown }>): boolean {
  return records.length > 1 && records.slice(0, LOOK_AT).every((record) => isChatMessagesConversation(record.value));
}

/**
 * @param where the conversation's place in the file (`[3]`), empty when it is the whole file.
 * @param baseName the file's name: the session's id when the conversation has none.
 */
export function mapChatMessages(value: unknown, where: string, options: MappingOptions, baseName: string): SessionInput {
  const list = Array.isArray(value) ? value : isObject(value) ? (Array.isArray(value.messages) ? value.messages : value.conversations) : undefined;
  if (!Array.isArray(list)) throw new ShapeError(`${where || 'the document'} is not a list of messages`);
  const conversation = isObject(value) ? value : {};
  const stem = baseName.replace(/\.(jsonl?|txt)$/i, '') || 'messages';
  const place = /\[(\d+)\]$/.exec(where)?.[1];
  const sessionId = optionalText(conversation.id) ?? optionalText(conversation.conversation_id) ?? (place === undefined ? stem : `${stem}#${Number(place) + 1}`);
  const toolNames = new Map<string, string>();
  const messages: MessageInput[] = [];
  const listKey = Array.isArray(value) ? undefined : Array.isArray(conversation.messages) ? 'messages' : 'conversations';
  const listWhere = listKey === undefined ? where : at(where, listKey);
  list.forEach((entry, index) => {
    const entryWhere = at(listWhere, index);
    if (isShareGptTurn(entry)) messages.push(...shareGptMessage(entry, options));
    else if (isApiMessage(entry)) messages.push(...apiMessage(entry, toolNames, options));
    else throw new ShapeError(`${entryWhere} is not a message (it needs a role and content, or from and value)`);
  });
  const title = optionalText(conversation.title) ?? optionalText(conversation.name);
  // `save --session <id>` names a file's one conversation.
  const given = place === undefined ? options.sessionId : undefined;
  return { sessionId: given ?? `messages:${sessionId}`, ...(title !== undefined ? { title } : {}), source: 'chat-messages', messages };
}

function roleOf(name: string): Role | 'tool-result' {
  switch (name.toLowerCase()) {
    case 'system':
    case 'developer':
      return 'system';
    case 'user':
    case 'human':
      return 'user';
    case 'tool':
    case 'function':
    case 'observation':
      return 'tool-result';
    default:
      return 'assistant';
  }
}

function timestampOf(message: JsonObject): string | undefined {
  for (const key of ['timestamp', 'created_at', 'createdAt', 'time', 'date']) {
    const value = message[key];
    const iso = typeof value === 'number' ? isoFromEpoch(value) : isoFromDateString(value);
    if (iso !== undefined) return iso;
  }
  return undefined;
}

/** The key under which the name of the latest tool call is kept, beside the calls' ids. */
const LAST_CALL = '\0last call';

function apiMessage(message: JsonObject, toolNames: Map<string, string>, options: MappingOptions): MessageInput[] {
  const role = roleOf(String(message.role));
  const timestamp = timestampOf(message);
  const parts: MessagePart[] = [];
  if (role === 'tool-result') {
    const callId = optionalText(message.tool_call_id);
    // Without a call id (LLaMA-Factory's files, some datasets) a result answers the call just made.
    const name = optionalText(message.name) ?? toolNames.get(callId ?? LAST_CALL) ?? 'tool';
    const text = textOfResultContent(message.content) || partsText(contentParts(message.content, toolNames));
    parts.push({ kind: 'tool-result', name, text });
  } else {
    const reasoning = optionalText(message.reasoning_content) ?? optionalText(message.reasoning);
    if (reasoning !== undefined) parts.push({ kind: 'thinking', text: reasoning });
    parts.push(...contentParts(message.content ?? message.parts, toolNames));
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : []) {
      const fn = isObject(call.function) ? call.function : call;
      const name = optionalText(fn.name) ?? 'tool';
      const id = optionalText(call.id);
      if (id !== undefined) toolNames.set(id, name);
      parts.push({ kind: 'tool-call', name, args: fn.arguments ?? fn.input ?? {} });
    }
    if (isObject(message.function_call)) parts.push({ kind: 'tool-call', name: optionalText(message.function_call.name) ?? 'function', args: message.function_call.arguments ?? {} });
    const lastCall = parts.findLast((part) => part.kind === 'tool-call');
    if (lastCall?.kind === 'tool-call') toolNames.set(LAST_CALL, lastCall.name);
  }
  const messageRole: Role = role === 'tool-result' ? 'tool' : role;
  const id = optionalText(message.msg_id) ?? optionalText(message.msgId) ?? optionalText(message.id);
  const mapped = messagesFromParts({ role: messageRole, ...(id !== undefined ? { id } : {}), ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options);
  // The chat APIs' `name` is the participant's (a tool message's is the tool's, read above); the
  // engine leaves out a name that is only a role's word.
  const speaker = role === 'tool-result' ? undefined : optionalText(message.name);
  return speaker === undefined ? mapped : mapped.map((m) => (m.role === messageRole ? { ...m, speaker } : m));
}

/** A message's content: a string, or the APIs' list of parts. */
function contentParts(content: unknown, toolNames: Map<string, string>): MessagePart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const parts: MessagePart[] = [];
  for (const block of content) {
    if (typeof block === 'string') {
      parts.push({ kind: 'text', text: block });
      continue;
    }
    if (!isObject(block)) continue;
    switch (block.type) {
      case 'thinking':
      case 'reasoning':
        parts.push({ kind: 'thinking', text: optionalText(block.thinking) ?? optionalText(block.text) ?? optionalText(block.value) ?? '' });
        break;
      case 'tool_call':
        parts.push(valueToolCall(block.value));
        break;
      case 'tool_use':
      case 'function_call': {
        const name = optionalText(block.name) ?? 'tool';
        const id = optionalText(block.id) ?? optionalText(block.call_id);
        if (id !== undefined) toolNames.set(id, name);
        parts.push({ kind: 'tool-call', name, args: block.input ?? block.arguments ?? {} });
        break;
      }
      case 'tool_result':
      case 'function_call_output': {
        const id = optionalText(block.tool_use_id) ?? optionalText(block.call_id);
        parts.push({ kind: 'tool-result', name: (id !== undefined ? toolNames.get(id) : undefined) ?? 'tool', text: textOfResultContent(block.content ?? block.output), isError: block.is_error === true });
        break;
      }
      case 'image':
      case 'image_url':
      case 'input_image':
        parts.push({ kind: 'text', text: IMAGE_PLACEHOLDER });
        break;
      case 'refusal':
        parts.push({ kind: 'text', text: optionalText(block.refusal) ?? '' });
        break;
      default:
        // `text`, `input_text`, `output_text`, and Gemini's `{text}` parts; LLaMA-Factory's `{type, value}`.
        if (typeof block.text === 'string') parts.push({ kind: 'text', text: block.text });
        else if (block.type === 'text' && typeof block.value === 'string') parts.push({ kind: 'text', text: block.value });
    }
  }
  return parts;
}

/** LLaMA-Factory's `{"type": "tool_call", "value": "{\"name\": …, \"arguments\": …}"}`. */
function valueToolCall(value: unknown): MessagePart {
  let call: unknown = value;
  if (typeof value === 'string') {
    try {
      call = JSON.parse(value);
    } catch {
      return { kind: 'tool-call', name: 'tool', args: value };
    }
  }
  return isObject(call) ? { kind: 'tool-call', name: optionalText(call.name) ?? 'tool', args: call.arguments ?? {} } : { kind: 'tool-call', name: 'tool', args: value ?? {} };
}

function partsText(parts: readonly MessagePart[]): string {
  return parts.map((part) => (part.kind === 'text' ? part.text : '')).filter((text) => text !== '').join('\n');
}

function shareGptMessage(turn: JsonObject, options: MappingOptions): MessageInput[] {
  const from = String(turn.from).toLowerCase();
  const text = typeof turn.value === 'string' ? turn.value : JSON.stringify(turn.value ?? '');
  const timestamp = timestampOf(turn);
  const source = timestamp !== undefined ? { timestamp } : {};
  if (from === 'function_call') return messagesFromParts({ role: 'tool', ...source }, [{ kind: 'tool-call', name: 'function', args: text }], options);
  const role = roleOf(from);
  if (role === 'tool-result') return messagesFromParts({ role: 'tool', ...source }, [{ kind: 'tool-result', name: 'function', text }], options);
  return messagesFromParts({ role, ...source }, [{ kind: 'text', text }], options);
}
