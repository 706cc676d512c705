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
 * (`isMeta`: caveats the client injects), compaction summaries (`isCompactSummary`: the
 * model's retelling of messages that are still in the file) and what a slash command printed; the
 * command itself is kept as the person typed it.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, textOfResultContent, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, lineWhere, optionalText, requireNonEmptyString, requireObject, type JsonObject } from '../shape.js';
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
  const leaf = conversation.at(-1);
  const path: JsonlRecord[] = [];
  const seen = new Set<string>();
  for (let record = leaf; record !== undefined; ) {
    const uuid = record.value.uuid;
    if (typeof uuid !== 'string' || seen.has(uuid)) break;
    seen.add(uuid);
    if (isConversationLine(record.value)) path.push(record);
    const parent = parentOf(record);
    if (parent === undefined) break;
    // A parent that is not in the file: a session resumed from another file (nothing before this line
    // then), or a damaged line that was skipped, which must not cost the conversation before it.
    record = byUuid.get(parent) ?? previousConversationLine(records, record, seen, isConversationLine);
  }
  return path.reverse();
}

function parentOf(record: JsonlRecord): string | undefined {
  return optionalText(record.value.parentUuid) ?? optionalText(record.value.logicalParentUuid);
}

function previousConversationLine(records: readonly JsonlRecord[], from: JsonlRecord, seen: ReadonlySet<string>, isConversationLine: (value: JsonObject) => boolean): JsonlRecord | undefined {
  for (let i = records.indexOf(from) - 1; i >= 0; i--) {
    const candidate = records[i]!;
    if (isConversationLine(candidate.value) && typeof candidate.value.uuid === 'string' && !seen.has(candidate.value.uuid)) return candidate;
  }
  return undefined;
}

function mapLine(record: JsonlRecord, toolNames: Map<string, string>, options: MappingOptions): MessageInput[] {
  const where = lineWhere(record.lineNo);
  // A line without a uuid (written by another tool) gets an id from its content, as id-less formats do.
  const id = record.value.uuid === undefined ? undefined : requireNonEmptyString(record.value.uuid, at(where, 'uuid'));
  const message = requireObject(record.value.message, at(where, 'message'));
  const role = record.value.type === 'user' ? 'user' : 'assistant';
  const timestamp = isoFromDateString(record.value.timestamp);
  const local = role === 'user' ? localCommand(message.content) : null;
  if (local === '') return [];
  const parts = local !== null ? [{ kind: 'text' as const, text: local }] : contentParts(message.content, toolNames);
  return messagesFromParts({ ...(id !== undefined ? { id } : {}), role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options);
}

const COMMAND_TAGS = /<(command-name|command-message|command-args)>([\s\S]*?)<\/\1>/g;
const LOCAL_OUTPUT = /^\s*(<(local-command-stdout|local-command-stderr)>[\s\S]*?<\/\2>\s*)+$/;

/**
 * A slash command the person ran in Claude Code (`/model opus`, `/exit`) is a user line of markup,
 * `<command-name>/model</command-name><command-message>…</command-message><command-args>opus</command-args>`,
 * and what it printed another (`<local-command-stdout>Catch you later!</local-command-stdout>`):
 * the command as typed, '' for its output (left out: Claude Code's words on the screen, neither the
 * person's nor the model's), null for any other line.
 */
function localCommand(content: unknown): string | null {
  if (typeof content !== 'string') return null;
  if (LOCAL_OUTPUT.test(content)) return '';
  const tags = new Map([...content.matchAll(COMMAND_TAGS)].map((match) => [match[1]!, match[2]!.trim()]));
  if (!tags.has('command-name') || content.replace(COMMAND_TAGS, '').trim() !== '') return null;
  return [tags.get('command-name'), tags.get('command-args')].filter(Boolean).join(' ');
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
