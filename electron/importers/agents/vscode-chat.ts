/**
 * VS Code's own chat (GitHub Copilot Chat, agent mode, any chat participant). VS Code keeps each
 * session of a workspace in `<user data>/User/workspaceStorage/<hash>/chatSessions/`, and those of
 * windows without a folder in `User/globalStorage/emptyWindowChatSessions/`, in one of two shapes:
 *
 * - `<sessionId>.json` (until 2025): the session whole, `ISerializableChatData` version 3:
 *   `{version, sessionId, creationDate, customTitle?, requesterUsername, responderUsername,
 *   initialLocation, requests: [{requestId, message: {text, parts}, response: [...], timestamp,
 *   modelId, isCanceled, result, ...}]}`. "Chat: Export Chat..." writes the same requests without
 *   `version`, `sessionId` and dates.
 * - `<sessionId>.jsonl` (since): a log of changes to that same object. Line 1 is `{"kind":0,"v":
 *   <the whole session>}`; after it `kind` 1 sets the value at the key path `k`, 2 truncates the
 *   array at `k` to `i` (when given) and appends the items `v`, and 3 deletes the value at `k`. When
 *   the log grows long VS Code rewrites it as a single kind 0 line. Replaying it gives the session.
 *
 * A request is one turn: the person's message (`message.text`) and the answer (`response`, a list of
 * parts). The answer's text is its Markdown parts (`{value}`, or `{kind: 'markdownContent', content}`)
 * with the files and symbols referenced inline (`inlineReference`, kept by name) in order; the
 * model's thinking (`thinking`) and tool calls (`toolInvocationSerialized`) are extras (`include`);
 * edits, code block links, progress and confirmations are left out. A canceled request keeps what
 * was answered before it was stopped.
 *
 * msgIds: the request's `requestId` for the person's message, `<requestId>:response` for the answer
 * (and `#<part>` after it for its extras), so a session read again as it grows keeps its ids.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import { messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { at, isObject, lineWhere, optionalText, requireArray, requireObject, type JsonObject } from '../shape.js';
import { isoFromEpochMillis } from '../time.js';
import { titleFromMessages } from '../titles.js';

/** A whole session (`.json`), or an export of one: requests, and the names of who spoke or the version VS Code wrote. */
export function isVsCodeChatSession(value: unknown): boolean {
  if (!isObject(value) || !Array.isArray(value.requests)) return false;
  const marked = typeof value.responderUsername === 'string' || typeof value.requesterUsername === 'string' || (typeof value.version === 'number' && typeof value.sessionId === 'string');
  return marked && value.requests.slice(0, 5).every((request) => isObject(request) && ('requestId' in request || 'message' in request));
}

/** A change log (`.jsonl`): its first line holds the whole session as it was. */
export function isVsCodeChatLog(records: readonly JsonlRecord[]): boolean {
  const first = records[0]?.value;
  return isObject(first) && first.kind === 0 && isObject(first.v) && Array.isArray(first.v.requests);
}

/** A session without its id (an export) is named after its first request. */
export function mapVsCodeChatSession(value: unknown, where: string, options: MappingOptions): SessionInput {
  return mapSession(requireObject(value, where), where, options);
}

export function mapVsCodeChatLog(records: readonly JsonlRecord[], options: MappingOptions): SessionInput {
  return mapSession(replayChatLog(records), '', options);
}

/** The session as the log leaves it, each line applied in order (see the module's comment). */
export function replayChatLog(records: readonly JsonlRecord[]): JsonObject {
  let state: JsonObject | undefined;
  for (const { lineNo, value } of records) {
    const where = lineWhere(lineNo);
    const entry = requireObject(value, where);
    // Values are copied: the records are read again when a damaged line is left out.
    if (entry.kind === 0) {
      state = requireObject(structuredClone(entry.v), at(where, 'v'));
      continue;
    }
    if (state === undefined) throw new ShapeError(`${where} the log must start with the whole session (kind 0)`);
    const path = requireArray(entry.k, at(where, 'k'));
    if (path.length === 0 || !path.every((key) => typeof key === 'string' || typeof key === 'number')) throw new ShapeError(`${at(where, 'k')} must be a path of keys and indexes`);
    const keys = path as Array<string | number>;
    const parent = containerAt(state, keys.slice(0, -1), where);
    const last = keys[keys.length - 1]!;
    switch (entry.kind) {
      case 1:
        parent[last] = structuredClone(entry.v);
        break;
      case 3:
        delete parent[last];
        break;
      case 2: {
        const existing = parent[last] ?? [];
        if (!Array.isArray(existing)) throw new ShapeError(`${where} ${describePath(keys)} is not a list to add to`);
        if (typeof entry.i === 'number') existing.length = Math.min(existing.length, Math.max(0, entry.i));
        if (entry.v !== undefined) existing.push(...requireArray(structuredClone(entry.v), at(where, 'v')));
        parent[last] = existing;
        break;
      }
      default:
        throw new ShapeError(`${at(where, 'kind')} must be 0, 1, 2 or 3 (found ${JSON.stringify(entry.kind)})`);
    }
  }
  if (state === undefined) throw new ShapeError('the log holds no session');
  return state;
}

function containerAt(state: JsonObject, keys: ReadonlyArray<string | number>, where: string): Record<string | number, unknown> {
  let current: unknown = state;
  for (const [index, key] of keys.entries()) {
    const next: unknown = Array.isArray(current) && typeof key === 'number' ? current[key] : isObject(current) ? current[key] : undefined;
    if (next === null || typeof next !== 'object') throw new ShapeError(`${where} ${describePath(keys.slice(0, index + 1))} is not in the session`);
    current = next;
  }
  return current as Record<string | number, unknown>;
}

function describePath(keys: ReadonlyArray<string | number>): string {
  return keys.reduce<string>((where, key) => at(where, key), '') || 'the session';
}

function mapSession(session: JsonObject, where: string, options: MappingOptions): SessionInput {
  const requestsWhere = at(where, 'requests');
  const requests = requireArray(session.requests, requestsWhere);
  const messages: MessageInput[] = [];
  let firstRequestId: string | undefined;
  requests.forEach((value, index) => {
    const requestWhere = at(requestsWhere, index);
    const request = requireObject(value, requestWhere);
    const requestId = optionalText(request.requestId) ?? `request-${index}`;
    firstRequestId ??= requestId;
    messages.push(...mapRequest(request, requestId, options));
  });
  const sessionId = optionalText(session.sessionId) ?? (firstRequestId !== undefined ? `vscode-chat:${firstRequestId}` : 'vscode-chat');
  const title = optionalText(session.customTitle)?.trim() ?? titleFromMessages(messages);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'vscode-chat', messages };
}

function mapRequest(request: JsonObject, requestId: string, options: MappingOptions): MessageInput[] {
  const asked = isoFromEpochMillis(request.timestamp);
  const message = request.message;
  const text = typeof message === 'string' ? message : isObject(message) && typeof message.text === 'string' ? message.text : '';
  const user = messagesFromParts({ id: requestId, role: 'user', ...(asked !== undefined ? { timestamp: asked } : {}) }, [{ kind: 'text', text }], options);
  const answered = answerTime(request) ?? asked;
  const parts = responseParts(Array.isArray(request.response) ? request.response : []);
  const assistant = messagesFromParts({ id: `${requestId}:response`, role: 'assistant', ...(answered !== undefined ? { timestamp: answered } : {}) }, parts, options);
  return [...user, ...assistant];
}

/** When the answer ended: the model's completion time, or the request's time plus how long the answer took. */
function answerTime(request: JsonObject): string | undefined {
  const state = isObject(request.modelState) ? request.modelState : undefined;
  const completed = isoFromEpochMillis(state?.completedAt);
  if (completed !== undefined) return completed;
  const timings = isObject(request.result) && isObject(request.result.timings) ? request.result.timings : undefined;
  if (typeof request.timestamp === 'number' && typeof timings?.totalElapsed === 'number') return isoFromEpochMillis(request.timestamp + timings.totalElapsed);
  return undefined;
}

/** The answer's parts: runs of Markdown and inline references joined as written, with thinking and tool calls between them. */
function responseParts(items: readonly unknown[]): MessagePart[] {
  const parts: MessagePart[] = [];
  let text = '';
  const endText = () => {
    if (text !== '') parts.push({ kind: 'text', text });
    text = '';
  };
  for (const item of items) {
    if (!isObject(item)) continue;
    switch (item.kind) {
      case undefined:
        if (typeof item.value === 'string') text += item.value;
        break;
      case 'markdownContent':
      case 'markdownVuln':
        text += markdownText(item.content);
        break;
      case 'inlineReference':
        text += referenceName(item);
        break;
      case 'thinking': {
        const thought = Array.isArray(item.value) ? item.value.filter((v): v is string => typeof v === 'string').join('') : markdownText(item.value);
        if (thought.trim() === '') break;
        endText();
        parts.push({ kind: 'thinking', text: thought });
        break;
      }
      case 'toolInvocationSerialized':
      case 'toolInvocation':
        endText();
        parts.push({ kind: 'tool-call', name: optionalText(item.toolId) ?? 'tool', args: toolDescription(item) });
        break;
      default:
        // Edits, code block links, progress, confirmations, undo stops: what the panel showed around the answer.
        break;
    }
  }
  endText();
  return parts;
}

/** A string, or an `IMarkdownString`'s `value`. */
function markdownText(value: unknown): string {
  if (typeof value === 'string') return value;
  return isObject(value) && typeof value.value === 'string' ? value.value : '';
}

/** The name a reference shows: its own, a symbol's, else the file's base name. */
function referenceName(item: JsonObject): string {
  const named = optionalText(item.name);
  if (named !== undefined) return named;
  const reference = isObject(item.inlineReference) ? item.inlineReference : {};
  const symbol = optionalText(reference.name);
  if (symbol !== undefined) return symbol;
  // A location (`{uri, range}`) or a URI (`{scheme, path}`, or `external` alone).
  const uri = isObject(reference.uri) ? reference.uri : reference;
  const file = optionalText(uri.path) ?? optionalText(uri.fsPath) ?? optionalText(uri.external);
  return file === undefined ? '' : baseName(file);
}

function baseName(file: string): string {
  return file.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
}

/** What VS Code said of the call (the past-tense message once it ran), and the command line for a terminal tool. */
function toolDescription(item: JsonObject): string {
  // A file is linked without a label (`Read [](file:///…/cart.ts)`): its name stands for it.
  const said = (markdownText(item.pastTenseMessage) || markdownText(item.invocationMessage)).replace(/\[\]\(([^)\s]+)\)/g, (_link, uri: string) => baseName(uri));
  const data = isObject(item.toolSpecificData) ? item.toolSpecificData : undefined;
  const commandLine = data && isObject(data.commandLine) ? (optionalText(data.commandLine.toolEdited) ?? optionalText(data.commandLine.original)) : optionalText(data?.command);
  return [said.trim(), commandLine !== undefined ? `$ ${commandLine}` : ''].filter((line) => line !== '').join('\n');
}
