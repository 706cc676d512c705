/**
 * Conversations as programs and datasets keep them, without a session id of their own:
 *
 * - the chat APIs' message lists: `[{"role": "user", "content": "…"}, …]`, alone or as
 *   `{"messages": [...]}` (OpenAI's chat completions and fine-tuning files, Hugging Face chat
 *   datasets, Anthropic's messages), with content as a string or a list of parts (`text`,
 *   `input_text` / `output_text`, images, `tool_use` / `tool_result`, `thinking`), `tool_calls`,
 *   `tool` / `function` messages answering them, and a participant's `name` as who said it;
 * - ShareGPT's datasets: `{"id": "…", "conversations": [{"from": "human", "value": "…"}, {"from": "gpt", …}]}`;
 * - Alpaca's (LLaMA-Factory's other dataset format): `{"instruction": "…", "input": "…", "output": "…",
 *   "system"?: "…", "history"?: [["prompt", "answer"], …]}`;
 * - LLaMA-Factory's preference datasets (DPO, ORPO, SimPO, reward models), either format with the
 *   answer preferred in `chosen` (a turn, or a string for Alpaca) and the other in `rejected`: the
 *   conversation is the prompt and the chosen answer, as the rejected one is not what was said; and
 *   its KTO datasets, whose last answer a boolean `kto_tag` (`label` in its example file) marks good
 *   or bad: one marked bad is left out, the prompt kept; and its newer (v1) DPO files,
 *   `{"chosen_messages": [...], "rejected_messages": [...]}`, read by the chosen messages;
 * - any of these, one conversation per line of a JSONL file, or many in a JSON array.
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

/** An Alpaca row: an instruction, and its answer (`output`, or the preferred one, `chosen`). */
function isAlpacaRow(value: JsonObject): boolean {
  return typeof value.instruction === 'string' && (typeof value.output === 'string' || typeof value.chosen === 'string') && !('messages' in value) && !('conversations' in value);
}

/** One conversation: `{"messages": [...]}` without a session id, ShareGPT's `{"conversations": [...]}`, or an Alpaca row. */
export function isChatMessagesConversation(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (Array.isArray(value.messages)) return !('session_id' in value) && !('sessionId' in value) && value.messages.length > 0 && value.messages.slice(0, LOOK_AT).every(isApiMessage);
  if (Array.isArray(value.conversations)) return value.conversations.length > 0 && value.conversations.slice(0, LOOK_AT).every(isShareGptTurn);
  if (Array.isArray(value.chosen_messages)) return value.chosen_messages.length > 0 && value.chosen_messages.slice(0, LOOK_AT).every(isApiMessage);
  return isAlpacaRow(value);
}

/** Where a conversation object keeps its list of messages. */
function listKeyOf(conversation: JsonObject): 'messages' | 'conversations' | 'chosen_messages' | undefined {
  return (['messages', 'conversations', 'chosen_messages'] as const).find((key) => Array.isArray(conversation[key]));
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
  const conversation = isObject(value) ? value : {};
  const alpaca = isObject(value) && isAlpacaRow(value);
  const listKey = Array.isArray(value) ? undefined : listKeyOf(conversation);
  const list = alpaca ? [] : Array.isArray(value) ? value : listKey !== undefined ? conversation[listKey] : undefined;
  if (!Array.isArray(list)) throw new ShapeError(`${where || 'the document'} is not a list of messages`);
  const stem = baseName.replace(/\.(jsonl?|txt)$/i, '') || 'messages';
  const place = /\[(\d+)\]$/.exec(where)?.[1];
  const sessionId = optionalText(conversation.id) ?? optionalText(conversation.conversation_id) ?? (place === undefined ? stem : `${stem}#${Number(place) + 1}`);
  const toolNames = new Map<string, string>();
  const messages: MessageInput[] = [];
  const listWhere = listKey === undefined ? where : at(where, listKey);
  // Where the messages of the last entry start, and whether it was an answer (a KTO tag judges it).
  let lastStart = 0;
  let lastAnswers = false;
  list.forEach((entry, index) => {
    const entryWhere = at(listWhere, index);
    lastStart = messages.length;
    if (isShareGptTurn(entry)) {
      messages.push(...shareGptMessage(entry, options));
      lastAnswers = roleOf(String(entry.from)) === 'assistant';
    } else if (isApiMessage(entry)) {
      messages.push(...apiMessage(entry, toolNames, options));
      lastAnswers = roleOf(String(entry.role)) === 'assistant';
    } else throw new ShapeError(`${entryWhere} is not a message (it needs a role and content, or from and value)`);
  });
  if (alpaca) messages.push(...alpacaMessages(conversation, options));
  else if (kto(conversation) === false && lastAnswers) messages.splice(lastStart);
  else messages.push(...chosenAnswer(conversation, at(where, 'chosen'), toolNames, options));
  const title = optionalText(conversation.title) ?? optionalText(conversation.name);
  // `save --session <id>` names a file's one conversation.
  const given = place === undefined ? options.sessionId : undefined;
  return { sessionId: given ?? `messages:${sessionId}`, ...(title !== undefined ? { title } : {}), source: 'chat-messages', messages };
}

/** A KTO dataset's verdict on the conversation's last answer: `kto_tag`, or `label` as its example file calls it. */
function kto(conversation: JsonObject): boolean | undefined {
  const tag = conversation.kto_tag ?? conversation.label;
  return typeof tag === 'boolean' ? tag : undefined;
}

/**
 * The answer a preference dataset prefers (`chosen`: a ShareGPT turn or a chat API message), which
 * follows the prompt in `conversations` or `messages`. The rejected answer is not what was said.
 */
function chosenAnswer(conversation: JsonObject, where: string, toolNames: Map<string, string>, options: MappingOptions): MessageInput[] {
  const chosen = conversation.chosen;
  if (chosen === undefined) return [];
  if (isShareGptTurn(chosen)) return shareGptMessage(chosen, options);
  if (isApiMessage(chosen)) return apiMessage(chosen, toolNames, options);
  if (typeof chosen === 'string') return messagesFromParts({ role: 'assistant' }, [{ kind: 'text', text: chosen }], options);
  throw new ShapeError(`${where} is not a message (it needs a role and content, or from and value)`);
}

/**
 * An Alpaca row: the system prompt, the earlier turns (`history`, pairs of prompt and answer), the
 * instruction with its input as the prompt (joined by a line break, as LLaMA-Factory does), then the
 * answer: `output`, or in a preference dataset the `chosen` one; left out when a KTO tag marks it bad.
 */
function alpacaMessages(row: JsonObject, options: MappingOptions): MessageInput[] {
  const say = (role: Role, text: unknown): MessageInput[] => (typeof text === 'string' ? messagesFromParts({ role }, [{ kind: 'text', text }], options) : []);
  const messages = say('system', row.system);
  for (const pair of Array.isArray(row.history) ? row.history : []) {
    if (!Array.isArray(pair)) continue;
    messages.push(...say('user', pair[0]), ...say('assistant', pair[1]));
  }
  messages.push(...say('user', [row.instruction, row.input].filter((text) => typeof text === 'string' && text.trim() !== '').join('\n')));
  if (kto(row) !== false) messages.push(...say('assistant', typeof row.output === 'string' ? row.output : row.chosen));
  return messages;
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
