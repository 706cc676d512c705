/**
 * Codex CLI sessions (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, or under
 * `CODEX_HOME`; `archived_sessions/` holds the ones a person archived). Three shapes exist:
 *
 * 1. Since late 2025, lines `{timestamp, type, payload}`: `session_meta` (the thread id, its parent for a
 *    sub-agent), `response_item` (the conversation as sent to the model: messages, reasoning, tool calls
 *    and their output), `event_msg` (what the interface showed: each user turn again, agent messages,
 *    token counts...), `turn_context`, `compacted`, and newer types (`world_state`, `token_usage_record`).
 *    The conversation is read from the `response_item` lines alone, so each turn is stored once;
 *    `event_msg` lines are used only by a file that has no `response_item` messages at all. Unknown types
 *    are ignored. A resumed session appends to its own file: still one session.
 * 2. Mid 2025: a bare header line `{id, timestamp, instructions, git?}`, `{"record_type":"state"}`
 *    markers, and bare Responses items.
 * 3. The first (TypeScript) CLI: one JSON document `{session: {id, timestamp, instructions}, items}`,
 *    rewritten under a new id each time it saved the growing conversation. The saves of one conversation
 *    are one session: it is named by the first item the model returned (`codex-<item id>`), which every
 *    later save repeats, and the later saves add only their new messages. Its forks for other providers
 *    (`open-codex`) saved Chat Completions messages instead (`{role, content, tool_calls}`, no ids): such
 *    a conversation is named by a hash of the person's first message, which every save repeats.
 *
 * msgId: the item's own id (`msg_...`, `fc_...`); a tool output takes `<call id>:output`; user
 * messages of versions that gave them no id get one derived from their content. A sub-agent's thread
 * is its own session, named by its thread id, with `parentSessionId` its parent thread. Titles: the
 * name a person gave the thread (`session_index.jsonl`, applied when the file is read from disk, see
 * companions.ts), else the first thing the person said.
 */
import { createHash } from 'node:crypto';
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { isChatMessage, mapChatMessage, mapResponseItem, personsRequest, RESPONSE_ITEM_TYPES, type ToolNames } from './codex-items.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { messagesFromParts, type MappingOptions } from '../parts.js';
import { at, isObject, optionalText, requireArray, requireObject, type JsonObject } from '../shape.js';
import { isoFromDateString } from '../time.js';
import { titleFromMessages } from '../titles.js';

const ENVELOPE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

function isEnvelope(value: JsonObject): boolean {
  return ENVELOPE_TYPES.has(value.type as string) && isObject(value.payload);
}

function isBareHeader(value: JsonObject | undefined): boolean {
  return value !== undefined && value.type === undefined && typeof value.id === 'string' && typeof value.timestamp === 'string';
}

function isBareItem(value: JsonObject): boolean {
  return RESPONSE_ITEM_TYPES.has(value.type as string) && ('role' in value || 'call_id' in value || 'summary' in value);
}

export function isCodexRollout(records: readonly JsonlRecord[]): boolean {
  const head = records.slice(0, 50);
  if (head.some(({ value }) => isEnvelope(value))) return true;
  return isBareHeader(records[0]?.value) && head.slice(1).some(({ value }) => value.record_type === 'state' || isBareItem(value));
}

/** @param baseName the file name: `rollout-<time>-<thread id>.jsonl` names the thread when no line does. */
export function mapCodexRollout(records: readonly JsonlRecord[], baseName: string, options: MappingOptions): SessionInput {
  const fileThread = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(baseName)?.[1] ?? baseName.replace(/\.jsonl$/i, '');
  return records.some(({ value }) => isEnvelope(value)) ? mapEnvelopeRollout(records, fileThread, options) : mapBareRollout(records, fileThread, options);
}

function mapEnvelopeRollout(records: readonly JsonlRecord[], fileThread: string, options: MappingOptions): SessionInput {
  // The first header is this thread's; a later one (history copied from another thread) changes nothing.
  const meta = records.find(({ value }) => value.type === 'session_meta' && isObject(value.payload))?.value.payload as JsonObject | undefined;
  const sessionId = optionalText(meta?.id) ?? fileThread;
  const toolNames: ToolNames = new Map();
  const messages: MessageInput[] = [];
  const hasItems = records.some(({ value }) => value.type === 'response_item' && isObject(value.payload) && value.payload.type === 'message');
  for (const { value } of records) {
    if (!isObject(value.payload)) continue;
    const timestamp = isoFromDateString(value.timestamp);
    if (value.type === 'response_item') messages.push(...mapResponseItem(value.payload, toolNames, options, timestamp));
    else if (value.type === 'event_msg' && !hasItems) messages.push(...eventMessages(value.payload, options, timestamp));
  }
  return session(sessionId, meta, messages);
}

/** The turns of a file that recorded only what the interface showed. */
function eventMessages(payload: JsonObject, options: MappingOptions, timestamp: string | undefined): MessageInput[] {
  const meta = timestamp !== undefined ? { timestamp } : {};
  if (payload.type === 'user_message' && typeof payload.message === 'string') return messagesFromParts({ role: 'user', ...meta }, [{ kind: 'text', text: personsRequest(payload.message) }], options);
  if (payload.type === 'agent_message' && typeof payload.message === 'string') return messagesFromParts({ role: 'assistant', ...meta }, [{ kind: 'text', text: payload.message }], options);
  if (payload.type === 'agent_reasoning' && typeof payload.text === 'string') return messagesFromParts({ role: 'assistant', ...meta }, [{ kind: 'thinking', text: payload.text }], options);
  return [];
}

function mapBareRollout(records: readonly JsonlRecord[], fileThread: string, options: MappingOptions): SessionInput {
  const header = isBareHeader(records[0]?.value) ? records[0]!.value : undefined;
  const toolNames: ToolNames = new Map();
  const messages: MessageInput[] = [];
  for (const { value } of records) {
    if (value === header || !RESPONSE_ITEM_TYPES.has(value.type as string)) continue;
    messages.push(...mapResponseItem(value, toolNames, options, isoFromDateString(value.timestamp)));
  }
  return session(optionalText(header?.id) ?? fileThread, header, messages);
}

function session(sessionId: string, meta: JsonObject | undefined, messages: MessageInput[]): SessionInput {
  const source = meta?.source;
  const spawn = isObject(source) && isObject(source.subagent) && isObject(source.subagent.thread_spawn) ? source.subagent.thread_spawn : undefined;
  const parent = optionalText(meta?.parent_thread_id) ?? optionalText(spawn?.parent_thread_id);
  const subagent = parent !== undefined || (isObject(source) && 'subagent' in source) || meta?.thread_source === 'subagent';
  if (!subagent) {
    const title = titleFromMessages(messages);
    return { sessionId, ...(title !== undefined ? { title } : {}), source: 'codex', messages };
  }
  const kind = isObject(source) && typeof source.subagent === 'string' ? source.subagent : undefined;
  if (isApprovalReview(meta)) {
    // Codex's reviewer of an action awaiting approval (0.159): its request is the parent's history
    // quoted by Codex, not anything the person wrote; what is kept is the reviewer's verdict.
    const verdicts = messages.filter((message) => message.role !== 'user');
    return { sessionId, title: 'Subagent: approval review', source: 'codex', ...(parent !== undefined ? { parentSessionId: parent } : {}), messages: verdicts };
  }
  const task = titleFromMessages(messages) ?? optionalText(meta?.agent_nickname) ?? kind ?? sessionId;
  return { sessionId, title: `Subagent: ${task}`, source: 'codex', ...(parent !== undefined ? { parentSessionId: parent } : {}), messages };
}

/** Whether a thread is Codex's review of an action awaiting approval (`thread_source: guardian_review`, `source.subagent.other: guardian`). */
function isApprovalReview(meta: JsonObject | undefined): boolean {
  const source = meta?.source;
  return meta?.thread_source === 'guardian_review' || (isObject(source) && isObject(source.subagent) && source.subagent.other === 'guardian');
}

/** The first CLI's saved conversation: `{session: {id, timestamp, instructions}, items: [...]}`. */
export function isCodexSavedSession(value: unknown): boolean {
  return isObject(value) && isObject(value.session) && Array.isArray(value.items) && ('instructions' in value.session || 'timestamp' in value.session);
}

export function mapCodexSavedSession(value: unknown, where: string, options: MappingOptions): SessionInput {
  const document = requireObject(value, where);
  const header = requireObject(document.session, at(where, 'session'));
  const items = requireArray(document.items, at(where, 'items')).filter(isObject);
  const toolNames: ToolNames = new Map();
  const messages = items.flatMap((item) => (isChatMessage(item) ? mapChatMessage(item, toolNames, options) : mapResponseItem(item, toolNames, options, undefined)));
  const firstReturned = items.map((item) => optionalText(item.id)).find((id) => id !== undefined);
  if (firstReturned !== undefined) return session(`codex-${firstReturned}`, undefined, messages);
  // Chat Completions messages carry no id: the saves of one conversation share its opening words.
  const opening = items.filter(isChatMessage).flatMap((item) => mapChatMessage(item, new Map(), { include: new Set() })).find((message) => message.role === 'user');
  const sessionId = opening !== undefined ? `codex-${createHash('sha256').update(opening.content, 'utf8').digest('hex').slice(0, 24)}` : (optionalText(header.id) ?? 'codex');
  return session(sessionId, undefined, messages);
}

