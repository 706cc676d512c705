/**
 * Qwen Code chats (`~/.qwen/projects/<project>/chats/<session id>.jsonl`; `<project>` is the project's
 * path with every character but letters and digits turned into `-`; the folder is `QWEN_RUNTIME_DIR`,
 * else `QWEN_HOME`, when set). Qwen Code began as a fork of Gemini CLI, but keeps its chats another way:
 * one record a line, `{uuid, parentUuid, sessionId, timestamp, type, cwd, version, gitBranch?, ...}`,
 * with Gemini's content (`message: {role, parts}`) where a record holds a message.
 *
 * Records: `user` (the person's words; one with `subtype` `notification` or `cron` is a notice Qwen
 * Code shows, not a turn: left out), `assistant` (`parts`: text, `thought: true` text, `functionCall`),
 * `tool_result` (`functionResponse` parts sent back to the model; `toolCallResult.status` says whether
 * the tool failed) and `system` (its bookkeeping: telemetry, snapshots, slash commands, rewinds; a
 * `custom_title` names the session, the last one counting). msgId: the record's `uuid`.
 *
 * Records link to the one before by `parentUuid`; the conversation is the chain from the file's last
 * record back to the first, as Qwen Code reads a chat back when resuming it. `/rewind` re-roots the
 * chain, so the turns it dropped stay in the file on a branch no later record leads to. Records that
 * share a uuid are one message, their parts joined, as Qwen Code merges them.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { isObject, lineWhere, optionalText, type JsonObject } from '../shape.js';
import { chainToLeaf } from '../parent-chain.js';
import { isoFromDateString } from '../time.js';
import { titleFromMessages } from '../titles.js';
import { geminiContentParts } from './gemini-cli.js';

const RECORD_TYPES = new Set(['user', 'assistant', 'tool_result', 'system']);
/** What Qwen Code records as the person's message but shows as a notice. */
const NOTICE_SUBTYPES = new Set(['notification', 'cron']);

function isQwenRecord(value: JsonObject): boolean {
  if (typeof value.uuid !== 'string' || typeof value.sessionId !== 'string' || !RECORD_TYPES.has(value.type as string)) return false;
  // Gemini's content (`parts`) where Claude Code, whose lines look alike, has `content`.
  if (isObject(value.message)) return Array.isArray(value.message.parts);
  return value.type === 'system' && typeof value.subtype === 'string' && 'systemPayload' in value;
}

export function isQwenCodeChat(records: readonly JsonlRecord[]): boolean {
  return records.slice(0, 50).some(({ value }) => isQwenRecord(value));
}

export function mapQwenCodeChat(records: readonly JsonlRecord[], options: MappingOptions): SessionInput {
  const own = records.filter(({ value }) => isQwenRecord(value));
  const sessionId = own.map(({ value }) => optionalText(value.sessionId)).find((id) => id !== undefined);
  if (sessionId === undefined) throw new ShapeError(`${lineWhere(records[0]?.lineNo ?? 1)} no record names its sessionId`);
  const messages = conversationChain(own).flatMap((record) => mapRecord(record, options));
  const named = own.filter(({ value }) => value.subtype === 'custom_title' && isObject(value.systemPayload)).map(({ value }) => optionalText((value.systemPayload as JsonObject).customTitle));
  const title = named.filter((text) => text !== undefined).at(-1) ?? titleFromMessages(messages);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'qwen-code', messages };
}

/**
 * The ids of the messages `/rewind` dropped: those of the records the chain from the last record
 * does not reach. Every id a dropped record gives is named, thinking and tool parts included.
 */
export function qwenCodeRewound(records: readonly JsonlRecord[]): Set<string> {
  const own = records.filter(({ value }) => isQwenRecord(value));
  const kept = new Set(conversationChain(own).map(({ value }) => value.uuid as string));
  const everything = { include: new Set(['tools', 'thinking'] as const) };
  const dropped = new Set<string>();
  for (const record of merged(own).values()) {
    if (kept.has(record.value.uuid as string)) continue;
    for (const message of mapRecord(record, everything)) if (message.msgId !== undefined) dropped.add(message.msgId);
  }
  return dropped;
}

/** One record per uuid, in the order they first appear; later records of a uuid add their parts. */
function merged(records: readonly JsonlRecord[]): Map<string, JsonlRecord> {
  const byUuid = new Map<string, JsonlRecord>();
  for (const record of records) {
    const uuid = record.value.uuid as string;
    const first = byUuid.get(uuid);
    if (first === undefined) {
      byUuid.set(uuid, record);
      continue;
    }
    const parts = [...partsOf(first.value), ...partsOf(record.value)];
    const message = isObject(first.value.message) ? first.value.message : isObject(record.value.message) ? record.value.message : undefined;
    byUuid.set(uuid, { lineNo: first.lineNo, value: { ...first.value, ...(message !== undefined ? { message: { ...message, parts } } : {}), toolCallResult: first.value.toolCallResult ?? record.value.toolCallResult } });
  }
  return byUuid;
}

function partsOf(value: JsonObject): unknown[] {
  return isObject(value.message) && Array.isArray(value.message.parts) ? value.message.parts : [];
}

/**
 * The records from the first to the last along `parentUuid`. A parent the file does not hold (a
 * damaged line that was skipped) must not cost the conversation before it: the walk goes on from the
 * nearest earlier record it has not passed.
 */
function conversationChain(records: readonly JsonlRecord[]): JsonlRecord[] {
  const byUuid = merged(records);
  const last = records.at(-1);
  const leaf = last === undefined ? undefined : byUuid.get(last.value.uuid as string);
  return chainToLeaf([...byUuid.values()], leaf, { idOf: (record) => record.value.uuid as string, parentOf: (record) => optionalText(record.value.parentUuid), byId: byUuid, resumesAt: () => true });
}

function mapRecord(record: JsonlRecord, options: MappingOptions): MessageInput[] {
  const { value } = record;
  const timestamp = isoFromDateString(value.timestamp);
  const source = { id: value.uuid as string, ...(timestamp !== undefined ? { timestamp } : {}) };
  const parts = partsOf(value);
  switch (value.type) {
    case 'user':
      if (NOTICE_SUBTYPES.has(value.subtype as string)) return [];
      return messagesFromParts({ ...source, role: 'user' }, contentParts(parts), options);
    case 'assistant':
      return messagesFromParts({ ...source, role: 'assistant' }, contentParts(parts), options);
    case 'tool_result': {
      const failed = isObject(value.toolCallResult) && value.toolCallResult.status === 'error';
      const results = contentParts(parts).map((part) => (part.kind === 'tool-result' && failed ? { ...part, isError: true } : part));
      return messagesFromParts({ ...source, role: 'tool' }, results, options);
    }
    default:
      return [];
  }
}

/** Gemini's parts, and the model's tool calls, which Qwen Code keeps in the reply itself. */
function contentParts(parts: readonly unknown[]): MessagePart[] {
  return parts.flatMap((part): MessagePart[] => {
    if (isObject(part) && isObject(part.functionCall)) return [{ kind: 'tool-call', name: optionalText(part.functionCall.name) ?? 'tool', args: part.functionCall.args ?? {} }];
    return geminiContentParts([part]);
  });
}
