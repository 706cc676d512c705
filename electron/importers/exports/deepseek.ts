/**
 * DeepSeek's data export (`conversations.json`, alone or in the export's ZIP): an array of
 * conversations whose messages form a tree (`mapping`), as ChatGPT's do, but whose messages are lists
 * of `fragments` instead of an author and content:
 *
 *   {"id": "…", "title": "…", "inserted_at": "2026-01-01T10:00:00+08:00", "mapping": {
 *     "root": {"id": "root", "parent": null, "children": ["1"], "message": null},
 *     "1": {"id": "1", "parent": "root", "children": ["2"], "message": {"model": "deepseek-chat",
 *           "inserted_at": "…", "files": [], "fragments": [{"type": "REQUEST", "content": "…"}]}},
 *     "2": {… "fragments": [{"type": "THINK", "content": "…"}, {"type": "SEARCH", "results": […]},
 *                          {"type": "RESPONSE", "content": "… [citation:1]"}]}}}
 *
 * A message with a REQUEST is the person's; any other is the model's. Its RESPONSE is the answer
 * (without the `[citation:N]` marks the app shows as links), THINK its reasoning, and the web
 * searches and pages it read (SEARCH, TOOL_SEARCH, TOOL_OPEN, READ_LINK, …) its tool results; those
 * two are left out unless asked for (`include`). The export has no current node: a regenerated answer
 * is a later sibling, so the newest branch (the last child at each fork) is the conversation kept.
 * Messages keep the export's node ids.
 */
import type { MessageInput, Role, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import { activePath } from './chatgpt.js';
import { messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireObject, type JsonObject } from '../shape.js';
import { isoFromDateString } from '../time.js';

export function isDeepSeekConversation(value: unknown): boolean {
  if (!isObject(value) || !isObject(value.mapping)) return false;
  return Object.values(value.mapping).some((node) => isObject(node) && isObject(node.message) && Array.isArray(node.message.fragments));
}

export function mapDeepSeekConversation(value: unknown, where: string, options: MappingOptions): SessionInput {
  const conversation = requireObject(value, where);
  const sessionId = optionalText(conversation.id);
  if (sessionId === undefined) throw new ShapeError(`${at(where, 'id')} must be a non-empty string`);
  const mappingWhere = at(where, 'mapping');
  const mapping = requireObject(conversation.mapping, mappingWhere);
  const messages: MessageInput[] = [];
  // No current node in this export: the newest branch, as ChatGPT's tree without one.
  for (const nodeId of activePath(mapping, undefined, mappingWhere)) {
    const node = mapping[nodeId] as JsonObject;
    if (!isObject(node.message)) continue;
    messages.push(...mapMessage(node.message, nodeId, options));
  }
  const title = optionalText(conversation.title);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'deepseek', messages };
}

function mapMessage(message: JsonObject, nodeId: string, options: MappingOptions): MessageInput[] {
  const fragments = Array.isArray(message.fragments) ? message.fragments.filter(isObject) : [];
  const role: Role = fragments.some((fragment) => fragment.type === 'REQUEST') ? 'user' : 'assistant';
  const parts: MessagePart[] = [];
  const files = fileNames(message.files);
  if (role === 'user' && files.length > 0) parts.push({ kind: 'text', text: files.map((name) => `[file: ${name}]`).join('\n') });
  for (const fragment of fragments) {
    const type = typeof fragment.type === 'string' ? fragment.type : '';
    const content = typeof fragment.content === 'string' ? fragment.content : '';
    if (type === 'REQUEST') parts.push({ kind: 'text', text: content });
    else if (type === 'RESPONSE') parts.push({ kind: 'text', text: withoutCitationMarks(content) });
    else if (type === 'THINK') parts.push({ kind: 'thinking', text: content });
    else {
      const text = [content, searchResultsText(fragment.results)].filter((piece) => piece.trim() !== '').join('\n');
      if (text !== '') parts.push({ kind: 'tool-result', name: type.toLowerCase() || 'tool', text });
    }
  }
  if (!parts.some((part) => part.kind !== 'text' || part.text.trim() !== '')) return [];
  const timestamp = isoFromDateString(message.inserted_at);
  return messagesFromParts({ id: nodeId, role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options);
}

function fileNames(files: unknown): string[] {
  if (!Array.isArray(files)) return [];
  return files
    .filter(isObject)
    .map((file) => optionalText(file.file_name) ?? optionalText(file.name))
    .filter((name): name is string => name !== undefined);
}

/** `[citation:3]`: where the app shows a link to the third search result. */
function withoutCitationMarks(text: string): string {
  return text.replace(/\s?\[citation:\d+\]/g, '');
}

function searchResultsText(results: unknown): string {
  if (!Array.isArray(results)) return '';
  return results
    .filter(isObject)
    .map((result) => [optionalText(result.title), optionalText(result.url), optionalText(result.snippet)].filter(Boolean).join(' — '))
    .filter((line) => line !== '')
    .join('\n');
}
