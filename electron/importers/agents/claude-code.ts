/**
 * Claude Code transcripts (`~/.claude/projects/<project>/<sessionId>.jsonl`). Lines of type `user`
 * and `assistant` are the conversation; `summary`, `system`, `file-history-snapshot` and other
 * bookkeeping lines are not (a `custom-title`, `ai-title` or `summary` gives the title). msgId: the line's `uuid`.
 *
 * Lines link to their parent by `parentUuid`. Rewinding a conversation leaves the abandoned lines
 * in the file, so we take the path from the last message up to the root, as for the other
 * tree-shaped formats (a file in which most lines name no parent is read in file order: there the
 * chain does not link the conversation); after `/compact` the chain restarts at a boundary line whose
 * `logicalParentUuid` leads back to the messages before it, which stay part of the conversation.
 *
 * A subagent's conversation is its own session: its file (`<session>/subagents/agent-<id>.jsonl`)
 * holds only side-chain lines (`isSidechain: true`), which name the main session; it becomes the
 * session `<main session>:agent-<id>` with `parentSessionId` set to the main session.
 *
 * Left out of a main session: sub-agent lines (`isSidechain`, a conversation of their own), meta lines
 * (`isMeta`: caveats the client injects) and compaction summaries (`isCompactSummary`: the
 * model's retelling of messages that are still in the file).
 *
 * A slash command is written as a user line of tags, `<command-name>/model</command-name>
 * <command-message>model</command-message> <command-args>opus</command-args>`, and what the client
 * printed for it as `<local-command-stdout>…</local-command-stdout>`. The client's own commands
 * (`/model`, `/clear`, `/compact` …) are tool calls and their output the tool's result, both kept only
 * with `--include tools`; any other command sends the model a prompt, so it is the person's words as
 * typed (`/review the parser`). A command the client does not know is not written at all: only its
 * answer, `Unknown skill: <name>` as a plain user line after the caveat, which is read as the
 * command `/<name>` and that answer (kept only with `--include tools`). A shell command the person ran with `!` (`<bash-input>`) and what it
 * printed (`<bash-stdout>`, `<bash-stderr>`) are a `bash` tool call and its result. What the client
 * puts beside the person's words (`<ide_opened_file>`, `<ide_selection>` from the editor,
 * `<system-reminder>`) is left out, and so is `[Request interrupted by user]`, the note of a stopped reply.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, textOfResultContent, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, lineWhere, optionalText, requireNonEmptyString, requireObject, type JsonObject } from '../shape.js';
import { chainToLeaf } from '../parent-chain.js';
import { isoFromDateString } from '../time.js';
import { titleFromMessages } from '../titles.js';

const MESSAGE_TYPES = new Set(['user', 'assistant']);
const BOOKKEEPING_TYPES = new Set(['summary', 'file-history-snapshot', 'system']);

export function isClaudeCodeTranscript(records: readonly JsonlRecord[]): boolean {
  return records.slice(0, 50).some(({ value }) =>
    (MESSAGE_TYPES.has(value.type as string) && typeof value.uuid === 'string' && isObject(value.message)) ||
    (BOOKKEEPING_TYPES.has(value.type as string) && ('leafUuid' in value || 'messageId' in value || 'sessionId' in value)),
  );
}

/** @param fallbackSessionId used only when no line names its session (Claude Code names files `<sessionId>.jsonl`). */
export function mapClaudeCodeTranscript(records: readonly JsonlRecord[], fallbackSessionId: string, options: MappingOptions): SessionInput {
  const namedSession = records.map(({ value }) => optionalText(value.sessionId)).find((id) => id !== undefined);
  // A file with side-chain lines and no main-chain lines is a subagent's.
  const subagent = !records.some(({ value }) => isMessageLine(value) && value.isSidechain !== true) && records.some(({ value }) => isMessageLine(value) && value.isSidechain === true);
  const isConversationLine = (value: JsonObject) => isMessageLine(value) && (value.isSidechain === true) === subagent;
  const toolNames = new Map<string, string>();
  const messages: MessageInput[] = [];
  for (const record of conversationPath(records, isConversationLine)) {
    const { value } = record;
    if (value.isMeta === true || value.isCompactSummary === true) continue;
    for (const mapped of mapLine(record, toolNames, options)) messages.push(mapped);
  }
  if (subagent) {
    const agentId = records.map(({ value }) => optionalText(value.agentId)).find((id) => id !== undefined) ?? /^agent-(.+)$/.exec(fallbackSessionId)?.[1] ?? fallbackSessionId;
    const parent = namedSession ?? 'claude-code';
    const task = messages.find((m) => m.role === 'user')?.content.split('\n')[0]?.trim();
    const title = `Subagent: ${task === undefined || task === '' ? agentId : task.length > 80 ? `${task.slice(0, 79)}…` : task}`;
    return { sessionId: `${parent}:agent-${agentId}`, title, source: 'claude-code', ...(namedSession !== undefined ? { parentSessionId: namedSession } : {}), messages };
  }
  const title = latestTitle(records) ?? titleFromMessages(messages);
  return { sessionId: namedSession ?? fallbackSessionId, ...(title !== undefined ? { title } : {}), source: 'claude-code', messages };
}

/**
 * The ids of the messages on branches the person left: where a prompt of the conversation has
 * siblings (the person rewound to the message before it and typed again, or edited it), those
 * siblings and everything after them. A branch the chain makes for any other reason (a tool's result
 * written beside another's) is not a rewind and gives nothing. Ids are those of every part (thinking,
 * tool calls and results included), so whatever a save included can be matched; lines without a uuid
 * are left out (their ids are derived from their content when saved).
 */
export function claudeCodeRewound(records: readonly JsonlRecord[]): Set<string> {
  const subagent = !records.some(({ value }) => isMessageLine(value) && value.isSidechain !== true) && records.some(({ value }) => isMessageLine(value) && value.isSidechain === true);
  const isConversationLine = (value: JsonObject) => isMessageLine(value) && (value.isSidechain === true) === subagent;
  const path = conversationPath(records, isConversationLine);
  const onPath = new Set(path);
  const children = new Map<string | undefined, JsonlRecord[]>();
  for (const record of records) {
    const parent = parentOf(record);
    const siblings = children.get(parent);
    if (siblings) siblings.push(record);
    else children.set(parent, [record]);
  }
  const left = new Set<JsonlRecord>();
  const leave = (record: JsonlRecord) => {
    if (left.has(record) || onPath.has(record)) return;
    left.add(record);
    const uuid = optionalText(record.value.uuid);
    if (uuid !== undefined) for (const child of children.get(uuid) ?? []) leave(child);
  };
  for (const record of path) {
    if (!isPrompt(record.value)) continue;
    for (const sibling of children.get(parentOf(record)) ?? []) if (sibling !== record) leave(sibling);
  }
  const everything = { include: new Set(['tools', 'thinking'] as const) };
  const ids = new Set<string>();
  for (const record of left) {
    if (!isConversationLine(record.value) || typeof record.value.uuid !== 'string') continue;
    try {
      for (const message of mapLine(record, new Map(), everything)) if (message.msgId !== undefined) ids.add(message.msgId);
    } catch {
      // A line that cannot be read was never saved.
    }
  }
  return ids;
}

/** A line where the person typed: a user line that is not a tool's result, a meta line or a compaction summary. */
function isPrompt(value: JsonObject): boolean {
  if (value.type !== 'user' || value.isMeta === true || value.isCompactSummary === true || !isObject(value.message)) return false;
  const content = value.message.content;
  return typeof content === 'string' || (Array.isArray(content) && !content.some((block) => isObject(block) && block.type === 'tool_result'));
}

function isMessageLine(value: JsonObject): boolean {
  return MESSAGE_TYPES.has(value.type as string);
}

function conversationPath(records: readonly JsonlRecord[], isConversationLine: (value: JsonObject) => boolean): JsonlRecord[] {
  const byUuid = new Map<string, JsonlRecord>();
  for (const record of records) {
    if (typeof record.value.uuid === 'string') byUuid.set(record.value.uuid, record);
  }
  // A file whose lines mostly name no parent has no chain to follow: its order is the conversation's.
  // Hand-written logs leave every parentUuid null; logs that other tools wrote or converted carry one
  // link, or lines without a uuid. Claude Code's own logs name a parent on every line but the first
  // (and a line where the person rewound to the very start).
  const conversation = records.filter((record) => isConversationLine(record.value));
  const linked = conversation.filter((record) => parentOf(record) !== undefined).length;
  if (conversation.length - linked > linked) return conversation;
  // A parent that is not in the file: a session resumed from another file (nothing before this line
  // then), or a damaged line that was skipped, which must not cost the conversation before it.
  const chain = chainToLeaf(records, conversation.at(-1), { idOf: (record) => (typeof record.value.uuid === 'string' ? record.value.uuid : undefined), parentOf, byId: byUuid, resumesAt: (record) => isConversationLine(record.value) });
  return chain.filter((record) => isConversationLine(record.value));
}

function parentOf(record: JsonlRecord): string | undefined {
  return optionalText(record.value.parentUuid) ?? optionalText(record.value.logicalParentUuid);
}

/** Commands Claude Code carries out itself, which send the model nothing (its `/help` lists them). */
const CLIENT_COMMANDS = new Set([
  'add-dir', 'agents', 'bashes', 'bug', 'clear', 'compact', 'config', 'context', 'cost', 'doctor', 'effort', 'exit', 'export', 'fast', 'feedback',
  'help', 'hooks', 'ide', 'install-github-app', 'login', 'logout', 'mcp', 'memory', 'model', 'output-style', 'permissions', 'plugin', 'plugins',
  'privacy-settings', 'quit', 'release-notes', 'rename', 'reset', 'resume', 'rewind', 'sandbox', 'skills', 'stats', 'status', 'statusline', 'tasks',
  'terminal-setup', 'theme', 'todos', 'upgrade', 'usage', 'vim',
]);
const COMMAND_NAME = /<command-name>\s*\/?([^<]*?)\s*<\/command-name>/;
const COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;
const COMMAND_OUTPUT = /^\s*<local-command-(?:stdout|stderr)>([\s\S]*?)<\/local-command-(?:stdout|stderr)>\s*$/;
/** The key under which the last command is remembered, beside the tool calls' names. */
const LAST_COMMAND = '\0command';

/** The client's answer to a slash command it does not know (2.1), written in the person's name. */
const UNKNOWN_COMMAND = /^\s*Unknown skill: (\S+)\s*$/;

/** The client's note that the person stopped a reply (Esc), written as if they had said it. */
const INTERRUPTED = /^\s*\[Request interrupted by user(?: for tool use)?(?: at [^\]]*)?\]\s*$/;
const BASH_INPUT = /^\s*<bash-input>([\s\S]*?)<\/bash-input>/;
const BASH_OUTPUT = /<bash-(stdout|stderr)>([\s\S]*?)<\/bash-\1>/g;

/**
 * A user text that is a slash command, its output or the caveat before them, or a shell command the
 * person ran with `!` (`<bash-input>`) and its output (`<bash-stdout>`, `<bash-stderr>`), as what it is;
 * else the text.
 */
function userTextParts(text: string, toolNames: Map<string, string>): MessagePart[] {
  const command = COMMAND_NAME.exec(text);
  if (command && /^\s*<command-(?:name|message)>/.test(text)) {
    const name = command[1]!;
    const args = COMMAND_ARGS.exec(text)?.[1]?.trim() ?? '';
    toolNames.set(LAST_COMMAND, `/${name}`);
    if (CLIENT_COMMANDS.has(name.toLowerCase())) return [{ kind: 'tool-call', name: `/${name}`, args }];
    return [{ kind: 'text', text: args === '' ? `/${name}` : `/${name} ${args}` }];
  }
  const unknown = UNKNOWN_COMMAND.exec(text);
  if (unknown) {
    const name = `/${unknown[1]!.replace(/^\//, '')}`;
    return [{ kind: 'tool-call', name, args: '' }, { kind: 'tool-result', name, text: text.trim(), isError: true }];
  }
  const output = COMMAND_OUTPUT.exec(text);
  if (output) return [{ kind: 'tool-result', name: toolNames.get(LAST_COMMAND) ?? 'command', text: output[1]!.trim() }];
  if (/^\s*(?:<local-command-caveat>|Caveat: The messages below were generated by the user while running local commands\.)/i.test(text) || INTERRUPTED.test(text)) return [{ kind: 'text', text: '' }];
  const bashInput = BASH_INPUT.exec(text);
  const bashOutput = [...text.matchAll(BASH_OUTPUT)];
  if (bashInput || (bashOutput.length > 0 && /^\s*<bash-(?:stdout|stderr)>/.test(text))) {
    const parts: MessagePart[] = bashInput ? [{ kind: 'tool-call', name: 'bash', args: bashInput[1]!.trim() }] : [];
    const printed = bashOutput.map((match) => match[2]!.trim()).filter((part) => part !== '').join('\n');
    if (bashOutput.length > 0) parts.push({ kind: 'tool-result', name: 'bash', text: printed, isError: bashOutput.some((match) => match[1] === 'stderr' && match[2]!.trim() !== '') });
    return parts;
  }
  return [{ kind: 'text', text: withoutClientContext(text) }];
}

/** What the client adds beside the person's words: the editor's open file and selection, its reminders. */
const CLIENT_CONTEXT = /<(system-reminder|ide_opened_file|ide_selection)>[\s\S]*?(?:<\/\1>|$)/g;

function withoutClientContext(text: string): string {
  if (!text.includes('<')) return text;
  const rest = text.replace(CLIENT_CONTEXT, '');
  return rest === text ? text : rest.trim();
}

function mapLine(record: JsonlRecord, toolNames: Map<string, string>, options: MappingOptions): MessageInput[] {
  const where = lineWhere(record.lineNo);
  // A line without a uuid (written by another tool) gets an id from its content, as id-less formats do.
  const id = record.value.uuid === undefined ? undefined : requireNonEmptyString(record.value.uuid, at(where, 'uuid'));
  const message = requireObject(record.value.message, at(where, 'message'));
  const role = record.value.type === 'user' ? 'user' : 'assistant';
  const timestamp = isoFromDateString(record.value.timestamp);
  const parts = contentParts(message.content, toolNames).flatMap((part) => (role === 'user' && part.kind === 'text' ? userTextParts(part.text, toolNames) : [part]));
  return messagesFromParts({ ...(id !== undefined ? { id } : {}), role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options);
}

function contentParts(content: unknown, toolNames: Map<string, string>): MessagePart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).map((block): MessagePart => {
    switch (block.type) {
      case 'text':
        return { kind: 'text', text: typeof block.text === 'string' ? block.text : '' };
      case 'image':
        return { kind: 'text', text: IMAGE_PLACEHOLDER };
      case 'thinking':
        return { kind: 'thinking', text: typeof block.thinking === 'string' ? block.thinking : '' };
      case 'tool_use': {
        const name = optionalText(block.name) ?? 'tool';
        if (typeof block.id === 'string') toolNames.set(block.id, name);
        return { kind: 'tool-call', name, args: block.input ?? {} };
      }
      case 'tool_result': {
        const name = (typeof block.tool_use_id === 'string' ? toolNames.get(block.tool_use_id) : undefined) ?? 'tool';
        return { kind: 'tool-result', name, text: textOfResultContent(block.content), isError: block.is_error === true };
      }
      default:
        // redacted_thinking and future block types carry nothing readable.
        return { kind: 'text', text: '' };
    }
  });
}

/**
 * The session's title as Claude Code keeps it: the name the person gave (`/rename`: a `custom-title`
 * line), else the one it generated (`ai-title`), else an earlier version's `summary`; the last line
 * of each kind wins. A run with `-p` writes none of them (checked with 2.1.332): the first thing the
 * person said is the title then, as for Codex and Gemini CLI.
 */
function latestTitle(records: readonly JsonlRecord[]): string | undefined {
  for (const [type, field] of [['custom-title', 'customTitle'], ['ai-title', 'aiTitle'], ['summary', 'summary']] as const) {
    const title = records.findLast(({ value }) => value.type === type && optionalText(value[field]) !== undefined)?.value[field];
    if (typeof title === 'string') return title.trim();
  }
  return undefined;
}
