/**
 * OpenClaw session transcripts (`<sessionId>.jsonl`, written by pi-coding-agent's SessionManager),
 * including archives of earlier sessions (`<sessionId>.jsonl.reset.<timestamp>`).
 *
 * Line 1 is the session header; every later line is an entry with `id` and `parentId`, forming a
 * tree. The conversation is the path from the last entry to the root. msgId: `<sessionId>:<entry id>`.
 *
 * What we keep of the entry types:
 * - `message`: user, assistant and (with `include: ['tools']`) tool results; assistant thinking and
 *   tool calls as described in parts.ts. Other message roles (extension-defined) are left out.
 * - `compaction`: the file is append-only, so the messages the summary replaced are still in the
 *   file and on the path; we import those. The summary itself is left out: it repeats, in the
 *   model's words, what the messages already say, and would be found by search next to them.
 * - `branch_summary`: left out for the same reason (it summarises an abandoned branch).
 * - A message that came in from a chat channel (Telegram, Discord, WhatsApp...) opens with what
 *   OpenClaw tells the model about it, each a heading and a JSON block: `Conversation info (untrusted
 *   metadata):`, `Sender (untrusted metadata):`, `Replied message (untrusted, for context):`. Those
 *   blocks are left out (OpenClaw's own apps hide them too); the sender's name is the message's speaker.
 *   An attached picture (`[media attached: <path> (image/png) | <path>]`, with OpenClaw's note to the
 *   model on sending one back) is `[image]`.
 * - OpenClaw's own turns are left out unless tools are included: its heartbeat (`Read HEARTBEAT.md if it
 *   exists...`, since 2026.5 `[OpenClaw heartbeat poll]`, and the model's `HEARTBEAT_OK`), a sub-agent's
 *   result it routes in (`[Inter-session message] ... isUser=false`, its internal context), the memory flush before a compaction (and `NO_REPLY`),
 *   the greeting it asks for after `/new` or `/reset` (and its `✅ New session started` notice), and a
 *   gateway's restart report (`GatewayRestart:` with its JSON).
 * - `session_info` gives the title, else the first thing the person said; `model_change`, `thinking_level_change`, `label`, `custom`
 *   and `custom_message` (extension state and injected context) are not dialogue and are left out.
 *
 * Version 1 files had no entry ids; their lines are taken in order, with `L<line number>` as the id.
 *
 * Since 2026.8 OpenClaw keeps the same lines as rows of a database (openclaw-db.ts) and moves idle
 * sessions to cold archives: zstd-compressed JSONL of `{"kind":"header","sessionId",...}` followed by
 * `{"kind":"event","row":{"seq","event_json"}}` (and index rows we ignore). Both are read here as the
 * lines they hold, with line number `seq + 1` (the line the event had in the session's file).
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, textOfResultContent, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, lineWhere, optionalText, requireNonEmptyString, requireObject, requireString, type JsonObject } from '../shape.js';
import { isoFromDateString, isoFromEpochMillis } from '../time.js';
import { titleFromMessages } from '../titles.js';

export function isOpenClawSession(records: readonly JsonlRecord[]): boolean {
  const header = records[0]?.value;
  return header !== undefined && (header.type === 'session' || isColdArchiveHeader(header));
}

function isColdArchiveHeader(value: JsonObject): boolean {
  return value.kind === 'header' && value.version === 1 && typeof value.sessionId === 'string' && typeof value.generation === 'string';
}

/** The session's lines held by a cold archive, in order. */
function coldArchiveEvents(records: readonly JsonlRecord[]): JsonlRecord[] {
  const events: JsonlRecord[] = [];
  for (const record of records.slice(1)) {
    if (record.value.kind !== 'event') continue;
    const row = requireObject(record.value.row, at(lineWhere(record.lineNo), 'row'));
    const seq = row.seq;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) throw new ShapeError(`${at(at(lineWhere(record.lineNo), 'row'), 'seq')} must be a whole number`);
    events.push(openClawEvent(seq, requireString(row.event_json, at(at(lineWhere(record.lineNo), 'row'), 'event_json'))));
  }
  return events.sort((a, b) => a.lineNo - b.lineNo);
}

/** One stored event (a database row's `event_json`, or a cold archive's) as the line it was. */
export function openClawEvent(seq: number, eventJson: string): JsonlRecord {
  let value: unknown;
  try {
    value = JSON.parse(eventJson);
  } catch {
    throw new ShapeError(`${lineWhere(seq + 1)} the stored event is not valid JSON`);
  }
  if (!isObject(value)) throw new ShapeError(`${lineWhere(seq + 1)} the stored event must be a JSON object`);
  return { lineNo: seq + 1, value };
}

/** @param label the title OpenClaw's database gives the session, below its own name and above its first prompt. */
export function mapOpenClawSession(given: readonly JsonlRecord[], options: MappingOptions, label?: string): SessionInput {
  const records = given[0] !== undefined && isColdArchiveHeader(given[0].value) ? coldArchiveEvents(given) : given;
  const header = records[0];
  if (header === undefined || header.value.type !== 'session') throw new ShapeError('line 1 must be the session header ({"type":"session",...})');
  const sessionId = requireNonEmptyString(header.value.id, at(lineWhere(header.lineNo), 'id'));
  const entries = records.slice(1);

  const messages: MessageInput[] = [];
  for (const entry of activeBranch(entries)) {
    if (entry.value.type !== 'message') continue;
    const entryId = typeof entry.value.id === 'string' ? entry.value.id : `L${entry.lineNo}`;
    for (const mapped of mapMessage(entry, `${sessionId}:${entryId}`, options)) messages.push(mapped);
  }

  const title = sessionName(entries) ?? label ?? titleFromMessages(messages);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'openclaw', messages };
}

function activeBranch(entries: readonly JsonlRecord[]): JsonlRecord[] {
  if (!entries.some((entry) => typeof entry.value.id === 'string')) return [...entries];

  const byId = new Map<string, JsonlRecord>();
  for (const entry of entries) {
    requireString(entry.value.id, at(lineWhere(entry.lineNo), 'id'));
    byId.set(entry.value.id as string, entry);
  }
  const path: JsonlRecord[] = [];
  const seen = new Set<string>();
  for (let entry = entries.at(-1); entry !== undefined; ) {
    const id = entry.value.id as string;
    if (seen.has(id)) throw new ShapeError(`${lineWhere(entry.lineNo)} the entries' parentId links form a cycle through ${JSON.stringify(id)}`);
    seen.add(id);
    path.push(entry);
    const parentId = entry.value.parentId;
    if (parentId === null || parentId === undefined) break;
    if (typeof parentId !== 'string') throw new ShapeError(`${at(lineWhere(entry.lineNo), 'parentId')} must be a string or null`);
    const parent = byId.get(parentId);
    if (parent === undefined) throw new ShapeError(`${at(lineWhere(entry.lineNo), 'parentId')} ${JSON.stringify(parentId)} is not an entry of this file`);
    entry = parent;
  }
  return path.reverse();
}

function mapMessage(entry: JsonlRecord, id: string, options: MappingOptions): MessageInput[] {
  const where = at(lineWhere(entry.lineNo), 'message');
  const message = requireObject(entry.value.message, where);
  const role = requireString(message.role, at(where, 'role'));
  const timestamp = isoFromDateString(entry.value.timestamp) ?? isoFromEpochMillis(message.timestamp);
  const meta = { id, ...(timestamp !== undefined ? { timestamp } : {}) };

  switch (role) {
    case 'user': {
      const { parts, speaker } = withoutChannelContext(contentParts(message.content));
      if (!options.include.has('tools') && isOpenClawsOwnTurn(OWN_PROMPTS, parts)) return [];
      const messages = messagesFromParts({ ...meta, role: 'user' }, parts, options);
      return speaker === undefined ? messages : messages.map((mapped) => (mapped.role === 'user' ? { ...mapped, speaker } : mapped));
    }
    case 'assistant': {
      const parts = contentParts(message.content);
      if (!options.include.has('tools') && isOpenClawsOwnTurn(OWN_REPLIES, parts)) return messagesFromParts({ ...meta, role: 'assistant' }, parts.filter((part) => part.kind !== 'text'), options);
      return messagesFromParts({ ...meta, role: 'assistant' }, parts, options);
    }
    case 'toolResult': {
      const name = optionalText(message.toolName) ?? 'tool';
      const part: MessagePart = { kind: 'tool-result', name, text: textOfResultContent(message.content), isError: message.isError === true };
      return messagesFromParts({ ...meta, role: 'tool' }, [part], options);
    }
    default:
      return [];
  }
}

function contentParts(content: unknown): MessagePart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).map((block: JsonObject): MessagePart => {
    switch (block.type) {
      case 'text':
        return { kind: 'text', text: typeof block.text === 'string' ? block.text : '' };
      case 'image':
        return { kind: 'text', text: IMAGE_PLACEHOLDER };
      case 'thinking':
        return { kind: 'thinking', text: typeof block.thinking === 'string' ? block.thinking : '' };
      case 'toolCall':
        return { kind: 'tool-call', name: optionalText(block.name) ?? 'tool', args: block.arguments ?? {} };
      default:
        return { kind: 'text', text: '' };
    }
  });
}

/** A heading OpenClaw puts over a JSON block of context, followed by the block. */
const CHANNEL_CONTEXT_BLOCK = /^[A-Z][A-Za-z ]*\(untrusted(?: metadata|, for context)\):[ \t]*\r?\n```json[ \t]*\r?\n([\s\S]*?)\r?\n```[ \t]*(?:\r?\n|$)/gm;
const SENDER_HEADING = 'Sender (untrusted metadata):';

/** How the prompts OpenClaw sends on its own begin. */
const OWN_PROMPTS = [
  /^Read HEARTBEAT\.md if it exists/,
  /^\[OpenClaw heartbeat poll\]$/,
  /^Pre-compaction memory flush\./,
  /^A new session was started via \/new or \/reset\./,
  /^GatewayRestart:\s*\{/,
  // What it routes in from a sub-agent or another session, marked as not the person's (`isUser=false`).
  /^\[Inter-session message\][^\n]* isUser=false\b/,
  /^<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>/,
];
/** Its replies the person never sees (the silent tokens), and its notice of a new session. */
const OWN_REPLIES = [/^HEARTBEAT_OK$/, /^NO_REPLY$/, /^✅ New session started · /];

function isOpenClawsOwnTurn(patterns: readonly RegExp[], parts: readonly MessagePart[]): boolean {
  const text = parts.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join('\n').trim();
  return text !== '' && patterns.some((pattern) => pattern.test(text));
}

/** An attachment OpenClaw names for the model; a picture is `[image]`. */
const MEDIA_LINE = /^\[media attached(?: \d+\/\d+)?: (?:\d+ files|.* \(([a-z]+)\/[^)]*\) \| .*)\][ \t]*$/gm;
/** The envelope OpenClaw opens a message with: where and when it came (`[Thu 2026-02-12 00:02 UTC] `). */
const ENVELOPE = /^\[(?:[^\]\n]* )?(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})? [^\]\n]*\][ \t]*/;
/** Its note to the model under an attachment, on how to send a picture back. */
const MEDIA_NOTE = /^To send an image back, prefer the message tool\b.*(?:\r?\n|$)/gm;

/** The person's words of a message from a chat channel, without OpenClaw's context blocks, and who sent it. */
function withoutChannelContext(parts: MessagePart[]): { parts: MessagePart[]; speaker?: string } {
  let speaker: string | undefined;
  const cleaned = parts.map((part): MessagePart => {
    if (part.kind !== 'text') return part;
    if (!(part.text.includes('(untrusted') || part.text.includes('[media attached'))) return { kind: 'text', text: part.text.replace(ENVELOPE, '') };
    const text = part.text
      .replace(CHANNEL_CONTEXT_BLOCK, (block: string, json: string) => {
        if (block.startsWith(SENDER_HEADING)) speaker = senderName(json) ?? speaker;
        return '';
      })
      .replace(MEDIA_LINE, (_line: string, kind: string | undefined) => (kind === 'image' ? IMAGE_PLACEHOLDER : kind === undefined ? '' : _line))
      .replace(MEDIA_NOTE, '')
      .trim()
      .replace(ENVELOPE, '')
      .replace(/\n{3,}/g, '\n\n');
    return { kind: 'text', text };
  });
  return { parts: cleaned, ...(speaker !== undefined ? { speaker } : {}) };
}

function senderName(json: string): string | undefined {
  try {
    const sender: unknown = JSON.parse(json);
    return isObject(sender) ? (optionalText(sender.name) ?? optionalText(sender.label)) : undefined;
  } catch {
    return undefined;
  }
}

/** The name the person gave the session (the latest `session_info`), if any. */
function sessionName(entries: readonly JsonlRecord[]): string | undefined {
  let name: string | undefined;
  for (const entry of entries) {
    if (entry.value.type === 'session_info') name = optionalText(entry.value.name) ?? name;
  }
  return name;
}
