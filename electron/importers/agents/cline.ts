/**
 * Cline and its forks Roo Code and Kilo Code keep each task in a folder of the editor's
 * globalStorage: `<extension id>/tasks/<taskId>/` with `api_conversation_history.json` (the
 * Anthropic-style messages sent to the model: text, thinking, tool_use, tool_result, base64
 * images), `ui_messages.json` (what the panel showed, each with its time `ts`) and
 * `task_metadata.json`. Their task index loses entries, so we read the task folders themselves.
 *
 * One task folder is one session, its id the task id (the folder name). Message ids are the
 * positions in the API history, which only grows (truncation to fit the context window marks a
 * range rather than deleting it). Times come from `ui_messages.json`: each panel message names
 * the last API message at the time (`conversationHistoryIndex`), so the first panel message after
 * API message k-1 dates message k. Roo Code also writes `ts` on the API messages themselves.
 *
 * What the extension injects into the person's turns is not their words: `<environment_details>`
 * (open files, time, folder listing), progress reminders and the notes on a resumed task are left
 * out; of a turn with `<task>`, `<feedback>`, `<answer>` or `<user_message>` wrappers, only what they hold is kept.
 * Files the person attached (`Files attached by the user:` and each file's text) are named, `[file: notes.md]`. Tool results arrive either as `tool_result`
 * blocks or as text `[tool_name for 'x'] Result:`; both follow the `--include tools` rule.
 * The model's closing answer (`attempt_completion`) and its questions (`ask_followup_question`)
 * are dialogue, though written as tool calls.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, textOfResultContent, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireArray, requireObject, type JsonObject } from '../shape.js';
import { isoFromEpochMillis } from '../time.js';

export const CLINE_EXTENSIONS = [
  { tool: 'cline', extensionId: 'saoudrizwan.claude-dev' },
  { tool: 'roo-code', extensionId: 'rooveterinaryinc.roo-cline' },
  { tool: 'kilo-code', extensionId: 'kilocode.kilo-code' },
] as const;

export type ClineTool = (typeof CLINE_EXTENSIONS)[number]['tool'];

export const CLINE_API_HISTORY = 'api_conversation_history.json';
export const CLINE_UI_MESSAGES = 'ui_messages.json';

/** Which of the three wrote a task folder, from the extension id in its path (Cline when none is named). */
export function clineToolOf(taskFolder: string): ClineTool {
  const lower = taskFolder.toLowerCase();
  return CLINE_EXTENSIONS.find(({ extensionId }) => lower.includes(extensionId))?.tool ?? 'cline';
}

/** An API history as these extensions write it: the first message is the person's, with the task in `<task>` tags or the editor's details. */
export function isClineApiHistory(document: unknown): boolean {
  if (!Array.isArray(document) || document.length === 0) return false;
  const first: unknown = document[0];
  if (!isObject(first) || first.role !== 'user') return false;
  if (!document.slice(0, 20).every((message) => isObject(message) && (message.role === 'user' || message.role === 'assistant') && 'content' in message)) return false;
  const texts = typeof first.content === 'string' ? [first.content] : Array.isArray(first.content) ? first.content.filter(isObject).map((block) => (typeof block.text === 'string' ? block.text : '')) : [];
  return texts.some((text) => /<task>|<environment_details>|<user_message>/.test(text));
}

/** The panel's log of a task (`ui_messages.json`): every entry has its time `ts` and is a `say` or an `ask`. */
export function isClineUiMessages(document: unknown): boolean {
  return (
    Array.isArray(document) &&
    document.length > 0 &&
    document.slice(0, 20).every((message) => isObject(message) && typeof message.ts === 'number' && (message.type === 'say' || message.type === 'ask'))
  );
}

export interface ClineTask {
  taskId: string;
  tool: ClineTool;
  /** The parsed `api_conversation_history.json`. */
  api: unknown;
  /** The parsed `ui_messages.json`, when the folder has one. */
  ui?: unknown;
}

export function mapClineTask(task: ClineTask, options: MappingOptions): SessionInput {
  const api = requireArray(task.api, '');
  const ui = Array.isArray(task.ui) ? task.ui.filter(isObject) : [];
  const times = apiMessageTimes(ui);
  const toolNames = new Map<string, string>();
  const messages: MessageInput[] = [];
  api.forEach((entry, index) => {
    const where = at('', index);
    const message = requireObject(entry, where);
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const timestamp = isoFromEpochMillis(message.ts) ?? times.get(index);
    const parts = role === 'user' ? userParts(message.content, toolNames) : assistantParts(message.content, toolNames);
    messages.push(...messagesFromParts({ id: String(index), role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options));
  });
  const title = titleOf(ui, messages);
  return { sessionId: task.taskId, ...(title !== undefined ? { title } : {}), source: task.tool, messages };
}

/** API message k is dated by the first panel message written after API message k-1 existed. */
function apiMessageTimes(ui: readonly JsonObject[]): Map<number, string> {
  const times = new Map<number, string>();
  for (const message of ui) {
    if (typeof message.conversationHistoryIndex !== 'number') continue;
    const index = message.conversationHistoryIndex + 1;
    const time = isoFromEpochMillis(message.ts);
    if (time !== undefined && !times.has(index)) times.set(index, time);
  }
  return times;
}

/**
 * `[read_file for 'src/app.ts'] Result:`. What follows `for` is the call's argument as given, which can
 * hold brackets and quotes and span lines (`[execute_command for 'tr '[:upper:]' …'] Result:`): the
 * header ends at the first `] Result:`.
 */
const TOOL_RESULT_TEXT = /^\s*\[([\w-]+)(?: for [\s\S]*?)?\] Result:/;
// A resumed task in plan mode with nothing new said gets `(The user did not provide a new message. …)`.
const INJECTED_TEXT = /^\s*(?:# task_progress\b|# TODO LIST|\[TASK RESUMPTION\]|\[ERROR\]|\(The user did not provide a new message\b)/;
/** Files the person attached to a message, written out whole after this line. */
const ATTACHED_FILES = /^\s*Files attached by the user:/;
/** An attached file is named, not copied: its text is the file's, not the person's. */
function attachedFileNames(text: string): string {
  const names = [...text.matchAll(/<file_content path="([^"]*)">/g)].map((match) => `[file: ${match[1]!.split(/[\\/]/).at(-1)}]`);
  return names.join('\n');
}
/** The person's own words inside a turn that otherwise carries tool output. */
const PERSON_WRAPPED = /<(?:task|feedback|answer|user_message)>/;

function userParts(content: unknown, toolNames: Map<string, string>): MessagePart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: personText(content) }];
  if (!Array.isArray(content)) return [];
  // Text after `[tool for 'x'] Result:` in the same turn is that tool's output, unless wrapped as the person's.
  let resultOf: string | undefined;
  return content.filter(isObject).flatMap((block): MessagePart | MessagePart[] => {
    if (block.type === 'tool_result') {
      const name = (typeof block.tool_use_id === 'string' ? toolNames.get(block.tool_use_id) : undefined) ?? 'tool';
      return { kind: 'tool-result', name, text: textOfResultContent(block.content), isError: block.is_error === true };
    }
    if (block.type === 'image') return { kind: 'text', text: IMAGE_PLACEHOLDER };
    const text = typeof block.text === 'string' ? block.text : '';
    const result = TOOL_RESULT_TEXT.exec(text);
    if (result) {
      resultOf = result[1]!;
      const output = withoutEnvironment(text.slice(result[0].length)).trim();
      // The person's answer to a question, or feedback on a denied edit, can follow in the same block
      // (`[ask_followup_question for '…'] Result:\n<answer>\n…\n</answer>`): those words are theirs.
      const spoken = PERSON_WRAPPED.test(output) ? personText(output) : '';
      const rest = spoken === '' ? output : output.replace(PERSON_WRAPPER, '').trim();
      // Roo Code puts the output in the blocks after the header.
      const parts: MessagePart[] = rest === '' ? [] : [{ kind: 'tool-result', name: resultOf, text: rest }];
      return spoken === '' ? (parts.length > 0 ? parts : { kind: 'text', text: '' }) : [...parts, { kind: 'text', text: spoken }];
    }
    if (INJECTED_TEXT.test(text)) return { kind: 'text', text: '' };
    if (ATTACHED_FILES.test(text)) return { kind: 'text', text: attachedFileNames(text) };
    if (resultOf !== undefined && !PERSON_WRAPPED.test(text)) {
      const output = withoutEnvironment(text).trim();
      return output === '' ? { kind: 'text', text: '' } : { kind: 'tool-result', name: resultOf, text: output };
    }
    return { kind: 'text', text: personText(text) };
  });
}

function assistantParts(content: unknown, toolNames: Map<string, string>): MessagePart[] {
  if (typeof content === 'string') return textWithThinking(content);
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).flatMap((block): MessagePart[] => {
    switch (block.type) {
      case 'text':
        return textWithThinking(typeof block.text === 'string' ? block.text : '');
      case 'thinking':
        return [{ kind: 'thinking', text: typeof block.thinking === 'string' ? block.thinking : '' }];
      case 'reasoning':
        return [{ kind: 'thinking', text: typeof block.text === 'string' ? block.text : '' }];
      case 'tool_use': {
        const name = optionalText(block.name) ?? 'tool';
        if (typeof block.id === 'string') toolNames.set(block.id, name);
        const input = isObject(block.input) ? block.input : {};
        if (name === 'attempt_completion' && typeof input.result === 'string') return [{ kind: 'text', text: input.result }];
        if (name === 'ask_followup_question' && typeof input.question === 'string') return [{ kind: 'text', text: input.question }];
        return [{ kind: 'tool-call', name, args: block.input ?? {} }];
      }
      default:
        return [{ kind: 'text', text: '' }];
    }
  });
}

/** Tools that older versions (and Roo Code's XML mode) call by writing `<tool_name>…</tool_name>` into the text. */
const XML_TOOLS = [
  'read_file', 'write_to_file', 'replace_in_file', 'apply_diff', 'insert_content', 'search_and_replace', 'search_files', 'list_files',
  'list_code_definition_names', 'codebase_search', 'execute_command', 'browser_action', 'use_mcp_tool', 'access_mcp_resource',
  'ask_followup_question', 'attempt_completion', 'plan_mode_respond', 'new_task', 'switch_mode', 'update_todo_list', 'fetch_instructions',
  'load_mcp_documentation', 'web_fetch', 'new_rule', 'condense', 'summarize_task', 'report_bug',
];
/** What the person reads of such a call: the answer, the question, the plan. */
const DIALOGUE_PARAMETER: Record<string, string> = { attempt_completion: 'result', ask_followup_question: 'question', plan_mode_respond: 'response' };
const TEXT_SEGMENT = new RegExp(`<thinking>([\\s\\S]*?)</thinking>|<(${XML_TOOLS.join('|')})>([\\s\\S]*?)</\\2>`, 'g');

/** What the extension appends to a reply it cut short: `[Response interrupted by a tool use result. …]`, `[Response interrupted by user]`. */
const INTERRUPTION_NOTE = /\[Response interrupted by (?:a tool use result|user|API Error)[^\]\n]*\]/g;

/** The model's words between its tool calls, without the extension's notes and the blank lines a call left. */
function modelWords(text: string): string {
  return text.replace(INTERRUPTION_NOTE, '').replace(/\n{3,}/g, '\n\n');
}

/** Text with the model's `<thinking>` and its XML tool calls taken apart. */
function textWithThinking(text: string): MessagePart[] {
  const parts: MessagePart[] = [];
  let last = 0;
  for (const match of text.matchAll(TEXT_SEGMENT)) {
    parts.push({ kind: 'text', text: modelWords(text.slice(last, match.index)) });
    last = match.index + match[0].length;
    if (match[1] !== undefined) {
      parts.push({ kind: 'thinking', text: match[1] });
      continue;
    }
    const name = match[2]!;
    const args = xmlParameters(match[3]!);
    const spoken = DIALOGUE_PARAMETER[name];
    parts.push(spoken !== undefined && args[spoken] !== undefined ? { kind: 'text', text: args[spoken] } : { kind: 'tool-call', name, args });
  }
  parts.push({ kind: 'text', text: modelWords(text.slice(last)) });
  return parts;
}

function xmlParameters(body: string): Record<string, string> {
  const args: Record<string, string> = {};
  for (const match of body.matchAll(/<([a-z_]+)>([\s\S]*?)<\/\1>/g)) args[match[1]!] = match[2]!.trim();
  return args;
}

function withoutEnvironment(text: string): string {
  return text.replace(/<environment_details>[\s\S]*?(?:<\/environment_details>|$)/g, '');
}

const PERSON_WRAPPER = /<(task|feedback|answer|user_message)>([\s\S]*?)(?:<\/\1>|$)/g;

/**
 * The person's words: the extension's wrappers and injected details taken away. Where the words are
 * wrapped, only what the wrappers hold is theirs: a resumed task introduces them with
 * `New instructions for task continuation:` or, in plan mode, `New message to respond to with
 * plan_mode_respond tool (…):`.
 */
function personText(text: string): string {
  const rest = withoutEnvironment(text);
  const wrapped = [...rest.matchAll(PERSON_WRAPPER)].map((match) => match[2]!.trim());
  return (wrapped.length > 0 ? wrapped.join('\n\n') : rest).trim();
}

function titleOf(ui: readonly JsonObject[], messages: readonly MessageInput[]): string | undefined {
  // Older versions open with a `task` message; newer ones with a plain `text` message holding the task.
  const opening = ui[0]?.type === 'say' && ui[0].say === 'text' ? ui[0] : undefined;
  const task = ui.find((message) => message.type === 'say' && message.say === 'task' && optionalText(message.text) !== undefined) ?? (optionalText(opening?.text) !== undefined ? opening : undefined);
  const text = (task?.text as string | undefined) ?? messages.find((message) => message.role === 'user')?.content;
  const line = text?.split('\n').find((candidate) => candidate.trim() !== '')?.trim();
  if (line === undefined) return undefined;
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
