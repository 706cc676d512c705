/**
 * Open WebUI "Export chats": an array of chats. Current exports hold a tree in
 * `chat.history.messages` with `chat.history.currentId` as the message the person last saw; we
 * keep the path from there up to the root. Older exports have a linear `chat.messages`.
 *
 * Open WebUI writes model reasoning and tool calls into the assistant's text as
 * `<details type="reasoning">` and `<details type="tool_calls">` blocks. They are taken out of the
 * text and handled like thinking and tool calls elsewhere (left out unless included).
 */
import { createHash } from 'node:crypto';
import type { MessageInput, Role, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import { messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireObject, requireString, serializeNested, type JsonObject } from '../shape.js';
import { isoFromEpoch } from '../time.js';
import { loadPackage } from '../readers/lazyPackage.js';

export function isOpenWebUiChat(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (isObject(value.chat)) return isObject(value.chat.history) || Array.isArray(value.chat.messages);
  // A single chat exported on its own: the chat object itself, with its message tree.
  return isObject(value.history) && isObject(value.history.messages);
}

export function mapOpenWebUiChat(value: unknown, where: string, options: MappingOptions): SessionInput {
  const outer = requireObject(value, where);
  const bare = !isObject(outer.chat);
  const item = bare ? {} : outer;
  const chatWhere = bare ? where : at(where, 'chat');
  const chat = bare ? outer : requireObject(outer.chat, chatWhere);

  const messages: MessageInput[] = [];
  const path = conversation(chat, chatWhere);
  for (const { message, where: messageWhere } of path) {
    // One by one: a message can have any number of parts (content blocks), and spreading them all
    // as arguments of one push() overflows the stack past about a hundred thousand.
    for (const mapped of mapMessage(message, messageWhere, options)) messages.push(mapped);
  }
  const title = optionalText(item.title) ?? optionalText(chat.title);
  // Chat ids can be empty (single-chat exports, shared copies): the chat's first message then names it,
  // so that exporting the same chat again gives the same session.
  const sessionId = optionalText(item.id) ?? optionalText(chat.id) ?? derivedId(path[0]?.message, chat);
  if (sessionId === undefined) throw new ShapeError(`${at(where, 'id')} must be a non-empty string (it is missing, and the chat has no messages to name it by)`);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'open-webui', messages };
}

function derivedId(first: JsonObject | undefined, chat: JsonObject): string | undefined {
  if (!first) return undefined;
  const key = optionalText(first.id) ?? JSON.stringify([first.role, first.content, first.timestamp, chat.timestamp ?? null]);
  return `open-webui-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

function conversation(chat: JsonObject, where: string): Array<{ message: JsonObject; where: string }> {
  const history = isObject(chat.history) ? chat.history : undefined;
  const tree = history && isObject(history.messages) ? history.messages : undefined;
  if (history && tree && typeof history.currentId === 'string') {
    const current = history.currentId in tree ? history.currentId : (newestLeaf(tree) ?? history.currentId);
    return activePath(tree, current, at(at(where, 'history'), 'messages'));
  }
  if (Array.isArray(chat.messages)) {
    return chat.messages.map((message, index) => ({ message: requireObject(message, at(at(where, 'messages'), index)), where: at(at(where, 'messages'), index) }));
  }
  if (tree && Object.keys(tree).length === 0) return [];
  throw new ShapeError(`${at(at(where, 'history'), 'currentId')} must name a message of ${at(at(where, 'history'), 'messages')}, or ${at(where, 'messages')} must be an array`);
}

/**
 * The message a chat whose `currentId` names none (a message deleted under it: Open WebUI itself then
 * cannot open the chat) is read to: the newest message without a child in the tree whose parents all
 * are there, up to the first message, as a chat's repair picks it. A child named but missing counts
 * as none, and a message left without its parent is passed over.
 */
function newestLeaf(tree: JsonObject): string | undefined {
  let newest: { id: string; time: number } | undefined;
  for (const [id, message] of Object.entries(tree)) {
    if (!isObject(message)) continue;
    const children = Array.isArray(message.childrenIds) ? message.childrenIds.filter((child) => typeof child === 'string' && child in tree) : [];
    if (children.length > 0 || !reachesFirst(tree, id)) continue;
    const time = typeof message.timestamp === 'number' ? message.timestamp : -Infinity;
    if (!newest || time >= newest.time) newest = { id, time };
  }
  return newest?.id;
}

/** Whether the parents of a message of the tree lead, all there and without a cycle, to one that has none. */
function reachesFirst(tree: JsonObject, id: string): boolean {
  const seen = new Set<string>();
  for (let step: unknown = id; ; ) {
    if (typeof step !== 'string' || seen.has(step) || !isObject(tree[step])) return false;
    seen.add(step);
    const parentId = (tree[step] as JsonObject).parentId;
    if (parentId === null || parentId === undefined) return true;
    step = parentId;
  }
}

function activePath(tree: JsonObject, currentId: string, where: string): Array<{ message: JsonObject; where: string }> {
  if (!(currentId in tree)) throw new ShapeError(`currentId ${JSON.stringify(currentId)} is not in ${where}`);
  const path: Array<{ message: JsonObject; where: string }> = [];
  const seen = new Set<string>();
  for (let id: string | undefined = currentId; id !== undefined; ) {
    if (seen.has(id)) throw new ShapeError(`${where} has a cycle through message ${JSON.stringify(id)}`);
    seen.add(id);
    const message = requireObject(tree[id], at(where, id));
    path.push({ message, where: at(where, id) });
    const parentId = message.parentId;
    if (parentId === null || parentId === undefined) break;
    if (typeof parentId !== 'string') throw new ShapeError(`${at(at(where, id), 'parentId')} must be a string or null`);
    if (!(parentId in tree)) throw new ShapeError(`${at(at(where, id), 'parentId')} ${JSON.stringify(parentId)} is not in ${where}`);
    id = parentId;
  }
  return path.reverse();
}

function mapMessage(message: JsonObject, where: string, options: MappingOptions): MessageInput[] {
  const roleName = requireString(message.role, at(where, 'role'));
  const role: Role | undefined = roleName === 'user' || roleName === 'assistant' || roleName === 'system' ? roleName : undefined;
  if (role === undefined) return [];
  const content = typeof message.content === 'string' ? message.content : '';
  const timestamp = isoFromEpoch(message.timestamp);
  const id = optionalText(message.id);
  const parts = role === 'assistant' ? splitDetailsBlocks(content) : [{ kind: 'text' as const, text: content }];
  return messagesFromParts({ ...(id !== undefined ? { id } : {}), role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options);
}

/** The assistant's text with its reasoning and tool-call blocks as separate parts, in order. */
function splitDetailsBlocks(content: string): MessagePart[] {
  const parts: MessagePart[] = [];
  let last = 0;
  for (const { start, end, type, attributes, body } of detailsBlocks(content)) {
    parts.push({ kind: 'text', text: content.slice(last, start).trim() });
    if (type === 'reasoning') {
      parts.push({ kind: 'thinking', text: reasoningText(body) });
    } else {
      const attrs = parseAttributes(attributes);
      const name = attrs.get('name') ?? 'tool';
      parts.push({ kind: 'tool-call', name, args: parseJsonOr(attrs.get('arguments') ?? '') });
      if (attrs.has('result')) {
        const result = parseJsonOr(attrs.get('result') ?? '');
        const text = typeof result === 'string' ? result : serializeNested(`the result of the tool call ${JSON.stringify(name)}`, () => JSON.stringify(result));
        parts.push({ kind: 'tool-result', name, text });
      }
    }
    last = end;
  }
  parts.push({ kind: 'text', text: content.slice(last).trim() });
  return parts;
}

const DETAILS_OPENING = /<details\s+type="(reasoning|tool_calls)"/y;
const DETAILS_CLOSING = '</details>';

/**
 * The blocks `/<details\s+type="(reasoning|tool_calls)"([^>]*)>([\s\S]*?)<\/details>/g` matches,
 * found with `indexOf`: that expression scans the rest of the text again from every opening tag
 * that is never closed, which is quadratic (minutes for a few MB of unclosed tags). Once a tag has
 * no '>' or no closing tag after it, no later one has either.
 */
function* detailsBlocks(content: string): Generator<{ start: number; end: number; type: string; attributes: string; body: string }> {
  for (let from = 0; ; ) {
    const start = content.indexOf('<details', from);
    if (start === -1) return;
    DETAILS_OPENING.lastIndex = start;
    const opening = DETAILS_OPENING.exec(content);
    if (opening === null) {
      from = start + 1;
      continue;
    }
    const tagEnd = content.indexOf('>', DETAILS_OPENING.lastIndex);
    if (tagEnd === -1) return;
    const closing = content.indexOf(DETAILS_CLOSING, tagEnd + 1);
    if (closing === -1) return;
    const end = closing + DETAILS_CLOSING.length;
    yield { start, end, type: opening[1]!, attributes: content.slice(DETAILS_OPENING.lastIndex, tagEnd), body: content.slice(tagEnd + 1, closing) };
    from = end;
  }
}

/**
 * Reasoning is shown as a quote under a "Thought for N seconds" summary. Open WebUI of 2026 writes it
 * HTML-escaped (`&gt; First, the rules in &lt;policy&gt; tags …`), earlier versions as it was.
 */
function reasoningText(body: string): string {
  return decodeHtmlEntities(withoutSummary(body))
    .split('\n')
    .map((line) => line.replace(/^>\s?/, ''))
    .join('\n')
    .trim();
}

/** The body without its first `<summary>...</summary>` (found with indexOf for the reason given above). */
function withoutSummary(body: string): string {
  const start = body.indexOf('<summary>');
  const end = start === -1 ? -1 : body.indexOf('</summary>', start + '<summary>'.length);
  return end === -1 ? body : body.slice(0, start) + body.slice(end + '</summary>'.length);
}

function parseAttributes(attributes: string): Map<string, string> {
  const result = new Map<string, string>();
  // A name starts where a run of name characters starts: tried from inside the run as well, the
  // expression backtracks through the rest of the run each time (quadratic on a long run).
  for (const match of attributes.matchAll(/(?<![\w-])([\w-]+)="([^"]*)"/g)) {
    result.set(match[1]!, decodeHtmlEntities(match[2]!));
  }
  return result;
}

/**
 * Text as Open WebUI wrote it into HTML (Python's `html.escape`: `&quot;`, `&#x27;`, `&lt;` …), read
 * with the `entities` package, loaded on the first text that holds an entity.
 */
function decodeHtmlEntities(text: string): string {
  return text.includes('&') ? loadPackage<typeof import('entities')>('entities').decodeHTML(text) : text;
}

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
