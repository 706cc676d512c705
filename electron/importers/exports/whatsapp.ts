/**
 * WhatsApp's "Export chat" text (`WhatsApp Chat with Alice.txt`, or `_chat.txt` in the ZIP an iPhone
 * makes): a chat between people, a message per line, in the phone's date format:
 *
 *   12/31/23, 11:59 PM - Alice: Happy new year!          Android, US
 *   31/12/2023, 23:59 - Alice: Happy new year!           Android, most other places
 *   [31/12/2023, 23:59:01] Alice: Happy new year!        iPhone
 *   31.12.23, 23:59 - Alice: …                           German and others
 *
 * A line that does not start with a date and time continues the message before it. Lines with no
 * sender (`Messages and calls are end-to-end encrypted…`, `Alice added Bob`), and those an iPhone
 * writes under the chat's name with a left-to-right mark before the text, are WhatsApp's notices
 * and are left out, as are `<Media omitted>`, deleted messages' placeholders and the calls an Android
 * phone logs under the caller's name (`Missed voice call`), and the mark an iPhone appends to an edited
 * message (`‎<This message was edited>`, in the phone's language); an attached photo is
 * `[image]`, another file `[file: name]`. Every message keeps its sender's name (its speaker). The
 * person who exported the chat is the user: in `WhatsApp Chat with Alice`, or in an iPhone's file whose
 * first notice is under Alice's name (a chat with one person is under that person's name), whoever is
 * not Alice; else whoever wrote first. Everyone else's messages are the other side of the conversation (role
 * `assistant`), named. Whether a date is day or month first is read from the file: a first field
 * over 12 anywhere means day first; US exports (12-hour times) default to month first, others to day
 * first. Times have no zone in the export and are read as UTC, so a file gives the same times on every
 * machine.
 */
import type { MessageInput, Role, SessionInput } from '../../../shared/domain.js';
import { IMAGE_PLACEHOLDER } from '../parts.js';

/** Date, time and the rest of a message line; group 1 is the bracket of the iPhone form. */
const LINE = /^[\u200e\u200f]?(\[)?(\d{1,4})[./-](\d{1,2})[./-](\d{2,4}),? (\d{1,2}):(\d{2})(?::(\d{2}))?[\s\u202f]?([AaPp]\.?[Mm]\.?)?(?:\]|\s-)\s?(.*)$/;
/** `Alice: text`: a sender, then the message (the name holds no colon). */
const SENDER = /^([^:]{1,80}?): ([\s\S]*)$/;
const OMITTED = /^[\u200e]?(?:<Media omitted>|<Médias omis>|<Medien ausgeschlossen>|This message was deleted|You deleted this message|null)$/i;
const ATTACHED = /^[\u200e]?<attached: ([^>]+)>$/;
const PHOTO = /\.(?:jpe?g|png|gif|webp|heic)$|PHOTO/i;
const IMAGE_OMITTED = /^[\u200e]?(?:image|sticker|GIF) omitted$/i;
/**
 * A call an Android phone logs under the caller's name (`Mom: Missed voice call`): a record, not words.
 * An iPhone's (`‎Voice call, ‎No answer`) starts with a left-to-right mark and is left out as its notices are.
 */
const CALL_RECORD = /^Missed (?:group )?(?:voice|video) call$/i;
/**
 * What an iPhone appends to an edited message, in the phone's language after a left-to-right mark:
 * `‎<This message was edited>`, `‎<Diese Nachricht wurde bearbeitet.>`, `‎<Mensagem editada>`.
 */
const EDITED_MARK = /[ \t]*\u200e<(?!attached:)[^<>\n]{1,60}>[ \t]*$/;

function withoutEditedMark(text: string): string {
  return text.replace(EDITED_MARK, '');
}

interface Parsed {
  fields: [number, number, number];
  hour: number;
  minute: number;
  second: number;
  meridiem: string | undefined;
  sender: string;
  text: string;
}

/** WhatsApp puts a comma after the date (`12/31/23, 11:59 PM - `); a log's `2023-12-31 10:00 - ` is no message. */
const DATE_COMMA = /^[\u200e\u200f]?\[?\d{1,4}[./-]\d{1,2}[./-]\d{2,4},/;

function parseLine(line: string): Parsed | { notice: true } | undefined {
  const match = LINE.exec(line);
  if (!match || (match[1] === undefined && !DATE_COMMA.test(line))) return undefined;
  const rest = match[9] ?? '';
  const sender = SENDER.exec(rest);
  if (!sender) return { notice: true };
  return {
    fields: [Number(match[2]), Number(match[3]), Number(match[4])],
    hour: Number(match[5]),
    minute: Number(match[6]),
    second: Number(match[7] ?? 0),
    meridiem: match[8]?.replace(/\./g, '').toLowerCase(),
    sender: sender[1]!.replace(/^[\u200e\u200f~\s]+/, '').trim(),
    text: sender[2]!,
  };
}

/** Whether the text is a WhatsApp export: most of its first dated lines are messages with a sender. */
export function looksLikeWhatsAppChat(text: string): boolean {
  let messages = 0;
  let seen = 0;
  for (const line of text.slice(0, 64 * 1024).split(/\r?\n/, 200)) {
    if (line.trim() === '') continue;
    seen++;
    const parsed = parseLine(line);
    if (parsed && !('notice' in parsed)) messages++;
    if (seen >= 40) break;
  }
  return messages >= 2 || (messages === 1 && seen <= 3);
}

/**
 * @param baseName the file's name: `WhatsApp Chat with Alice.txt` names the chat and the other person.
 * @param folderName the folder or ZIP holding it: an iPhone's file is always `_chat.txt`, in
 *   `WhatsApp Chat - Alice.zip`, which names the chat instead.
 */
export function mapWhatsAppChat(text: string, baseName: string, folderName = ''): SessionInput {
  const lines: Parsed[] = [];
  let last: Parsed | undefined;
  // The name an iPhone writes its first notice under (`Messages and calls are end-to-end encrypted`): the chat's.
  let chatName: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const parsed = parseLine(line);
    if (parsed === undefined) {
      // A line of the message before it (WhatsApp writes a message's line breaks as they are).
      if (last) last.text += `\n${line}`;
      continue;
    }
    // An iPhone writes its notices under the chat's name, marked by a left-to-right mark before the text.
    if ('notice' in parsed || (parsed.text.startsWith('\u200e') && !isAttachment(parsed.text))) {
      if (!('notice' in parsed) && lines.length === 0) chatName ??= parsed.sender;
      last = undefined;
      continue;
    }
    lines.push(parsed);
    last = parsed;
  }
  const dayFirst = readsDayFirst(lines);
  const ownStem = baseName.replace(/\.txt$/i, '') || baseName;
  const folderStem = folderName.replace(/\.zip$/i, '');
  const stem = ownStem === '_chat' && folderStem !== '' && folderStem !== '.' ? folderStem : ownStem;
  const senders = [...new Set(lines.map((line) => line.sender))];
  // An iPhone's chat with one person is under that person's name, a group's under the group's, who writes nothing.
  const partner = /^WhatsApp Chat (?:with|mit|con|avec|com|met|-) (.+)$/i.exec(stem)?.[1]?.trim() ?? (chatName !== undefined && senders.includes(chatName) ? chatName : undefined);
  const user = (partner !== undefined ? senders.find((name) => name !== partner) : undefined) ?? senders[0];
  const messages: MessageInput[] = [];
  for (const line of lines) {
    const content = messageText(line.text.trim());
    if (content === '') continue;
    const role: Role = line.sender === user ? 'user' : 'assistant';
    const timestamp = timestampOf(line, dayFirst);
    messages.push({ role, content, speaker: line.sender, ...(timestamp !== undefined ? { timestamp } : {}) });
  }
  // WhatsApp names its files `WhatsApp Chat with Alice` (or the group); any other name is the person's own filing.
  // An iPhone's `_chat.txt` taken out of its ZIP gets the title the ZIP (`WhatsApp Chat - <chat>.zip`) would give.
  const title = /^WhatsApp Chat\b/i.test(stem) ? stem : chatName !== undefined ? `WhatsApp Chat - ${chatName}` : `WhatsApp chat: ${senders.slice(0, 4).join(', ')}`;
  return { sessionId: `whatsapp:${stem}`, title, source: 'whatsapp', messages };
}

function isAttachment(message: string): boolean {
  const text = withoutEditedMark(message);
  return ATTACHED.test(text) || IMAGE_OMITTED.test(text) || OMITTED.test(text);
}

function messageText(message: string): string {
  const text = withoutEditedMark(message).trim();
  if (OMITTED.test(text) || CALL_RECORD.test(text)) return '';
  if (IMAGE_OMITTED.test(text)) return IMAGE_PLACEHOLDER;
  const attached = ATTACHED.exec(text);
  if (attached) return PHOTO.test(attached[1]!) ? IMAGE_PLACEHOLDER : `[file: ${attached[1]!}]`;
  return text.replace(/\u200e/g, '');
}

/** Day first unless the file says otherwise: a first field over 12 settles it; US 12-hour exports are month first. */
function readsDayFirst(lines: readonly Parsed[]): boolean {
  if (lines.some((line) => line.fields[0] > 12 && line.fields[0] <= 31)) return true;
  if (lines.some((line) => line.fields[1] > 12)) return false;
  return !lines.some((line) => line.meridiem !== undefined);
}

function timestampOf(line: Parsed, dayFirst: boolean): string | undefined {
  const [a, b, c] = line.fields;
  let year: number;
  let month: number;
  let day: number;
  if (a > 31) {
    // 2023-12-31: year first.
    [year, month, day] = [a, b, c];
  } else {
    [day, month] = dayFirst ? [a, b] : [b, a];
    year = c < 100 ? 2000 + c : c;
  }
  let hour = line.hour;
  if (line.meridiem !== undefined) {
    if (line.meridiem.startsWith('p') && hour < 12) hour += 12;
    if (line.meridiem.startsWith('a') && hour === 12) hour = 0;
  }
  const millis = Date.UTC(year, month - 1, day, hour, line.minute, line.second);
  const date = new Date(millis);
  // A field out of range (a 13th month, a 31st of April) is no date: the message keeps no time.
  if (Number.isNaN(millis) || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.toISOString();
}
