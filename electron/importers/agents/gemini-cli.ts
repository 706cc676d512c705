/**
 * Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.json` or `.jsonl`; the folder is
 * `GEMINI_CLI_HOME/.gemini` when that is set). `<project>` is a hash in older versions and a short
 * name in newer ones; `~/.gemini/projects.json` maps project folders to those names.
 *
 * Older versions write one JSON document `{sessionId, projectHash, startTime, lastUpdated, summary?,
 * messages}`. Newer ones append lines to a `.jsonl` file, read the way Gemini CLI reads them back: a
 * header line (`{sessionId, projectHash, ...}`, repeated when the session is resumed), message lines
 * (`{id, timestamp, type, content, ...}`: a later line with the same id replaces the message where it
 * stands), `{"$set": {...}}` updates of the header's fields (`$set.messages` replaces the whole list)
 * and `{"$rewindTo": id}`, which drops that message and every one after it (all of them when the id
 * is unknown). A resumed session is one session.
 *
 * Messages: `user` (the person's words; the `<session_context>` Gemini CLI sends first is not, and a
 * user message holding only `functionResponse` parts is a tool result), `gemini` (the reply, its
 * `thoughts` and `toolCalls`), `info`/`error`/`warning` (the interface's notices: left out). msgId: the
 * message's own id. A sub-agent's chat (`chats/<parent session id>/<session id>.jsonl`, header `kind:
 * "subagent"`) is its own session naming its parent.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { isObject, lineWhere, optionalText, requireObject, serializeNested, type JsonObject } from '../shape.js';
import { isoFromDateString } from '../time.js';
import { titleFromMessages } from '../titles.js';

/** Text Gemini CLI itself sends as the person's (it skips the same when resuming a chat). */
const INJECTED_PREFIXES = ['<session_context>', '<hook_context>'];

function isHeader(value: JsonObject): boolean {
  return typeof value.sessionId === 'string' && typeof value.projectHash === 'string';
}

export function isGeminiCliChat(records: readonly JsonlRecord[]): boolean {
  const first = records[0]?.value;
  return first !== undefined && isHeader(first);
}

export function isGeminiCliDocument(value: unknown): boolean {
  return isObject(value) && isHeader(value) && Array.isArray(value.messages);
}

export function mapGeminiCliDocument(value: unknown, where: string, options: MappingOptions, folderName = ''): SessionInput {
  return mapGeminiCliChat([{ lineNo: 1, value: requireObject(value, where) }], options, folderName);
}

/** @param folderName the folder holding the file: a sub-agent's is named after its parent session. */
export function mapGeminiCliChat(records: readonly JsonlRecord[], options: MappingOptions, folderName = ''): SessionInput {
  const { header, messages } = replay(records);
  const sessionId = optionalText(header.sessionId);
  if (sessionId === undefined) throw new ShapeError(`${lineWhere(records[0]?.lineNo ?? 1)} sessionId must be a non-empty string`);

  const mapped = mapMessages(messages, messages, options);
  const summary = optionalText(header.summary);
  if (header.kind === 'subagent') {
    // A sub-agent's `summary` is its report; its task, the first message, names it better.
    const task = titleFromMessages(mapped) ?? summary ?? sessionId;
    const parent = optionalText(header.parentSessionId) ?? (folderName !== '' && folderName !== 'chats' ? folderName : undefined);
    return { sessionId, title: `Subagent: ${task}`, source: 'gemini-cli', ...(parent !== undefined ? { parentSessionId: parent } : {}), messages: mapped };
  }
  const title = summary ?? titleFromMessages(mapped);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'gemini-cli', messages: mapped };
}

/**
 * What Gemini CLI itself dropped from a chat (`/rewind`), for a save to remove from memory. A `.json`
 * chat is rewritten whole at every change, a rewind included: a stored message whose id its file no
 * longer holds was dropped (`held`: every id the file gives, thinking and tool parts included). A
 * `.jsonl` chat is appended to: the messages a `$rewindTo` line removed are named (`dropped`); those a
 * `$set` of the whole list leaves out are not, as Gemini CLI rewrites the list when it compresses the
 * chat, which is no rewind.
 */
export function geminiCliRewound(records: readonly JsonlRecord[]): { held: Set<string> } | { dropped: Set<string> } {
  const everything = { include: new Set(['tools', 'thinking'] as const) };
  const idsOf = (messages: readonly JsonObject[], all: readonly JsonObject[]) => new Set(mapMessages(messages, all, everything).flatMap((message) => (message.msgId !== undefined ? [message.msgId] : [])));
  const { messages } = replay(records);
  if (records.length === 1) return { held: idsOf(messages, messages) };
  const rewound = new Map<string, JsonObject>();
  let current: string[] = [];
  const byId = new Map<string, JsonObject>();
  for (const { value } of records) {
    if (typeof value.$rewindTo === 'string') {
      const from = current.indexOf(value.$rewindTo);
      for (const id of from === -1 ? current : current.slice(from)) {
        const message = byId.get(id);
        if (message !== undefined) rewound.set(id, message);
      }
      current = from === -1 ? [] : current.slice(0, from);
    } else if (hasId(value)) {
      byId.set(value.id as string, value);
      if (!current.includes(value.id as string)) current.push(value.id as string);
    } else if ((isObject(value.$set) && Array.isArray(value.$set.messages)) || (isHeader(value) && Array.isArray(value.messages))) {
      const list = (isObject(value.$set) ? value.$set.messages : value.messages) as unknown[];
      current = list.filter((message): message is JsonObject => isObject(message) && hasId(message)).map((message) => {
        byId.set(message.id as string, message);
        return message.id as string;
      });
    }
  }
  // A message rewound and then written again (the same id) is in the chat.
  const kept = new Set(messages.map((message) => message.id as string));
  const dropped = [...rewound.values()].filter((message) => !kept.has(message.id as string));
  return { dropped: idsOf(dropped, [...messages, ...dropped]) };
}

function mapMessages(messages: readonly JsonObject[], all: readonly JsonObject[], options: MappingOptions): MessageInput[] {
  const senders = resultSenders(all);
  const answered = new Set(senders.keys());
  return messages.filter((message) => !isResultCopy(message, senders)).flatMap((message) => mapMessage(message, answered, options));
}

/** The call ids of a user message's `functionResponse` parts. */
function answeredIds(message: JsonObject): string[] {
  if (message.type !== 'user' || !Array.isArray(message.content)) return [];
  return message.content.flatMap((part) => (isObject(part) && isObject(part.functionResponse) && typeof part.functionResponse.id === 'string' ? [part.functionResponse.id] : []));
}

/** For each call answered, the ids of the user messages that send its result back. */
function resultSenders(messages: readonly JsonObject[]): Map<string, Set<string>> {
  const senders = new Map<string, Set<string>>();
  for (const message of messages) {
    for (const id of answeredIds(message)) senders.set(id, (senders.get(id) ?? new Set()).add(message.id as string));
  }
  return senders;
}

/**
 * A resumed chat's list, written again (`$set.messages`, 0.61), holds after each reply with tool calls
 * a user message `<reply id>_response` that Gemini CLI rebuilt from the calls' results, beside the
 * message that sent them back at the time: that copy is left out when another message sends every
 * one of its results.
 */
function isResultCopy(message: JsonObject, senders: ReadonlyMap<string, ReadonlySet<string>>): boolean {
  const id = message.id as string;
  if (!id.endsWith('_response')) return false;
  const calls = answeredIds(message);
  return calls.length > 0 && calls.every((call) => [...(senders.get(call) ?? [])].some((other) => other !== id));
}

function hasId(value: JsonObject): boolean {
  return optionalText(value.id) !== undefined;
}

/** The chat as Gemini CLI would load it: header fields, and the messages in order after every update and rewind. */
function replay(records: readonly JsonlRecord[]): { header: JsonObject; messages: JsonObject[] } {
  let header: JsonObject = {};
  const messages = new Map<string, JsonObject>();
  const setMessages = (list: unknown) => {
    if (!Array.isArray(list)) return;
    messages.clear();
    for (const message of list) if (isObject(message) && hasId(message)) messages.set(message.id as string, message);
  };
  for (const { value } of records) {
    if (typeof value.$rewindTo === 'string') {
      const ids = [...messages.keys()];
      const from = ids.indexOf(value.$rewindTo);
      for (const id of from === -1 ? ids : ids.slice(from)) messages.delete(id);
    } else if (hasId(value)) {
      messages.set(value.id as string, value);
    } else if (isObject(value.$set)) {
      setMessages(value.$set.messages);
      header = { ...header, ...value.$set };
    } else if (isHeader(value)) {
      header = { ...header, ...value };
      setMessages(value.messages);
    }
  }
  return { header, messages: [...messages.values()] };
}

function mapMessage(message: JsonObject, answered: ReadonlySet<string>, options: MappingOptions): MessageInput[] {
  const id = message.id as string;
  const timestamp = isoFromDateString(message.timestamp);
  const meta = { id, ...(timestamp !== undefined ? { timestamp } : {}) };
  if (message.type === 'user') {
    const parts = geminiContentParts(message.content).filter((part) => part.kind !== 'text' || !INJECTED_PREFIXES.some((prefix) => part.text.trimStart().startsWith(prefix)));
    const onlyResults = parts.length > 0 && parts.every((part) => part.kind === 'tool-result');
    return messagesFromParts({ ...meta, role: onlyResults ? 'tool' : 'user' }, parts, options);
  }
  if (message.type !== 'gemini') return [];
  const parts: MessagePart[] = [];
  if (Array.isArray(message.thoughts)) {
    for (const thought of message.thoughts.filter(isObject)) {
      const text = [optionalText(thought.subject), optionalText(thought.description)].filter((t) => t !== undefined).join('\n');
      parts.push({ kind: 'thinking', text });
    }
  }
  parts.push(...geminiContentParts(message.content));
  parts.push(...unlistedCalls(message));
  if (Array.isArray(message.toolCalls)) {
    for (const call of message.toolCalls.filter(isObject)) {
      const name = optionalText(call.name) ?? 'tool';
      // A sub-agent answers by calling `complete_task`: its result is the sub-agent's reply.
      const answer = name === 'complete_task' ? completedTaskText(call.args) : undefined;
      if (answer !== undefined) parts.push({ kind: 'text', text: answer });
      parts.push({ kind: 'tool-call', name, args: call.args ?? {} });
      // Older versions keep the result with the call; newer ones send it back as the next user message.
      if (call.result !== undefined && !(typeof call.id === 'string' && answered.has(call.id))) {
        const text = resultText(call.result) || (typeof call.resultDisplay === 'string' ? call.resultDisplay : '');
        parts.push({ kind: 'tool-result', name, text, isError: call.status === 'error' });
      }
    }
  }
  return messagesFromParts({ ...meta, role: 'assistant' }, parts, options);
}

/**
 * The calls a reply holds only as `functionCall` parts of its content: 0.61 writes a reply that was
 * nothing but tool calls so, without `toolCalls`, in the list a resume writes again. A call that
 * `toolCalls` lists is taken from there.
 */
function unlistedCalls(message: JsonObject): MessagePart[] {
  if (!Array.isArray(message.content)) return [];
  const listed = new Set(Array.isArray(message.toolCalls) ? message.toolCalls.filter(isObject).map((call) => call.id) : []);
  return message.content.flatMap((part): MessagePart[] => {
    if (!isObject(part) || !isObject(part.functionCall)) return [];
    const id = part.functionCall.id;
    if (listed.has(id) || (id === undefined && listed.size > 0)) return [];
    return [{ kind: 'tool-call', name: optionalText(part.functionCall.name) ?? 'tool', args: part.functionCall.args ?? {} }];
  });
}

function completedTaskText(args: unknown): string | undefined {
  const result = isObject(args) ? args.result : undefined;
  if (typeof result === 'string') return optionalText(result);
  return isObject(result) ? optionalText(result.response) : undefined;
}

/**
 * Gemini's content: a string, or parts (`text`, `inlineData`, `functionResponse`, ...). A `functionCall`
 * part gives nothing here: Gemini CLI keeps the calls beside the content (`unlistedCalls` takes those it
 * does not; Qwen Code's reader adds them).
 */
export function geminiContentParts(content: unknown): MessagePart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (isObject(content)) return geminiContentParts([content]);
  if (!Array.isArray(content)) return [];
  return content.flatMap((part): MessagePart[] => {
    if (typeof part === 'string') return [{ kind: 'text', text: part }];
    if (!isObject(part)) return [];
    if (typeof part.text === 'string') return [part.thought === true ? { kind: 'thinking', text: part.text } : { kind: 'text', text: part.text }];
    if (isObject(part.inlineData) || isObject(part.fileData)) return [{ kind: 'text', text: IMAGE_PLACEHOLDER }];
    if (isObject(part.functionResponse)) return [{ kind: 'tool-result', name: optionalText(part.functionResponse.name) ?? 'tool', text: resultText([part]) }];
    return [];
  });
}

/** A tool's result: `functionResponse` parts whose `response` holds `output` (or `error`), or text parts. */
function resultText(result: unknown): string {
  const list = Array.isArray(result) ? result : [result];
  return list
    .map((part) => {
      if (typeof part === 'string') return part;
      if (!isObject(part)) return '';
      if (typeof part.text === 'string') return part.text;
      const response = isObject(part.functionResponse) ? part.functionResponse.response : undefined;
      if (!isObject(response)) return '';
      if (typeof response.output === 'string') return response.output;
      if (typeof response.error === 'string') return response.error;
      return serializeNested('a tool result', () => JSON.stringify(response));
    })
    .filter((text) => text !== '')
    .join('\n');
}

