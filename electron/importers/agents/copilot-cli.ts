/**
 * GitHub Copilot CLI sessions (`~/.copilot/session-state/<session id>/events.jsonl`; `COPILOT_HOME` in
 * place of `~/.copilot`): one event a line, `{type, data, id, timestamp, parentId}`, as the schema in its
 * package (`schemas/session-events.schema.json`) describes them. A session taken up again (`--continue`,
 * `--resume`) goes on in the same file after a `session.resume` event: one session.
 *
 * Events read: `session.start` (`data.sessionId`), `user.message` (the person's words as shown,
 * `data.content`; `transformedContent` is what the model was sent, with the time and other context
 * wrapped around them; a message with a `source`, which names an origin other than the person, such
 * as a skill's hidden prompt or another agent, is left out), `assistant.message` (`content`,
 * `reasoningText` as thinking, `toolRequests` as tool calls) and `tool.execution_complete` (the call's
 * `result.content`, or its `error.message` when it failed). Every other event (the system prompt,
 * turns, usage, hooks, permissions) is bookkeeping; an event with an `agentId` belongs to a sub-agent's
 * own conversation and is left out. msgId: the event's `id`.
 *
 * `/rewind` cuts the chosen prompt's event and every one after it out of the file and appends a
 * `session.info` event with `infoType: "rewind"` (`copilotCliRewound`). The name a person gives a
 * session (`/rename`, `--name`) is not in the file but in `workspace.yaml` beside it (companions.ts).
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { isObject, lineWhere, optionalText, type JsonObject } from '../shape.js';
import { isoFromDateString } from '../time.js';
import { titleFromMessages } from '../titles.js';

const CONVERSATION_EVENTS = new Set(['session.start', 'user.message', 'assistant.message']);

function isCopilotEvent(value: JsonObject): boolean {
  return typeof value.type === 'string' && CONVERSATION_EVENTS.has(value.type) && isObject(value.data) && typeof value.id === 'string' && 'parentId' in value;
}

export function isCopilotCliEvents(records: readonly JsonlRecord[]): boolean {
  return records.slice(0, 50).some(({ value }) => isCopilotEvent(value));
}

export function mapCopilotCliEvents(records: readonly JsonlRecord[], options: MappingOptions, folderName = ''): SessionInput {
  const start = records.find(({ value }) => value.type === 'session.start' && isObject(value.data));
  const sessionId = optionalText((start?.value.data as JsonObject | undefined)?.sessionId) ?? (folderName !== '' ? folderName : undefined);
  if (sessionId === undefined) throw new ShapeError(`${lineWhere(records[0]?.lineNo ?? 1)} no session.start event names the session`);
  const messages = conversationOf(records, options);
  const title = titleFromMessages(messages);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'copilot-cli', messages };
}

/**
 * What `/rewind` dropped from a session, for a save to remove from memory. Copilot CLI keeps a session
 * in one `events.jsonl` that it only appends to, but for a rewind: then it cuts the rewound turns out
 * of the file (the chosen prompt's event and every event after it) and appends a `session.info` event
 * with `infoType: "rewind"`. Once the file holds such an event, a stored message whose id none of its
 * events gives (thinking and tool parts included) was dropped. Without one, nothing is: a file that
 * lacks a stored message for another reason (a copy cut short by hand) removes nothing.
 */
export function copilotCliRewound(records: readonly JsonlRecord[]): ((msgId: string) => boolean) | undefined {
  const rewound = records.some(({ value }) => value.type === 'session.info' && isObject(value.data) && value.data.infoType === 'rewind' && value.agentId === undefined);
  if (!rewound) return undefined;
  const held = new Set(conversationOf(records, { include: new Set(['tools', 'thinking']) }).flatMap((message) => (message.msgId !== undefined ? [message.msgId] : [])));
  return (msgId) => !held.has(msgId);
}

function conversationOf(records: readonly JsonlRecord[], options: MappingOptions): MessageInput[] {
  const toolNames = new Map<string, string>();
  const messages: MessageInput[] = [];
  for (const { value } of records) {
    if (!isObject(value.data) || typeof value.id !== 'string' || value.agentId !== undefined || value.ephemeral === true) continue;
    for (const message of mapEvent(value, value.data, toolNames, options)) messages.push(message);
  }
  return messages;
}

function mapEvent(event: JsonObject, data: JsonObject, toolNames: Map<string, string>, options: MappingOptions): MessageInput[] {
  const timestamp = isoFromDateString(event.timestamp);
  const source = { id: event.id as string, ...(timestamp !== undefined ? { timestamp } : {}) };
  switch (event.type) {
    case 'user.message':
      if (optionalText(data.source) !== undefined) return [];
      return messagesFromParts({ ...source, role: 'user' }, [{ kind: 'text', text: typeof data.content === 'string' ? data.content : '' }], options);
    case 'assistant.message': {
      const parts: MessagePart[] = [];
      const reasoning = optionalText(data.reasoningText);
      if (reasoning !== undefined) parts.push({ kind: 'thinking', text: reasoning });
      if (typeof data.content === 'string') parts.push({ kind: 'text', text: data.content });
      for (const request of Array.isArray(data.toolRequests) ? data.toolRequests.filter(isObject) : []) {
        const name = optionalText(request.name) ?? 'tool';
        if (typeof request.toolCallId === 'string') toolNames.set(request.toolCallId, name);
        parts.push({ kind: 'tool-call', name, args: request.arguments ?? {} });
      }
      return messagesFromParts({ ...source, role: 'assistant' }, parts, options);
    }
    case 'tool.execution_start':
      if (typeof data.toolCallId === 'string' && typeof data.toolName === 'string' && !toolNames.has(data.toolCallId)) toolNames.set(data.toolCallId, data.toolName);
      return [];
    case 'tool.execution_complete': {
      const name = (typeof data.toolCallId === 'string' ? toolNames.get(data.toolCallId) : undefined) ?? 'tool';
      const failed = data.success === false;
      const text = failed ? (isObject(data.error) && typeof data.error.message === 'string' ? data.error.message : '') : isObject(data.result) && typeof data.result.content === 'string' ? data.result.content : '';
      return messagesFromParts({ ...source, role: 'tool' }, [{ kind: 'tool-result', name, text, isError: failed }], options);
    }
    default:
      return [];
  }
}
