/**
 * aider's chat log, `.aider.chat.history.md` in each project folder: every run of aider appends a
 * session that starts `# aider chat started at <local time>`; the person's input is on lines
 * starting `#### `, aider's own output (commands, token counts, commits) on lines quoted `> `, and
 * everything else is the model's reply (its reasoning inside `<thinking-content-…>` tags, or a
 * reasoning model's own `<think>` at the start of the reply).
 *
 * The file only grows, so everything is identified by position: a session by its start time and
 * its first input (two projects can start aider in the same second), a message by the number of
 * the block within its session (tool output counts, so ids do not depend on `--include`). Saving
 * the file again after aider wrote more adds only the new turns. The start time is the only time
 * aider records; it dates the person's first words, read as local time as aider wrote it.
 *
 * aider's output follows the `--include tools` rule, its reasoning the `thinking` rule. Slash
 * commands that manage files (`/add`, `/drop`, ...) are tool calls; `/ask`, `/code` and
 * `/architect` carry a question, which is kept without the command.
 */
import { createHash } from 'node:crypto';
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';

export const AIDER_HISTORY_FILE = '.aider.chat.history.md';

const SESSION_START = /^# aider chat started at (.+?)\s*$/;

export function isAiderHistory(text: string): boolean {
  return text
    .slice(0, 64 * 1024)
    .split('\n', 200)
    .some((line) => SESSION_START.test(line));
}

type BlockKind = 'person' | 'aider' | 'model';

interface Block {
  kind: BlockKind;
  lines: string[];
}

export function mapAiderHistory(text: string, options: MappingOptions): SessionInput[] {
  const sessions: SessionInput[] = [];
  let current: { started: string; blocks: Block[]; afterBlank: boolean } | undefined;
  const finish = () => {
    const session = current ? sessionOf(current.started, current.blocks, options) : undefined;
    if (session) sessions.push(session);
  };
  for (const rawLine of text.replace(/^\uFEFF/, '').split('\n')) {
    const line = rawLine.replace(/\r$/, '');
    const start = SESSION_START.exec(line);
    if (start) {
      finish();
      current = { started: start[1]!, blocks: [], afterBlank: false };
    } else if (current) {
      addLine(current, line);
    }
  }
  finish();
  return sessions;
}

function addLine(state: { blocks: Block[]; afterBlank: boolean }, line: string): void {
  if (line.trim() === '') {
    state.afterBlank = true;
    return;
  }
  const [kind, content]: [BlockKind, string] =
    line === '####' || line.startsWith('#### ') ? ['person', line.slice(5)] : line === '>' || line.startsWith('> ') ? ['aider', line.slice(2)] : ['model', line];
  // aider ends its lines with two spaces (a Markdown line break).
  const text = content.replace(/ {2}$/, '');
  const last = state.blocks.at(-1);
  // A blank line ends the person's input and aider's output; within a reply it is a paragraph break.
  // Older aider (0.50 and before) wrote each line of a multi-line input as its own `#### ` paragraph,
  // so input that follows input with nothing between is the same input (also a line of it that starts
  // with `/`), unless the earlier one is a command: `/clear` writes nothing, and the next input follows it.
  const continuesInput = kind === 'person' && last?.kind === 'person' && !last.lines[0]!.startsWith('/');
  if (last && last.kind === kind && (kind === 'model' || !state.afterBlank || continuesInput)) {
    if (state.afterBlank && kind === 'model') last.lines.push('');
    last.lines.push(text);
  } else {
    state.blocks.push({ kind, lines: [text] });
  }
  state.afterBlank = false;
}

function sessionOf(started: string, blocks: Block[], options: MappingOptions): SessionInput | undefined {
  const firstInput = blocks.find((block) => block.kind === 'person');
  if (firstInput === undefined) return undefined;
  const digest = createHash('sha256').update(firstInput.lines.join('\n')).digest('hex').slice(0, 12);
  const sessionId = `aider:${started.replace(/\s+/g, 'T')}:${digest}`;
  const startedAt = isoFromLocalTime(started);
  // The start time dates the person's first words (not a command), whatever `--include` leaves out.
  const dated = blocks.findIndex((block) => block.kind === 'person' && partsOf(block).some((part) => part.kind === 'text'));
  const messages: MessageInput[] = [];
  blocks.forEach((block, index) => {
    const timestamp = index === dated ? startedAt : undefined;
    const source = { id: String(index), role: block.kind === 'person' ? ('user' as const) : ('assistant' as const), ...(timestamp !== undefined ? { timestamp } : {}) };
    messages.push(...messagesFromParts(source, partsOf(block), options));
  });
  const title = messages.find((message) => message.role === 'user')?.content.split('\n')[0]?.trim();
  return { sessionId, ...(title ? { title: title.length > 100 ? `${title.slice(0, 99)}…` : title } : {}), source: 'aider', messages };
}

const QUESTION_COMMAND = /^\/(?:ask|code|architect|context)\s+([\s\S]+)$/;

/**
 * aider's own question and the person's answer, which aider 0.86 writes as input when the answer is
 * typed ("Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all"): tool
 * traffic, as the question quoted `> ` is.
 */
const CONFIRMATION = /\(Y\)es\/\(N\)o\b[^\n]*\[(?:Yes|No)\]:/;

function partsOf(block: Block): MessagePart[] {
  const text = block.lines.join('\n').trim();
  switch (block.kind) {
    case 'aider':
      return [{ kind: 'tool-result', name: 'aider', text }];
    case 'person': {
      if (CONFIRMATION.test(text) && !text.includes('\n')) return [{ kind: 'tool-result', name: 'aider', text }];
      if (!text.startsWith('/')) return [{ kind: 'text', text }];
      const question = QUESTION_COMMAND.exec(text);
      if (question) return [{ kind: 'text', text: question[1]!.trim() }];
      const [command = '/', ...rest] = text.split(/\s+/);
      return [{ kind: 'tool-call', name: command, args: rest.join(' ') }];
    }
    case 'model':
      return modelParts(text);
  }
}

/**
 * The reply with its reasoning apart: `<thinking-content-…>` tags, older `► **THINKING**` … `► **ANSWER**`
 * sections, or the `<think>` … `</think>` a reasoning model served as plain text (Qwen3, DeepSeek-R1
 * through Ollama) opens its reply with, which aider writes as it came.
 */
function modelParts(text: string): MessagePart[] {
  const parts: MessagePart[] = [];
  const reasoning = /<thinking-content-[0-9a-f]*>([\s\S]*?)(?:<\/thinking-content-[0-9a-f]*>|$)|►\s*\*\*THINKING\*\*([\s\S]*?)►\s*\*\*ANSWER\*\*|^\s*<think>([\s\S]*?)(?:<\/think>|$)/g;
  let last = 0;
  for (let match = reasoning.exec(text); match !== null; match = reasoning.exec(text)) {
    parts.push({ kind: 'text', text: text.slice(last, match.index) });
    parts.push({ kind: 'thinking', text: match[1] ?? match[2] ?? match[3] ?? '' });
    last = match.index + match[0].length;
  }
  parts.push({ kind: 'text', text: text.slice(last) });
  return parts;
}

/** `2025-06-02 11:47:49`, the local time of the machine aider ran on (normally this one). */
function isoFromLocalTime(value: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(value.trim());
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(year, month - 1, day, hour, minute, second);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
