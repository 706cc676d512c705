/**
 * Gemini Apps activity from Google Takeout (`My Activity/Gemini Apps/MyActivity.json`): an array of
 * activity records, newest first: `header: "Gemini Apps"`, `title: "Prompted <the prompt>"`, `time`
 * (ISO), and the answer as HTML in `safeHtmlItem[].html`. The file can also hold other products'
 * records (left out), records without an answer (the prompt is kept alone) and times that cannot be
 * read (the record stays with the records around it in the file).
 *
 * There is no conversation id: records are put in time order and a pause of more than 30 minutes
 * starts a new session. A session is named by its first record (its time and prompt), so a later
 * Takeout that adds records to the latest session continues it; message ids come from each record's
 * time and prompt. Answers are turned from HTML into text (html-to-text: lists, paragraphs and code
 * keep their shape; links keep their text). A canvas Gemini wrote (`Created Gemini Canvas titled …`,
 * its document in `subtitles`) is an answer of its own; records of what the person did in the app (a
 * feature used, a draft picked, feedback given) are left out.
 */
import { createHash } from 'node:crypto';
import { loadPackage } from '../readers/lazyPackage.js';
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { isObject, optionalText, type JsonObject } from '../shape.js';

/** The pause after which the next record starts another session. */
export const SESSION_GAP_MS = 30 * 60 * 1000;

const PRODUCT = 'Gemini Apps';
/** What Takeout puts before the prompt in a record's title (English exports). */
const PROMPT_PREFIXES = ['Prompted ', 'Asked '];

/**
 * Records of what the person did in the app rather than said (English exports): a feature used, a
 * draft picked, a survey answered, feedback given. They hold no prompt and no answer and are left out;
 * a title of another language is still read as its prompt, as before.
 */
const APP_ACTIVITY = /^(?:Used an Assistant feature|Selected preferred draft|Answered survey question|Gave feedback:.*)$/s;

/** A canvas Gemini wrote: its title in the record's title, the document in `subtitles[0].name`. */
const CANVAS = /^Created Gemini Canvas titled (.+)$/s;

function isActivityRecord(value: unknown): value is JsonObject {
  return isObject(value) && typeof value.header === 'string' && typeof value.title === 'string' && 'time' in value;
}

function isGeminiRecord(record: JsonObject): boolean {
  return record.header === PRODUCT || (Array.isArray(record.products) && record.products.includes(PRODUCT));
}

/** Whether a document is a Takeout activity file with Gemini Apps records. */
export function isGeminiActivity(document: unknown): document is unknown[] {
  if (!Array.isArray(document)) return false;
  const sample = document.slice(0, 200);
  return sample.some(isActivityRecord) && sample.every((item) => isActivityRecord(item) || !isObject(item)) && document.some((item) => isActivityRecord(item) && isGeminiRecord(item));
}

/** The Gemini Apps records of the file, grouped into sessions. */
export function mapGeminiActivity(document: readonly unknown[]): SessionInput[] {
  const records = document.filter((item): item is JsonObject => isActivityRecord(item) && isGeminiRecord(item));
  // Oldest first; a record whose time cannot be read keeps the time of the record after it in the
  // file (the next older one), so it stays where the file put it.
  const timed: Array<{ record: JsonObject; millis: number; known: boolean }> = [];
  for (let i = records.length - 1; i >= 0; i--) {
    const millis = Date.parse(typeof records[i]!.time === 'string' ? (records[i]!.time as string) : '');
    const known = !Number.isNaN(millis);
    timed.push({ record: records[i]!, millis: known ? millis : (timed.at(-1)?.millis ?? 0), known });
  }
  timed.sort((a, b) => a.millis - b.millis);

  const sessions: SessionInput[] = [];
  let current: { session: SessionInput; last: number } | undefined;
  for (const { record, millis, known } of timed) {
    const prompt = promptOf(record);
    const answer = answerOf(record);
    if (prompt === undefined && answer === undefined) continue;
    if (!current || millis - current.last > SESSION_GAP_MS) {
      const id = hash(`${String(record.time)}\n${prompt ?? ''}`);
      const title = (prompt ?? answer ?? '').split('\n')[0]!.slice(0, 80);
      current = { session: { sessionId: `gemini-${id}`, title, source: 'gemini', messages: [] }, last: millis };
      sessions.push(current.session);
    }
    current.last = millis;
    const key = hash(`${String(record.time)}\n${prompt ?? ''}`);
    const timestamp = known ? new Date(millis).toISOString() : undefined;
    const messages: MessageInput[] = [];
    if (prompt !== undefined) messages.push({ msgId: `gemini-${key}-q`, role: 'user', content: prompt, ...(timestamp ? { timestamp } : {}) });
    if (answer !== undefined) messages.push({ msgId: `gemini-${key}-a`, role: 'assistant', content: answer, ...(timestamp ? { timestamp } : {}) });
    current.session.messages.push(...messages);
  }
  return sessions;
}

function promptOf(record: JsonObject): string | undefined {
  const title = optionalText(record.title);
  if (title === undefined || APP_ACTIVITY.test(title.trim()) || CANVAS.test(title.trim())) return undefined;
  const prefix = PROMPT_PREFIXES.find((p) => title.startsWith(p));
  const prompt = (prefix ? title.slice(prefix.length) : title).trim();
  return prompt === '' ? undefined : prompt;
}

function answerOf(record: JsonObject): string | undefined {
  const canvas = canvasOf(record);
  if (canvas !== undefined) return canvas;
  if (!Array.isArray(record.safeHtmlItem)) return undefined;
  const html = record.safeHtmlItem.map((item) => (isObject(item) && typeof item.html === 'string' ? item.html : '')).join('\n');
  const text = htmlToText(html).trim();
  return text === '' ? undefined : text;
}

/**
 * The document of a canvas record, as the app shows a canvas beside the chat: part of the answer
 * (`[canvas: <title>] … [/canvas]`, as a ChatGPT canvas is kept), so that a search for what it says
 * finds it. The title alone when Takeout kept no document.
 */
function canvasOf(record: JsonObject): string | undefined {
  const title = typeof record.title === 'string' ? CANVAS.exec(record.title.trim())?.[1]?.trim() : undefined;
  if (title === undefined) return undefined;
  const first = Array.isArray(record.subtitles) ? record.subtitles[0] : undefined;
  const document = isObject(first) ? optionalText(first.name)?.trim() : undefined;
  return document ? `[canvas: ${title}]\n${document}\n[/canvas]` : `[canvas: ${title}]`;
}

// Loaded on the first answer converted: only this format needs it.
let convert: typeof import('html-to-text').convert | undefined;

export function htmlToText(html: string): string {
  convert ??= loadPackage<typeof import('html-to-text')>('html-to-text').convert;
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
      { selector: 'table', options: { uppercaseHeaderCells: false } },
    ],
  });
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
