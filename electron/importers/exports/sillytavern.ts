/**
 * SillyTavern chats (`.jsonl`): line 1 is a header (`user_name`, `character_name`, `create_date`,
 * `chat_metadata`), every later line a message. The text shown is `swipes[swipe_id]` when the
 * message has swipes (alternative answers), else `mes`.
 *
 * SillyTavern has no message ids. We derive `<sessionId>:<line>:<hash>` from the line number and
 * a hash of the role and shown text: appending lines never changes an earlier line's number or
 * text, so earlier ids stay put; a swipe to another answer or an edit gives the message a new id
 * (the engine then sees a new message, and `syncDeletes` removes the one no longer shown).
 * The session id comes from the header (character and creation date), never from the file name.
 * Each message keeps its `name` (the character's or the user persona's) as its speaker; the engine
 * leaves out a name that is only a role's word (the default persona "User").
 */
import { createHash } from 'node:crypto';
import type { MessageInput, Role, SessionInput } from '../../../shared/domain.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, lineWhere, optionalText, serializeNested, type JsonObject } from '../shape.js';
import { ShapeError } from '../errors.js';

export function isSillyTavernChat(records: readonly JsonlRecord[]): boolean {
  const first = records[0]?.value;
  if (first === undefined) return false;
  if (isHeader(first)) return true;
  return records.slice(0, 20).some((record) => typeof record.value.mes === 'string' && 'is_user' in record.value);
}

function isHeader(value: JsonObject): boolean {
  return 'chat_metadata' in value || ('character_name' in value && 'user_name' in value && !('mes' in value));
}

/** @param baseName the file name without folders: current versions name the character only there. */
export function mapSillyTavernChat(records: readonly JsonlRecord[], options: MappingOptions, baseName = ''): SessionInput {
  const header = records[0] !== undefined && isHeader(records[0].value) ? records[0].value : undefined;
  const lines = header ? records.slice(1) : records;
  const sessionId = deriveSessionId(header, records[0]?.lineNo ?? 1, lines[0]);

  const messages: MessageInput[] = [];
  for (const line of lines) messages.push(...mapMessage(line, sessionId, options));

  const title = chatTitle(header, lines, baseName);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'sillytavern', messages };
}

/** Current versions write this placeholder into the header instead of the names. */
const PLACEHOLDER = 'unused';

/**
 * `<Character> - <date>` as SillyTavern lists the chat: the header's names unless they are the
 * placeholder, else the character from the file name (`<Character> - <date>@<time>[ - Branch #N].jsonl`)
 * or from the character's messages, and the date from the header or the file name.
 */
function chatTitle(header: JsonObject | undefined, lines: readonly JsonlRecord[], baseName: string): string | undefined {
  const named = (value: unknown) => {
    const text = optionalText(value)?.trim();
    return text === undefined || text === '' || text.toLowerCase() === PLACEHOLDER ? undefined : text;
  };
  const file = /^(.+?) - (\d{4}-\d{1,2}-\d{1,2}\s*@\s*\d{1,2}h\s*\d{1,2}m\s*\d{1,2}s(?:\s*\d+ms)?)(?: - (Branch #\d+))?\.jsonl$/i.exec(baseName);
  const fromMessages = lines.map(({ value }) => (value.is_user !== true && value.is_system !== true ? named(value.name) : undefined)).find((name) => name !== undefined);
  const character = named(header?.character_name) ?? file?.[1]?.trim() ?? fromMessages;
  if (character === undefined) return undefined;
  const created = typeof header?.create_date === 'number' ? listedDate(header.create_date) : named(header?.create_date);
  const date = created ?? file?.[2];
  const branch = file?.[3];
  return [character, date, branch].filter((part) => part !== undefined).join(' - ');
}

/** Epoch milliseconds (the header of versions of early 2023) as SillyTavern lists a chat's date: `2023-01-24@11h18m20s`, local time. */
function listedDate(millis: number): string | undefined {
  const date = new Date(millis);
  if (Number.isNaN(date.getTime())) return undefined;
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}@${two(date.getHours())}h${two(date.getMinutes())}m${two(date.getSeconds())}s`;
}

/** Stable across exports: the same chat has the same character and creation date. */
function deriveSessionId(header: JsonObject | undefined, headerLineNo: number, firstMessage: JsonlRecord | undefined): string {
  const character = typeof header?.character_name === 'string' ? header.character_name : '';
  const created = header?.create_date;
  // Without a creation date, the first message (the character's greeting, sent at a fixed time)
  // is what identifies the chat. A date that is not a plain value is written as JSON: `String()`
  // recurses through nested arrays and throws on an object with a "toString" key.
  const identity =
    created === undefined || created === null || created === ''
      ? serializeNested(`${lineWhere(firstMessage?.lineNo ?? 1)} the line`, () => JSON.stringify(firstMessage?.value ?? null))
      : typeof created === 'object'
        ? serializeNested(at(lineWhere(headerLineNo), 'create_date'), () => JSON.stringify(created))
        : String(created);
  return `sillytavern-${shortHash(`${character}\n${identity}`, 16)}`;
}

function mapMessage(line: JsonlRecord, sessionId: string, options: MappingOptions): MessageInput[] {
  const where = lineWhere(line.lineNo);
  const entry = line.value;
  const content = shownText(entry, where);
  const role: Role = entry.is_user === true ? 'user' : isAppMessage(entry) ? 'system' : 'assistant';
  if (content.trim() === '') return [];

  const id = `${sessionId}:${line.lineNo}:${shortHash(`${role}\n${content}`, 12)}`;
  const timestamp = sendDate(entry.send_date) ?? sendDate(shownSwipeInfo(entry)?.send_date) ?? sendDate(isObject(entry.extra) ? entry.extra.send_date : undefined);
  const reasoning = isObject(entry.extra) ? optionalText(entry.extra.reasoning) : undefined;
  const parts: MessagePart[] = [...(reasoning !== undefined ? [{ kind: 'thinking' as const, text: reasoning }] : []), { kind: 'text', text: content }];
  const messages = messagesFromParts({ id, role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options);
  // The character's or the persona's name: what a question about the chat asks by. The message id
  // leaves it out, so a chat saved before names were kept keeps its ids.
  // A system message's name is the app's ("SillyTavern System"), not a speaker's.
  const speaker = role === 'system' ? undefined : speakerName(entry.name);
  return speaker === undefined ? messages : messages.map((m) => (m.msgId === id ? { ...m, speaker } : m));
}

/**
 * SillyTavern's own messages: its notes and narration (`/sys`, `/comment`, the help), whose kind
 * `extra.type` names, or any it writes under its own name. `is_system` alone does not make one: it
 * also marks a person's or a character's message hidden from the model (the ghost icon, `/hide`),
 * which keeps its speaker, and its id whether hidden or not.
 */
function isAppMessage(entry: JsonObject): boolean {
  const kind = isObject(entry.extra) ? entry.extra.type : undefined;
  return (typeof kind === 'string' && kind !== '') || (entry.is_system === true && speakerName(entry.name) === APP_NAME);
}

const APP_NAME = 'SillyTavern System';

/** The record of the swipe shown (`swipe_info[swipe_id]`): its time, where a message has none of its own. */
function shownSwipeInfo(entry: JsonObject): JsonObject | undefined {
  const info = Array.isArray(entry.swipe_info) && typeof entry.swipe_id === 'number' ? entry.swipe_info[entry.swipe_id] : undefined;
  return isObject(info) ? info : undefined;
}

/** A message's `name`, unless empty or the placeholder current versions write in place of names. */
function speakerName(value: unknown): string | undefined {
  const text = optionalText(value)?.trim();
  return text === undefined || text === '' || text.toLowerCase() === PLACEHOLDER ? undefined : text;
}

function shownText(entry: JsonObject, where: string): string {
  if (Array.isArray(entry.swipes) && typeof entry.swipe_id === 'number') {
    const swipe = entry.swipes[entry.swipe_id];
    if (typeof swipe === 'string') return swipe;
  }
  if (typeof entry.mes === 'string') return entry.mes;
  throw new ShapeError(`${at(where, 'mes')} must be a string${entry.mes === undefined ? ' (it is missing)' : ''}`);
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * `send_date` has had several formats: epoch milliseconds, ISO 8601, "June 1, 2023 3:45pm",
 * "2023-4-21 @20h 02m 47s 124ms" and "2024-05-01@12h30m15s". The last two carry no zone; they are local times of the machine that
 * ran SillyTavern, which we take to be this one.
 */
export function sendDate(value: unknown): string | undefined {
  // Beyond ±8.64e15 ms a Date is invalid, and toISOString() throws.
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return isoOrUndefined(new Date(value));
  if (typeof value !== 'string') return undefined;
  const humanized = /^([A-Za-z]+)\s+(\d{1,2}),\s*(\d{4})\s+(\d{1,2}):(\d{2})\s*(am|pm)?$/i.exec(value.trim());
  if (humanized) {
    const month = MONTHS.indexOf(humanized[1]!.toLowerCase());
    if (month === -1) return undefined;
    let hours = Number(humanized[4]) % (humanized[6] ? 12 : 24);
    if (humanized[6]?.toLowerCase() === 'pm') hours += 12;
    return localIso(Number(humanized[3]), month, Number(humanized[2]), hours, Number(humanized[5]), 0);
  }
  // Versions of 2023 wrote month and day without a leading zero: "2023-4-21 @20h 02m 47s 124ms".
  const compact = /^(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s/.exec(value.trim());
  if (compact) {
    return localIso(Number(compact[1]), Number(compact[2]) - 1, Number(compact[3]), Number(compact[4]), Number(compact[5]), Number(compact[6]));
  }
  // Only ISO forms with a date part; Date.parse would guess at anything else.
  if (!/^\d{4}-\d{2}-\d{2}/.test(value.trim())) return undefined;
  const millis = Date.parse(value);
  return Number.isNaN(millis) ? undefined : new Date(millis).toISOString();
}

function localIso(year: number, month: number, day: number, hours: number, minutes: number, seconds: number): string | undefined {
  return isoOrUndefined(new Date(year, month, day, hours, minutes, seconds));
}

function isoOrUndefined(date: Date): string | undefined {
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function shortHash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}
