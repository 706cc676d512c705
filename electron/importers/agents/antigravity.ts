/**
 * Google Antigravity's conversation logs. Antigravity keeps each conversation in a folder named by its
 * id, `~/.gemini/antigravity-ide/brain/<conversation id>/` (`~/.gemini/antigravity/brain/` before it,
 * `~/.gemini/antigravity-cli/brain/` for its command-line agent), and writes the conversation's steps
 * to `.system_generated/logs/transcript_full.jsonl`, with a copy `transcript.jsonl` beside it whose long
 * fields are cut in the middle (`\n<truncated N bytes>\n`, the field named in `truncated_fields`) and
 * whose tool arguments are each written as JSON text (`"\"ls\""`, `"2000"`). Both are the same steps of
 * the same conversation: one session, the conversation's id, read from the full file when both are there.
 *
 * One step a line: `{step_index, source, type, status, created_at, content?, thinking?, tool_calls?,
 * error?, truncated_fields?}`. Lines are not always in step order (a tool's result can be written before
 * the response that called it): the steps are read in `step_index` order, a step written twice counting
 * as its last line. Steps read:
 * - `USER_INPUT` from `USER_EXPLICIT`: the person's words, inside `<USER_REQUEST>`; the blocks the client
 *   adds after them (`<ADDITIONAL_METADATA>` with the time and open files, `<USER_SETTINGS_CHANGE>`) are left out.
 * - `PLANNER_RESPONSE` from `MODEL`: the answer (`content`), its `thinking` and `tool_calls` (`{name, args}`).
 * - any other `MODEL` step (`VIEW_FILE`, `RUN_COMMAND`, `LIST_DIRECTORY`, `CODE_ACTION`, `GENERIC` in later
 *   versions...): a tool's result, named by the step's type.
 * `SYSTEM` steps are the client's: the other conversations' summaries (`CONVERSATION_HISTORY`), knowledge
 * items, reminders (`EPHEMERAL_MESSAGE`), the model API's errors, and `CHECKPOINT`, the summary that
 * stands in for earlier steps once the context is cut: none of them is dialogue. msgId: the `step_index`.
 */
import { createHash } from 'node:crypto';
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { isObject, lineWhere, optionalText, type JsonObject } from '../shape.js';
import { isoFromDateString } from '../time.js';
import { titleFromMessages } from '../titles.js';

/** The full log, and the copy with long fields cut, in a conversation's `.system_generated/logs/`. */
export const ANTIGRAVITY_FULL_LOG = 'transcript_full.jsonl';
export const ANTIGRAVITY_CUT_LOG = 'transcript.jsonl';
/** The folder of a conversation's generated files, whose `logs/` holds its transcripts. */
export const ANTIGRAVITY_GENERATED = '.system_generated';

const STEP_SOURCES = new Set(['USER_EXPLICIT', 'MODEL', 'SYSTEM']);

function isAntigravityStep(value: JsonObject): boolean {
  return Number.isInteger(value.step_index) && typeof value.type === 'string' && typeof value.source === 'string' && typeof value.status === 'string' && 'created_at' in value;
}

export function isAntigravityTranscript(records: readonly JsonlRecord[]): boolean {
  return records.slice(0, 50).some(({ value }) => isAntigravityStep(value) && STEP_SOURCES.has(value.source as string));
}

/**
 * @param filePath the file's path: the conversation's id is the name of the folder that holds its
 *   `.system_generated` folder. A copy kept elsewhere is named by its first step instead.
 */
export function mapAntigravityTranscript(records: readonly JsonlRecord[], options: MappingOptions, filePath = ''): SessionInput {
  const steps = stepsInOrder(records);
  const first = steps[0];
  if (first === undefined) throw new ShapeError(`${lineWhere(records[0]?.lineNo ?? 1)} no step of an Antigravity conversation`);
  const sessionId = conversationIdOf(filePath) ?? `antigravity-${createHash('sha256').update(`${optionalText(first.value.created_at) ?? ''}\n${firstRequest(steps)}`).digest('hex').slice(0, 16)}`;
  const messages = steps.flatMap((step) => mapStep(step.value, options));
  const title = titleFromMessages(messages);
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'antigravity', messages };
}

/** The id of the conversation a log belongs to, from its place: `<id>/.system_generated/logs/<log>`. */
export function conversationIdOf(filePath: string): string | undefined {
  const parts = filePath.split(/[\\/]/);
  const generated = parts.lastIndexOf(ANTIGRAVITY_GENERATED);
  const id = generated > 0 ? parts[generated - 1] : undefined;
  return id !== undefined && id.trim() !== '' ? id : undefined;
}

/** The steps by `step_index`, each once (its last line), lines of the same step index kept in file order. */
function stepsInOrder(records: readonly JsonlRecord[]): JsonlRecord[] {
  const byIndex = new Map<number, JsonlRecord>();
  for (const record of records) if (isAntigravityStep(record.value)) byIndex.set(record.value.step_index as number, record);
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, record]) => record);
}

function firstRequest(steps: readonly JsonlRecord[]): string {
  const request = steps.find(({ value }) => value.type === 'USER_INPUT' && value.source === 'USER_EXPLICIT');
  return request === undefined ? '' : personsWords(request.value.content);
}

function mapStep(step: JsonObject, options: MappingOptions): MessageInput[] {
  const timestamp = isoFromDateString(step.created_at);
  const source = { id: String(step.step_index), ...(timestamp !== undefined ? { timestamp } : {}) };
  if (step.source === 'USER_EXPLICIT') {
    if (step.type !== 'USER_INPUT') return [];
    return messagesFromParts({ ...source, role: 'user' }, [{ kind: 'text', text: personsWords(step.content) }], options);
  }
  if (step.source !== 'MODEL') return [];
  if (step.type === 'PLANNER_RESPONSE') {
    const parts: MessagePart[] = [];
    const thinking = optionalText(step.thinking);
    if (thinking !== undefined) parts.push({ kind: 'thinking', text: thinking });
    if (typeof step.content === 'string') parts.push({ kind: 'text', text: step.content });
    for (const call of Array.isArray(step.tool_calls) ? step.tool_calls.filter(isObject) : []) {
      parts.push({ kind: 'tool-call', name: optionalText(call.name) ?? 'tool', args: toolArguments(call.args) });
    }
    return messagesFromParts({ ...source, role: 'assistant' }, parts, options);
  }
  const failed = optionalText(step.error);
  const text = (typeof step.content === 'string' ? withoutTimes(step.content) : (failed ?? '')).trim();
  return messagesFromParts({ ...source, role: 'tool' }, [{ kind: 'tool-result', name: String(step.type).toLowerCase(), text, isError: failed !== undefined }], options);
}

/**
 * The arguments of a tool call. The cut log writes each one as JSON text (`"\"ls\""`, `"true"`), the
 * full log as the value itself: read back, both give the same call. A value cut short stays as written.
 */
function toolArguments(args: unknown): unknown {
  if (!isObject(args)) return args ?? {};
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => {
      if (typeof value !== 'string' || !/^(?:".*"|true|false|null|-?\d+(?:\.\d+)?|[[{].*)$/s.test(value)) return [key, value];
      try {
        return [key, JSON.parse(value) as unknown];
      } catch {
        return [key, value];
      }
    }),
  );
}

/** A tool's output starts with when it ran (`Created At: …`, `Completed At: …`), which the step's time already says. */
function withoutTimes(content: string): string {
  return content.replace(/^Created At: [^\n]*\n(?:Completed At: [^\n]*\n)?/, '');
}

/**
 * The person's words of a `USER_INPUT` step: what is inside `<USER_REQUEST>` (several requests joined),
 * else the content without the client's blocks (`<ADDITIONAL_METADATA>`, `<USER_SETTINGS_CHANGE>`, …).
 * A request the cut log cut short has no closing tag: it runs to the first of the client's blocks.
 */
export function personsWords(content: unknown): string {
  if (typeof content !== 'string') return '';
  const text = content.replace(/\r\n/g, '\n');
  const requests: string[] = [];
  const open = /<USER_REQUEST>/g;
  for (let match = open.exec(text); match !== null; match = open.exec(text)) {
    const start = match.index + match[0].length;
    const close = text.indexOf('</USER_REQUEST>', start);
    // The person's words are kept as written (tags they typed included); a request cut short stops at the client's first block.
    requests.push((close !== -1 ? text.slice(start, close) : withoutClientBlocks(text.slice(start))).trim());
    if (close === -1) break;
    open.lastIndex = close;
  }
  return (requests.length > 0 ? requests.join('\n\n') : withoutClientBlocks(text)).trim();
}

/** The blocks the client adds, each on lines of its own under an upper-case tag; one cut short runs to the end. */
function withoutClientBlocks(text: string): string {
  return text.replace(/(?:^|\n)<([A-Z][A-Z_]*)>\n[\s\S]*?(?:\n<\/\1>(?=\n|$)|$)/g, '').trim();
}

/**
 * The log to read for a conversation, given a file named `transcript.jsonl` (the cut copy): the full
 * log beside it when there is one, so that the conversation is read whole and once.
 * @param exists whether a file is there (the engine's readers pass a check on the disk).
 */
export async function antigravityFullLogFor(filePath: string, exists: (file: string) => Promise<boolean>): Promise<string> {
  const parts = filePath.split(/[\\/]/);
  if (parts.at(-1) !== ANTIGRAVITY_CUT_LOG || parts.at(-2) !== 'logs' || parts.at(-3) !== ANTIGRAVITY_GENERATED) return filePath;
  const full = filePath.slice(0, filePath.length - ANTIGRAVITY_CUT_LOG.length) + ANTIGRAVITY_FULL_LOG;
  return (await exists(full)) ? full : filePath;
}

/**
 * Of the paths in an archive (`/`-separated), the Antigravity conversations: each one's log to read (the
 * full one, else the cut copy), and the folders of those conversations, whose other files are the
 * agent's documents, not the conversation.
 */
export function antigravityLogsInArchive(names: readonly string[]): { logs: Set<string>; conversations: string[] } {
  const marker = `${ANTIGRAVITY_GENERATED}/logs/`;
  const best = new Map<string, string>();
  for (const name of names) {
    const at = name.startsWith(marker) ? 0 : name.lastIndexOf(`/${marker}`) + 1;
    if (at === 0 && !name.startsWith(marker)) continue;
    const log = name.slice(at + marker.length);
    if (log !== ANTIGRAVITY_FULL_LOG && log !== ANTIGRAVITY_CUT_LOG) continue;
    const conversation = name.slice(0, at);
    if (log === ANTIGRAVITY_FULL_LOG || !best.has(conversation)) best.set(conversation, name);
  }
  return { logs: new Set(best.values()), conversations: [...best.keys()].filter((folder) => folder !== '') };
}
