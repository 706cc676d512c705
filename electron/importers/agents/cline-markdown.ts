/**
 * The Markdown a Cline-family extension writes when a task is exported (its "Export task" button:
 * `cline_task_<date>.md`, `roo_task_<date>.md`, `kilo_code_task_<date>.md`, and the forks' own, such
 * as IBM Bob's `bob_task_<date>.md`), which people commit beside their code. Each message of the
 * task's API history is written under `**User:**` or `**Assistant:**`, the messages separated by
 * `---` rules, a message's blocks one after the other:
 *
 *   **User:**
 *   <task>Fix the tsconfig paths</task>
 *   <environment_details> … Current time in ISO 8601 UTC format: 2026-05-16T10:41:23.814Z … </environment_details>
 *   ---
 *   **Assistant:**
 *   Let me read it. <read_file><path>tsconfig.json</path></read_file>      (tools written as XML)
 *   [Tool Use: attempt_completion]                                          (or as native calls)
 *   Result: The alias now points to ./src/*.
 *   ---
 *   **User:**
 *   [read_file for 'tsconfig.json'] Result: …
 *
 * The messages are turned back into that API history and read as the task folder's
 * `api_conversation_history.json` is (see cline.ts): only what the person wrote, the answers, and the
 * tool calls and results under `--include tools`. A person's message is dated by the time the
 * extension wrote into its details, where it wrote one in ISO 8601. The session is named after the
 * file (`bob_task_may-16-2026_5-41-57-pm`); the extension that wrote it is told by that name.
 */
import type { SessionInput } from '../../../shared/domain.js';
import type { MappingOptions } from '../parts.js';
import { mapClineTask, type ClineTool } from './cline.js';

const TURN_LABEL = /^\*\*(User|Assistant):\*\*[ \t]*$/;
const RULE = /^ {0,3}---[ \t]*$/;
/** Lines that start a block of the person's message: a wrapper, the editor's details, a tool's result. */
const USER_BLOCK_START = /^(?:<(?:task|feedback|answer|user_message|environment_details)>|\[[\w-]+(?: for |\] Result:)|\[Tool(?: \(Error\))?\][ \t]*$|\[TASK RESUMPTION\]|\[ERROR\]|Files attached by the user:|# task_progress\b)/;
/** A native tool call as the export writes it: `[Tool Use: read_file]`, then its arguments as `Key: value` lines. */
const NATIVE_CALL = /^\[Tool Use: ([\w-]+)\][ \t]*$/;
/** A native tool's result, in the person's message: `[Tool]` or `[Tool (Error)]`, then the output. */
const NATIVE_RESULT = /^\[Tool( \(Error\))?\][ \t]*\n?/;
const ISO_TIME = /Current time in ISO 8601 UTC format:[ \t]*(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)/;

/** Whether the text is such an export: it opens with the person's message holding the task. */
export function isClineMarkdownExport(text: string): boolean {
  return /^\uFEFF?\s*\*\*User:\*\*[ \t]*\r?\n\s*<task>/.test(text.slice(0, 4096));
}

interface ApiBlock {
  type: 'text' | 'tool_use' | 'tool_result';
  text?: string;
  id?: string;
  name?: string;
  input?: Record<string, string>;
  tool_use_id?: string;
  content?: string;
  is_error?: boolean;
}

/** @param baseName the file name without folders, e.g. `roo_task_may-16-2026_5-41-57-pm.md`. */
export function mapClineMarkdownExport(text: string, baseName: string, options: MappingOptions): SessionInput {
  const turns: Array<{ role: 'user' | 'assistant'; lines: string[] }> = [];
  let afterRule = true;
  for (const line of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const label = afterRule ? TURN_LABEL.exec(line) : null;
    if (line.trim() !== '') afterRule = RULE.test(line);
    if (label) {
      turns.push({ role: label[1] === 'User' ? 'user' : 'assistant', lines: [] });
      continue;
    }
    turns.at(-1)?.lines.push(line);
  }
  let lastCall: string | undefined;
  const api = turns.map((turn, index) => {
    // The rule before the next label belongs to no message.
    while (turn.lines.length > 0 && (turn.lines.at(-1)!.trim() === '' || RULE.test(turn.lines.at(-1)!))) turn.lines.pop();
    const body = turn.lines.join('\n').trim();
    if (turn.role === 'assistant') {
      const blocks = assistantBlocks(body, index);
      lastCall = blocks.findLast((block) => block.type === 'tool_use')?.id ?? lastCall;
      return { role: turn.role, content: blocks };
    }
    const time = ISO_TIME.exec(body)?.[1];
    const blocks = userBlocks(turn.lines).map((block): ApiBlock => {
      const native = NATIVE_RESULT.exec(block);
      if (!native || lastCall === undefined) return { type: 'text', text: block };
      return { type: 'tool_result', tool_use_id: lastCall, content: block.slice(native[0].length), is_error: native[1] !== undefined };
    });
    return { role: turn.role, content: blocks, ...(time !== undefined ? { ts: Date.parse(time) } : {}) };
  });
  const taskId = baseName.replace(/\.[^.]*$/, '') || baseName;
  return mapClineTask({ taskId, tool: toolOf(baseName), api }, options);
}

/** The person's message cut where the extension's blocks began, as the API history holds them apart. */
function userBlocks(lines: readonly string[]): string[] {
  const blocks: string[][] = [];
  let inDetails = false;
  for (const line of lines) {
    if (!inDetails && (blocks.length === 0 || USER_BLOCK_START.test(line))) blocks.push([]);
    blocks.at(-1)!.push(line);
    if (line.startsWith('<environment_details>')) inDetails = true;
    if (line.includes('</environment_details>')) inDetails = false;
  }
  return blocks.map((block) => block.join('\n').trim()).filter((block) => block !== '');
}

/** The model's message: its text (with XML tool calls, which cline.ts reads), and its native tool calls. */
function assistantBlocks(body: string, index: number): ApiBlock[] {
  const blocks: ApiBlock[] = [];
  let text: string[] = [];
  let call: { name: string; lines: string[] } | undefined;
  const flush = (): void => {
    if (call) blocks.push({ type: 'tool_use', id: `${index}:${blocks.length}`, name: call.name, input: nativeArguments(call.lines) });
    else if (text.length > 0) blocks.push({ type: 'text', text: text.join('\n') });
    call = undefined;
    text = [];
  };
  for (const line of body.split('\n')) {
    const native = NATIVE_CALL.exec(line);
    if (native) {
      flush();
      call = { name: native[1]!, lines: [] };
    } else if (call) call.lines.push(line);
    else text.push(line);
  }
  flush();
  return blocks;
}

/**
 * A native call's arguments, written `Key: value` with the key capitalised. A value runs on over the
 * lines after it until the next `Key:` line, as an answer (`Result:`) spans paragraphs.
 */
function nativeArguments(lines: readonly string[]): Record<string, string> {
  const input: Record<string, string> = {};
  let key: string | undefined;
  for (const line of lines) {
    const argument = /^([A-Z][a-z_]*(?: [a-z_]+)?): ?(.*)$/.exec(line);
    if (argument && (key === undefined || !['result', 'question', 'content', 'diff'].includes(key))) {
      key = argument[1]!.toLowerCase().replace(/ /g, '_');
      input[key] = argument[2]!;
    } else if (key !== undefined) input[key] += `\n${line}`;
  }
  for (const name of Object.keys(input)) input[name] = input[name]!.trim();
  return input;
}

function toolOf(baseName: string): ClineTool {
  if (/^roo_task_/i.test(baseName)) return 'roo-code';
  if (/^kilo(?:_code)?_task_/i.test(baseName)) return 'kilo-code';
  return 'cline';
}
