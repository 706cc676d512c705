/**
 * ChatGPT data export: `conversations.json` (alone or inside the export ZIP), an array of
 * conversations whose messages form a tree (`mapping`). Regenerated answers and edited prompts are
 * sibling branches; the conversation as the person last saw it is the path from `current_node`
 * up to the root. Other branches are left out. The markers ChatGPT writes into its answers (citations,
 * names, links) become what its app shows (chatgptMarkers.ts).
 */
import type { MessageInput, Role, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import { readableAnswer } from './chatgptMarkers.js';
import { documentText, IMAGE_PLACEHOLDER, messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireObject, requireString, type JsonObject } from '../shape.js';
import { isoFromEpoch } from '../time.js';

export function isChatGptConversation(value: unknown): boolean {
  return isObject(value) && isObject(value.mapping);
}

export function mapChatGptConversation(value: unknown, where: string, options: MappingOptions): SessionInput {
  const conversation = requireObject(value, where);
  const sessionId = optionalText(conversation.id) ?? optionalText(conversation.conversation_id);
  if (sessionId === undefined) throw new ShapeError(`${at(where, 'id')} must be a non-empty string (neither id nor conversation_id is set)`);
  const mapping = requireObject(conversation.mapping, at(where, 'mapping'));

  const messages: MessageInput[] = [];
  for (const nodeId of activePath(mapping, conversation.current_node, at(where, 'mapping'))) {
    const node = mapping[nodeId] as JsonObject;
    if (node.message === null || node.message === undefined) continue;
    messages.push(...mapMessage(node.message, nodeId, at(at(at(where, 'mapping'), nodeId), 'message'), options));
  }

  const title = optionalText(conversation.title);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'chatgpt', messages };
}

/**
 * Node ids from the root to the current node; without one, to the newest leaf (the last child at
 * every fork). DeepSeek's export has the same tree (deepseek.ts).
 */
export function activePath(mapping: JsonObject, currentNode: unknown, where: string): string[] {
  const leaf = typeof currentNode === 'string' ? currentNode : newestLeaf(mapping, where);
  if (leaf === undefined) return [];
  if (!(leaf in mapping)) throw new ShapeError(`current_node ${JSON.stringify(leaf)} is not in ${where}`);

  const path: string[] = [];
  const seen = new Set<string>();
  for (let id: string | undefined = leaf; id !== undefined; ) {
    if (seen.has(id)) throw new ShapeError(`${where} has a cycle through node ${JSON.stringify(id)}`);
    seen.add(id);
    path.push(id);
    const node = requireObject(mapping[id], at(where, id));
    const parent = node.parent;
    if (parent === null || parent === undefined) break;
    if (typeof parent !== 'string') throw new ShapeError(`${at(at(where, id), 'parent')} must be a string or null`);
    if (!(parent in mapping)) throw new ShapeError(`${at(at(where, id), 'parent')} ${JSON.stringify(parent)} is not in ${where}`);
    id = parent;
  }
  return path.reverse();
}

/**
 * Without `current_node` (hand-edited or very old exports) we follow the last child from the root:
 * children are appended as they are created, so that is the newest branch.
 */
function newestLeaf(mapping: JsonObject, where: string): string | undefined {
  const root = Object.keys(mapping).find((id) => {
    const node = mapping[id];
    return isObject(node) && (node.parent === null || node.parent === undefined);
  });
  let id = root;
  const seen = new Set<string>();
  while (id !== undefined && !seen.has(id)) {
    seen.add(id);
    const node = requireObject(mapping[id], at(where, id));
    const children = Array.isArray(node.children) ? node.children.filter((child): child is string => typeof child === 'string' && child in mapping) : [];
    const next = children.at(-1);
    if (next === undefined) return id;
    id = next;
  }
  return id;
}

function mapMessage(value: unknown, nodeId: string, where: string, options: MappingOptions): MessageInput[] {
  const message = requireObject(value, where);
  const author = requireObject(message.author, at(where, 'author'));
  const authorRole = requireString(author.role, at(at(where, 'author'), 'role'));
  const content = requireObject(message.content, at(where, 'content'));
  const contentType = typeof content.content_type === 'string' ? content.content_type : 'text';
  const recipient = typeof message.recipient === 'string' ? message.recipient : 'all';
  const id = optionalText(message.id) ?? nodeId;
  const timestamp = isoFromEpoch(message.create_time);
  const source = { id, role: 'assistant' as Role, ...(timestamp !== undefined ? { timestamp } : {}) };

  const canvas = authorRole === 'assistant' ? canvasText(recipient, contentType, content) : undefined;
  let part: MessagePart;
  let role: Role;
  if (contentType === 'thoughts' || contentType === 'reasoning_recap') {
    part = { kind: 'thinking', text: contentType === 'thoughts' ? thoughtsText(content.thoughts) : stringOr(content.content) };
    role = 'assistant';
  } else if (contentType === 'user_editable_context') {
    // Custom instructions: context the person set up, not something said in the conversation.
    part = { kind: 'text', text: [optionalText(content.user_profile), optionalText(content.user_instructions)].filter(Boolean).join('\n\n') };
    role = 'system';
  } else if (authorRole === 'tool') {
    const name = optionalText(author.name) ?? 'tool';
    part = { kind: 'tool-result', name, text: contentText(content, contentType) };
    role = 'tool';
  } else if (canvas !== undefined) {
    // A canvas the model writes or rewrites for the person: part of its answer, not tool traffic.
    part = { kind: 'text', text: canvas };
    role = 'assistant';
  } else if (authorRole === 'assistant' && recipient !== 'all') {
    // The model addressing a tool (python, browser, dalle...): the message is the call's argument.
    part = { kind: 'tool-call', name: recipient, args: contentText(content, contentType) };
    role = 'tool';
  } else if (authorRole === 'user' || authorRole === 'assistant' || authorRole === 'system') {
    const text = contentText(content, contentType);
    part = { kind: 'text', text: authorRole === 'assistant' ? readableAnswer(text, message.metadata) : text };
    // ChatGPT's own note in the person's place, hidden from the conversation (`is_user_system_message`:
    // "Original custom instructions no longer available" where the custom instructions were): context, as they are.
    role = authorRole === 'user' && isObject(message.metadata) && message.metadata.is_user_system_message === true ? 'system' : authorRole;
  } else {
    return []; // a role ChatGPT does not document: nothing we could file it under
  }

  // Hidden system messages (weight 0, empty parts) and anything else without text are noise.
  if (part.kind === 'text' && part.text.trim() === '') return [];
  if (part.kind === 'tool-result' && part.text.trim() === '') return [];
  return messagesFromParts({ ...source, role }, [part], options);
}

/**
 * A canvas document (`canmore.create_textdoc`: `{name, type, content}`) or its new text
 * (`canmore.update_textdoc`: `{updates: [{pattern, replacement}]}`), as text. Undefined for other
 * recipients, for comments on a canvas, and for arguments that are not such JSON.
 */
function canvasText(recipient: string, contentType: string, content: JsonObject): string | undefined {
  if (recipient !== 'canmore.create_textdoc' && recipient !== 'canmore.update_textdoc') return undefined;
  const text = contentText(content, contentType);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The model's arguments as it wrote them: a line break left raw inside the text, or cut off where
    // its answer ran out of tokens (`finish_details: max_tokens`). ChatGPT created the canvas all the same.
    try {
      value = JSON.parse(asWrittenJson(text));
    } catch {
      return undefined;
    }
  }
  if (!isObject(value)) return undefined;
  if (recipient === 'canmore.create_textdoc') {
    const content = optionalText(value.content);
    return content === undefined ? undefined : documentText('canvas', optionalText(value.name), content);
  }
  const replacements = (Array.isArray(value.updates) ? value.updates.filter(isObject) : []).map((update) => optionalText(update.replacement)).filter((text) => text !== undefined);
  return replacements.length === 0 ? undefined : documentText('canvas update', undefined, replacements.join('\n\n'));
}

/**
 * JSON as a model writes it into a tool call: control characters left raw inside its strings are
 * escaped, and text cut off (at the answer's token limit) is closed where it stops: the string it
 * stops in, then every object and array still open. Written here rather than taken from a JSON-repair
 * package: jsonrepair 3.15 fails on such a cut string and partial-json 0.1.7 drops a string with a raw
 * line break, and the two took 20 ms to import from node_modules, which every hook's start would pay
 * (this module loads with every reader). Where the cut leaves no value to close (inside a key),
 * JSON.parse still fails.
 */
export function asWrittenJson(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  const open: string[] = [];
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      else if (char < ' ') {
        out += char === '\n' ? '\\n' : char === '\r' ? '\\r' : char === '\t' ? '\\t' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
        continue;
      }
    } else if (char === '"') inString = true;
    else if (char === '{') open.push('}');
    else if (char === '[') open.push(']');
    else if (char === '}' || char === ']') open.pop();
    out += char;
  }
  if (!inString && open.length === 0) return out;
  if (inString) out = `${out.replace(escaped ? /\\$/ : /\\u[0-9a-fA-F]{0,3}$/, '')}"`;
  out = out.trimEnd().replace(/,$/, '').replace(/:$/, ': null');
  return out + open.reverse().join('');
}

/** The readable text of a message's content, by `content_type`. */
function contentText(content: JsonObject, contentType: string): string {
  switch (contentType) {
    case 'text':
    case 'multimodal_text':
      return Array.isArray(content.parts) ? content.parts.map(partText).filter((text) => text !== '').join('\n') : '';
    case 'code':
    case 'execution_output':
      return stringOr(content.text);
    case 'tether_browsing_display':
      return stringOr(content.result) || stringOr(content.summary);
    case 'tether_quote':
      return [stringOr(content.title), stringOr(content.text)].filter(Boolean).join('\n');
    default:
      // Types the reference does not list: keep whatever text they carry.
      if (typeof content.text === 'string') return content.text;
      if (typeof content.result === 'string') return content.result;
      if (Array.isArray(content.parts)) return content.parts.map(partText).filter((text) => text !== '').join('\n');
      return '';
  }
}

function partText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (!isObject(part)) return '';
  switch (part.content_type) {
    case 'image_asset_pointer':
      return IMAGE_PLACEHOLDER;
    case 'audio_transcription':
      return stringOr(part.text);
    default:
      // Audio and video pointers carry no text; their transcription comes as its own part.
      return typeof part.text === 'string' ? part.text : '';
  }
}

function thoughtsText(thoughts: unknown): string {
  if (!Array.isArray(thoughts)) return '';
  return thoughts
    .map((thought) => (isObject(thought) ? [stringOr(thought.summary), stringOr(thought.content)].filter(Boolean).join('\n') : ''))
    .filter((text) => text !== '')
    .join('\n\n');
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
