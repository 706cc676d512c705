/**
 * Cline's command-line agent (npm `cline`, 3.0 and later, built on the Cline SDK) does not write the
 * extension's task folders: it keeps each session in `~/.cline/data/sessions/<sessionId>/`
 * (`CLINE_SESSION_DATA_DIR`, else `sessions/` of `CLINE_DATA_DIR`, else `data/sessions/` of `CLINE_DIR`):
 * - `<sessionId>.messages.json`: `{version, updated_at, agent, sessionId, origin, messages, system_prompt}`,
 *   each message `{id, role: "user" | "assistant", content: [blocks], ts, modelInfo?, metrics?}` with
 *   Anthropic-style blocks (`text`, `thinking`, `tool_use`, `tool_result`, `image`, `file`). Rewritten
 *   whole at each turn; a session taken up again (`cline --id <sessionId>`) grows in place, every
 *   message keeping its id.
 * - `<sessionId>.json`: the session's record (process, model, status, `metadata.title`, the same row
 *   as in `db/sessions.db`); it holds no conversation. Its title is read as a companion (companions.ts).
 * - `agent_<id>.messages.json` in the same folder: a sub-agent the model started (`spawn_agent`), its
 *   own session (`<sessionId>__agent_<id>`, `agent: "subagent"`) naming its parent in `origin.parentThreadId`;
 *   its first message is the task the model gave it.
 *
 * The person's words come wrapped as Cline sends them to the model, `<user_input mode="act">…</user_input>`
 * (or `<user_command slash="…">` for a slash command): only what the wrapper holds is kept, and the
 * `<mode_notice>` Cline adds after a switch between plan and act is left out, as Cline's own history does.
 * A file the person attached is named, `[file: notes.md]`, not copied. Tool calls and results follow
 * `--include tools`, thinking `--include thinking`. msgId: the message's `id`.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireArray, requireNonEmptyString, requireObject, serializeNested } from '../shape.js';
import { isoFromEpochMillis } from '../time.js';
import { titleFromMessages } from '../titles.js';

/** The name of a session's messages file; the session's record is `<sessionId>.json` beside it. */
export const CLINE_CLI_MESSAGES_SUFFIX = '.messages.json';

export function isClineCliSession(value: unknown): boolean {
  if (!isObject(value) || typeof value.sessionId !== 'string' || typeof value.agent !== 'string' || !Array.isArray(value.messages)) return false;
  if (!isObject(value.origin) && typeof value.system_prompt !== 'string') return false;
  return value.messages.slice(0, 20).every((message) => isObject(message) && (message.role === 'user' || message.role === 'assistant') && 'content' in message);
}

export function mapClineCliSession(value: unknown, where: string, options: MappingOptions): SessionInput {
  const session = requireObject(value, where);
  const sessionId = requireNonEmptyString(session.sessionId, at(where, 'sessionId'));
  const messagesWhere = at(where, 'messages');
  const toolNames = new Map<string, string>();
  const messages: MessageInput[] = [];
  requireArray(session.messages, messagesWhere).forEach((entry, index) => {
    const message = requireObject(entry, at(messagesWhere, index));
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const id = typeof message.id === 'string' && message.id !== '' ? message.id : String(index);
    const timestamp = isoFromEpochMillis(message.ts);
    messages.push(...messagesFromParts({ id, role, ...(timestamp !== undefined ? { timestamp } : {}) }, blockParts(message.content, role, toolNames), options));
  });
  const title = titleFromMessages(messages);
  const parent = isObject(session.origin) ? optionalText(session.origin.parentThreadId) : undefined;
  return { sessionId, ...(title !== undefined ? { title } : {}), source: 'cline', ...(parent !== undefined ? { parentSessionId: parent } : {}), messages };
}

function blockParts(content: unknown, role: 'user' | 'assistant', toolNames: Map<string, string>): MessagePart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: role === 'user' ? personText(content) : content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).flatMap((block): MessagePart[] => {
    switch (block.type) {
      case 'text': {
        const text = typeof block.text === 'string' ? block.text : '';
        return [{ kind: 'text', text: role === 'user' ? personText(text) : text }];
      }
      case 'thinking':
        return typeof block.thinking === 'string' ? [{ kind: 'thinking', text: block.thinking }] : [];
      case 'tool_use': {
        const name = typeof block.name === 'string' ? block.name : 'tool';
        if (typeof block.id === 'string') toolNames.set(block.id, name);
        return [{ kind: 'tool-call', name, args: block.input ?? {} }];
      }
      case 'tool_result': {
        const name = (typeof block.name === 'string' ? block.name : undefined) ?? (typeof block.tool_use_id === 'string' ? toolNames.get(block.tool_use_id) : undefined) ?? 'tool';
        return [{ kind: 'tool-result', name, text: resultText(block.content), isError: block.is_error === true }];
      }
      case 'image':
        return [{ kind: 'text', text: IMAGE_PLACEHOLDER }];
      case 'file':
        return [{ kind: 'text', text: fileName(block.path) }];
      default:
        // `redacted_thinking` (encrypted), generated `media`, and blocks added later.
        return [];
    }
  });
}

const USER_INPUT = /^\s*<user_input\b[^>]*>([\s\S]*?)<\/user_input>\s*$/;
const USER_COMMAND = /^\s*<user_command\s+slash="([^"]*)"[^>]*>([\s\S]*?)<\/user_command>\s*$/;
const MODE_NOTICE = /<mode_notice>[\s\S]*?<\/mode_notice>/g;

/** The person's words without Cline's wrapper: what `<user_input>` holds, a slash command as typed. */
function personText(text: string): string {
  const bare = text.replace(MODE_NOTICE, '').trim();
  const command = USER_COMMAND.exec(bare);
  if (command) return `/${command[1]} ${command[2]!.trim()}`.trim();
  return (USER_INPUT.exec(bare)?.[1] ?? bare).trim();
}

function fileName(value: unknown): string {
  return typeof value === 'string' && value !== '' ? `[file: ${value.split(/[\\/]/).at(-1)}]` : '[file]';
}

/**
 * A tool's result: text, or a list of blocks. Besides text, image and file blocks, Cline's own tools
 * return records (`run_commands`: `{query, result, success}` per command): the output they hold, else the record.
 */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((item) => {
      if (typeof item === 'string') return item;
      if (!isObject(item)) return '';
      if (typeof item.text === 'string') return item.text;
      if (item.type === 'image') return IMAGE_PLACEHOLDER;
      if (item.type === 'file') return fileName(item.path);
      if (typeof item.result === 'string') return item.result;
      if (typeof item.error === 'string') return item.error;
      return serializeNested('a tool result', () => JSON.stringify(item));
    })
    .filter((text) => text !== '')
    .join('\n');
}
