/**
 * LibreChat "Export" (JSON): `{ conversationId, title, endpoint, exportAt, recursive, messages }`.
 * With `recursive: true` the messages are a tree: the roots are listed, and each message holds its
 * replies in `children[]`; otherwise the list is flat and each message names its `parentMessageId`.
 * Regenerated answers and edited questions are siblings; we follow the latest branch (at every fork,
 * the child created last), which is the conversation as the person left it.
 *
 * A message: `messageId`, `sender` (the model's label, or "User"), `isCreatedByUser`, `text`,
 * `createdAt`; agents' messages hold `content[]` parts (`text`, `think`, `tool_call`) instead of text.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireArray, requireNonEmptyString, requireObject, type JsonObject } from '../shape.js';
import { isoFromDateString } from '../time.js';

export function isLibreChatExport(value: unknown): boolean {
  if (!isObject(value) || typeof value.conversationId !== 'string' || !Array.isArray(value.messages)) return false;
  return 'recursive' in value || 'endpoint' in value || value.messages.slice(0, 5).some((m) => isObject(m) && 'isCreatedByUser' in m);
}

export function mapLibreChatExport(value: unknown, where: string, options: MappingOptions): SessionInput {
  const chat = requireObject(value, where);
  const sessionId = requireNonEmptyString(chat.conversationId, at(where, 'conversationId'));
  const list = requireArray(chat.messages, at(where, 'messages'));
  const path = chat.recursive === true ? latestBranchOfTree(list, at(where, 'messages')) : latestBranchOfList(list, at(where, 'messages'));
  const messages: MessageInput[] = [];
  for (const { message, where: messageWhere } of path) for (const mapped of mapMessage(message, messageWhere, options)) messages.push(mapped);
  const title = optionalText(chat.title);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'librechat', messages };
}

type Located = { message: JsonObject; where: string };

function createdAt(message: JsonObject): number {
  const millis = Date.parse(typeof message.createdAt === 'string' ? message.createdAt : '');
  return Number.isNaN(millis) ? -Infinity : millis;
}

/** The child created last (the last listed among equals). */
function latest(candidates: Located[]): Located | undefined {
  let best: Located | undefined;
  for (const candidate of candidates) if (!best || createdAt(candidate.message) >= createdAt(best.message)) best = candidate;
  return best;
}

function latestBranchOfTree(roots: unknown[], where: string): Located[] {
  const path: Located[] = [];
  let level: Located[] = roots.map((m, i) => ({ message: requireObject(m, at(where, i)), where: at(where, i) }));
  // Depth is bounded by the number of messages; a loop guards against a shared child.
  const seen = new Set<JsonObject>();
  for (let next = latest(level); next && !seen.has(next.message); next = latest(level)) {
    seen.add(next.message);
    path.push(next);
    const children = Array.isArray(next.message.children) ? next.message.children : [];
    const childrenWhere = at(next.where, 'children');
    level = children.map((m, i) => ({ message: requireObject(m, at(childrenWhere, i)), where: at(childrenWhere, i) }));
  }
  return path;
}

function latestBranchOfList(list: unknown[], where: string): Located[] {
  const all = list.map((m, i) => ({ message: requireObject(m, at(where, i)), where: at(where, i) }));
  const byId = new Map(all.map((located) => [optionalText(located.message.messageId), located] as const));
  const children = new Map<string, Located[]>();
  const roots: Located[] = [];
  for (const located of all) {
    const parent = optionalText(located.message.parentMessageId);
    // LibreChat marks a root with the all-zero id.
    if (parent === undefined || !byId.has(parent)) roots.push(located);
    else children.set(parent, [...(children.get(parent) ?? []), located]);
  }
  const path: Located[] = [];
  const seen = new Set<string>();
  for (let next = latest(roots); next; ) {
    const id = optionalText(next.message.messageId);
    if (id === undefined || seen.has(id)) break;
    seen.add(id);
    path.push(next);
    next = latest(children.get(id) ?? []);
  }
  return path;
}

function mapMessage(message: JsonObject, where: string, options: MappingOptions): MessageInput[] {
  const id = requireNonEmptyString(message.messageId, at(where, 'messageId'));
  const role = message.isCreatedByUser === true ? 'user' : 'assistant';
  const timestamp = isoFromDateString(message.createdAt);
  const text = typeof message.text === 'string' ? message.text : '';
  const parts: MessagePart[] = text.trim() !== '' || !Array.isArray(message.content) ? [{ kind: 'text', text }] : contentParts(message.content, at(where, 'content'));
  return messagesFromParts({ id, role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options);
}

function contentParts(content: unknown[], where: string): MessagePart[] {
  return content.map((part, index): MessagePart => {
    if (!isObject(part)) throw new ShapeError(`${at(where, index)} must be an object`);
    switch (part.type) {
      case 'text':
        return { kind: 'text', text: typeof part.text === 'string' ? part.text : isObject(part.text) && typeof part.text.value === 'string' ? part.text.value : '' };
      case 'think':
        return { kind: 'thinking', text: typeof part.think === 'string' ? part.think : '' };
      case 'tool_call': {
        const call = isObject(part.tool_call) ? part.tool_call : {};
        const name = optionalText(call.name) ?? 'tool';
        return { kind: 'tool-call', name, args: call.args ?? {} };
      }
      case 'image_file':
      case 'image_url':
        return { kind: 'text', text: IMAGE_PLACEHOLDER };
      default:
        return { kind: 'text', text: '' };
    }
  });
}

