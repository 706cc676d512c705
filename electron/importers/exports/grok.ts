/**
 * Grok (xAI) data export: `{ conversations: [ { conversation: { conversation_id, title,
 * create_time, leaf_response_id?, ... }, responses: [ { response: { response_id, message, sender,
 * create_time, parent_response_id?, ... } } ] } ] }`. The responses form a tree through
 * `parent_response_id`; the conversation is the branch that ends at `leaf_response_id` (else at the
 * response created last). `sender` is "human" or "assistant", in any case. Times are ISO strings,
 * epoch numbers or MongoDB's `{"$date": ...}`.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import { messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireArray, requireNonEmptyString, requireObject, type JsonObject } from '../shape.js';
import { isoFromDateString, isoFromEpoch } from '../time.js';

/** The export's top level: the array of conversations inside it. */
export function grokConversations(document: unknown): unknown[] | undefined {
  if (!isObject(document) || !Array.isArray(document.conversations)) return undefined;
  return document.conversations.slice(0, 50).some(isGrokConversation) ? document.conversations : undefined;
}

export function isGrokConversation(value: unknown): boolean {
  return isObject(value) && isObject(value.conversation) && Array.isArray(value.responses);
}

export function mapGrokConversation(value: unknown, where: string, options: MappingOptions): SessionInput {
  const item = requireObject(value, where);
  const conversation = requireObject(item.conversation, at(where, 'conversation'));
  const sessionId = requireNonEmptyString(conversation.conversation_id ?? conversation.id, at(at(where, 'conversation'), 'conversation_id'));
  const responsesWhere = at(where, 'responses');
  const responses = requireArray(item.responses, responsesWhere).map((entry, index) => {
    const outer = requireObject(entry, at(responsesWhere, index));
    const response = isObject(outer.response) ? outer.response : outer;
    return { response, where: isObject(outer.response) ? at(at(responsesWhere, index), 'response') : at(responsesWhere, index) };
  });
  const messages: MessageInput[] = [];
  for (const { response, where: responseWhere } of branch(responses, optionalText(conversation.leaf_response_id))) {
    for (const mapped of mapResponse(response, responseWhere, options)) messages.push(mapped);
  }
  const title = optionalText(conversation.title);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'grok', messages };
}

type Located = { response: JsonObject; where: string };

function branch(responses: Located[], leafId: string | undefined): Located[] {
  const byId = new Map(responses.map((r) => [optionalText(r.response.response_id), r] as const));
  const linked = responses.some((r) => optionalText(r.response.parent_response_id) !== undefined);
  // Without parent links the export is one branch, in the order of its times.
  if (!linked) return [...responses].sort((a, b) => timeOf(a.response) - timeOf(b.response));
  const leaf = (leafId !== undefined ? byId.get(leafId) : undefined) ?? responses.reduce<Located | undefined>((best, r) => (!best || timeOf(r.response) >= timeOf(best.response) ? r : best), undefined);
  const path: Located[] = [];
  const seen = new Set<string>();
  for (let current = leaf; current; ) {
    const id = optionalText(current.response.response_id) ?? '';
    if (seen.has(id)) throw new ShapeError(`${current.where} is part of a cycle of parent_response_id`);
    seen.add(id);
    path.push(current);
    const parent = optionalText(current.response.parent_response_id);
    current = parent === undefined ? undefined : byId.get(parent);
  }
  return path.reverse();
}

function timeOf(response: JsonObject): number {
  const iso = isoOf(response.create_time);
  return iso === undefined ? -Infinity : Date.parse(iso);
}

function isoOf(value: unknown): string | undefined {
  if (typeof value === 'number') return isoFromEpoch(value);
  if (typeof value === 'string') return isoFromDateString(value);
  if (isObject(value) && '$date' in value) {
    const date = value.$date;
    if (isObject(date) && typeof date.$numberLong === 'string') return isoFromEpoch(Number(date.$numberLong));
    return isoOf(date);
  }
  return undefined;
}

function mapResponse(response: JsonObject, where: string, options: MappingOptions): MessageInput[] {
  const id = optionalText(response.response_id) ?? optionalText(response._id);
  const sender = optionalText(response.sender)?.toLowerCase();
  if (sender === undefined) throw new ShapeError(`${at(where, 'sender')} must be a non-empty string`);
  const role = sender === 'human' || sender === 'user' ? 'user' : 'assistant';
  const timestamp = isoOf(response.create_time);
  const parts: MessagePart[] = [];
  const thinking = optionalText(response.thinking_trace);
  if (thinking !== undefined) parts.push({ kind: 'thinking', text: thinking });
  parts.push({ kind: 'text', text: typeof response.message === 'string' ? response.message : '' });
  return messagesFromParts({ ...(id !== undefined ? { id } : {}), role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options);
}
