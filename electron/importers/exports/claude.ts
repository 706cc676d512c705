/**
 * Claude.ai export (`conversations.json`): an array of conversations with `chat_messages`.
 * The official export is linear. The web API's JSON adds `parent_message_uuid` and
 * `current_leaf_message_uuid`: a tree again, of which we keep the path from the current leaf
 * up to the root, as for ChatGPT.
 */
import type { MessageInput, Role, SessionInput } from '../../../shared/domain.js';
import { documentText, IMAGE_PLACEHOLDER, messagesFromParts, textOfResultContent, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireArray, requireNonEmptyString, requireObject, type JsonObject } from '../shape.js';
import { ShapeError } from '../errors.js';
import { isoFromDateString } from '../time.js';

export function isClaudeConversation(value: unknown): boolean {
  return isObject(value) && Array.isArray(value.chat_messages);
}

export function mapClaudeConversation(value: unknown, where: string, options: MappingOptions): SessionInput {
  const conversation = requireObject(value, where);
  const sessionId = requireNonEmptyString(conversation.uuid, at(where, 'uuid'));
  const listWhere = at(where, 'chat_messages');
  const list = requireArray(conversation.chat_messages, listWhere).map((message, index) => requireObject(message, at(listWhere, index)));

  const messages: MessageInput[] = [];
  for (const index of conversationOrder(list, conversation.current_leaf_message_uuid, listWhere)) {
    for (const mapped of mapMessage(list[index]!, at(listWhere, index), options)) messages.push(mapped);
  }
  const title = optionalText(conversation.name);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'claude', messages };
}

/** Indexes into `chat_messages`, in conversation order. */
function conversationOrder(list: JsonObject[], currentLeaf: unknown, where: string): number[] {
  const isTree = list.some((message) => typeof message.parent_message_uuid === 'string');
  if (!isTree) return list.map((_, index) => index);

  const indexByUuid = new Map<string, number>();
  list.forEach((message, index) => {
    if (typeof message.uuid === 'string') indexByUuid.set(message.uuid, index);
  });
  // Without a current leaf, the last message written is the one the person saw last.
  let index = typeof currentLeaf === 'string' ? indexByUuid.get(currentLeaf) : list.length - 1;
  if (index === undefined) throw new ShapeError(`current_leaf_message_uuid ${JSON.stringify(currentLeaf)} is not in ${where}`);

  const path: number[] = [];
  const seen = new Set<number>();
  while (index !== undefined && !seen.has(index)) {
    seen.add(index);
    path.push(index);
    const parent: unknown = list[index]!.parent_message_uuid;
    // The root's parent is a sentinel uuid (all zeros) that is not in the list: the walk ends there.
    index = typeof parent === 'string' ? indexByUuid.get(parent) : undefined;
  }
  return path.reverse();
}

function mapMessage(message: JsonObject, where: string, options: MappingOptions): MessageInput[] {
  const id = requireNonEmptyString(message.uuid, at(where, 'uuid'));
  const sender = requireNonEmptyString(message.sender, at(where, 'sender'));
  const role: Role | undefined = sender === 'human' ? 'user' : sender === 'assistant' ? 'assistant' : undefined;
  if (role === undefined) return [];
  const timestamp = isoFromDateString(message.created_at);

  const parts = contentParts(message);
  const attachments = attachmentText(message);
  if (attachments !== '') parts.push({ kind: 'text', text: attachments });
  return messagesFromParts({ id, role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options);
}

/** The blocks of `content` when present (they keep thinking and tools apart), else `text`. */
function contentParts(message: JsonObject): MessagePart[] {
  const blocks = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  if (blocks.length === 0) return [{ kind: 'text', text: typeof message.text === 'string' ? message.text : '' }];

  const toolNames = new Map<string, string>();
  return blocks.map((block): MessagePart => {
    switch (block.type) {
      case 'text':
        return { kind: 'text', text: typeof block.text === 'string' ? block.text : '' };
      case 'thinking':
        return { kind: 'thinking', text: typeof block.thinking === 'string' ? block.thinking : typeof block.text === 'string' ? block.text : '' };
      case 'tool_use': {
        const name = optionalText(block.name) ?? 'tool';
        if (typeof block.id === 'string') toolNames.set(block.id, name);
        const artifact = name === ARTIFACTS ? artifactText(block.input) : undefined;
        return artifact !== undefined ? { kind: 'text', text: artifact } : { kind: 'tool-call', name, args: block.input ?? {} };
      }
      case 'tool_result': {
        const name = optionalText(block.name) ?? (typeof block.tool_use_id === 'string' ? toolNames.get(block.tool_use_id) : undefined) ?? 'tool';
        // The artifact tool answers "OK": the artifact itself is in the call.
        if (name === ARTIFACTS && block.is_error !== true) return { kind: 'text', text: '' };
        return { kind: 'tool-result', name, text: textOfResultContent(block.content), isError: block.is_error === true };
      }
      case 'image':
        return { kind: 'text', text: IMAGE_PLACEHOLDER };
      default:
        return { kind: 'text', text: '' };
    }
  });
}

/** The tool through which Claude writes artifacts (documents, code, pages shown beside the chat). */
const ARTIFACTS = 'artifacts';

/**
 * An artifact as its text: the whole document when it is created or rewritten, the new text when a
 * part of it is replaced. Undefined for a call that carries no text (it stays a tool call).
 */
function artifactText(input: unknown): string | undefined {
  if (!isObject(input)) return undefined;
  const name = optionalText(input.title) ?? optionalText(input.id);
  if (input.command === 'update') {
    const replaced = optionalText(input.new_str);
    return replaced === undefined ? undefined : documentText('artifact update', name, replaced);
  }
  const content = optionalText(input.content);
  return content === undefined ? undefined : documentText('artifact', name, content);
}

/**
 * Files the person attached. Their extracted text was part of what the model read, so it is kept,
 * marked so that it cannot be mistaken for what the person typed.
 */
function attachmentText(message: JsonObject): string {
  const sections: string[] = [];
  const attached = new Set<string>();
  for (const attachment of Array.isArray(message.attachments) ? message.attachments.filter(isObject) : []) {
    const name = optionalText(attachment.file_name) ?? 'attachment';
    const extracted = optionalText(attachment.extracted_content);
    attached.add(name);
    sections.push(extracted === undefined ? `[attachment: ${name}]` : `[attachment: ${name}]\n${extracted.trim()}\n[/attachment]`);
  }
  // A file whose text is an attachment above is listed under `files` too (exports of 2025): named once.
  for (const file of Array.isArray(message.files) ? message.files.filter(isObject) : []) {
    const name = optionalText(file.file_name);
    if (name !== undefined && !attached.has(name)) sections.push(`[file: ${name}]`);
  }
  return sections.join('\n\n');
}
