/**
 * Codex CLI's conversation items: the OpenAI Responses API items it records (`message`, `reasoning`,
 * `function_call`, `function_call_output`, `custom_tool_call`, `local_shell_call`, `web_search_call`, ...),
 * whatever wrapper each rollout shape puts around them, turned into messages.
 *
 * Only the person's words are kept as user messages. Codex sends the model context of its own in the
 * user role (`<environment_context>`, the AGENTS.md text, notices from sub-agents); since 2026 each
 * item says where its text came from (`content_item_metadata[].provenance.type`: `user`, `harness`,
 * `tool`, ...), and before that the injected text is known by how it starts.
 */
import type { MessageInput } from '../../../shared/domain.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, textOfResultContent, type MappingOptions, type MessagePart } from '../parts.js';
import { isObject, optionalText, type JsonObject } from '../shape.js';

/** How text that Codex itself puts in the user role begins. */
const INJECTED_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '<user_shell_command>',
  '<subagent_notification>',
  '<turn_aborted>',
  '<skills_instructions>',
  '<INSTRUCTIONS>',
  // `# AGENTS.md instructions for <folder>`; since 0.154 without the folder.
  '# AGENTS.md instructions',
  '<permissions instructions>',
  '<collaboration_mode>',
  '<hook_context>',
  // A skill the person named with `$name`: its SKILL.md, sent before their words.
  '<skill>',
  '<user_action>',
  '<recommended_plugins>',
  // The desktop app's note of the page it had open (0.159).
  '<external_codex_apps_open_page>',
];

export function isInjectedText(text: string): boolean {
  const start = text.trimStart();
  return INJECTED_PREFIXES.some((prefix) => start.startsWith(prefix));
}

/**
 * How the IDE extension and the desktop app wrap a prompt: what the editor showed (`## Active file:`,
 * `## Open tabs:`, a selection) or the files attached, then the person's words under their own heading.
 */
const REQUEST_HEADING = '## My request for Codex:';
const WRAPPER_HEADINGS = ['# Context from my IDE setup:', '# Files mentioned by the user:', REQUEST_HEADING];
const REQUEST_HEADING_LINE = /^## My request for Codex:[ \t]*(?:\r?\n|$)/m;

/** The person's words of a prompt the IDE extension or the desktop app wrapped; other text as it is. */
export function personsRequest(text: string): string {
  const start = text.trimStart();
  if (!WRAPPER_HEADINGS.some((heading) => start.startsWith(heading))) return text;
  const heading = REQUEST_HEADING_LINE.exec(text);
  return heading === null ? text : text.slice(heading.index + heading[0].length);
}

/** Items of a Responses API conversation that hold dialogue, tools or reasoning. */
export const RESPONSE_ITEM_TYPES = new Set(['message', 'reasoning', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call', 'web_search_call']);

/** Tool names by call id, filled as calls are read so that results can name their tool. */
export type ToolNames = Map<string, string>;

/**
 * The messages of one item, under the item's own id; a tool output takes its call's id. Items with
 * no id (user messages of older versions) get none, and the engine derives one from the content.
 */
export function mapResponseItem(item: JsonObject, toolNames: ToolNames, options: MappingOptions, timestamp: string | undefined): MessageInput[] {
  const meta = { ...(timestamp !== undefined ? { timestamp } : {}) };
  switch (item.type) {
    case 'message': {
      const role = item.role;
      if (role !== 'user' && role !== 'assistant') return [];
      if (role === 'user' && !isPersonsMessage(item)) return [];
      const parts = messageParts(personsContent(item, role === 'user'), role === 'user');
      return messagesFromParts({ ...idOf(item), role, ...meta }, parts, options);
    }
    case 'reasoning': {
      const text = reasoningText(item);
      return messagesFromParts({ ...idOf(item), role: 'assistant', ...meta }, [{ kind: 'thinking', text }], options);
    }
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call':
    case 'web_search_call': {
      const part = toolCallPart(item);
      const callId = optionalText(item.call_id);
      if (callId !== undefined) toolNames.set(callId, part.name);
      return messagesFromParts({ ...idOf(item, callId), role: 'tool', ...meta }, [part], options);
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const callId = optionalText(item.call_id);
      const name = (callId !== undefined ? toolNames.get(callId) : undefined) ?? 'tool';
      const { text, isError } = outputText(item.output);
      return messagesFromParts({ ...idOf(item, callId === undefined ? undefined : `${callId}:output`), role: 'tool', ...meta }, [{ kind: 'tool-result', name, text, isError }], options);
    }
    default:
      return [];
  }
}

/**
 * A Chat Completions message, as the TypeScript CLI's forks for other providers saved them (`open-codex`:
 * `{role, content, tool_calls?}` and `{role: "tool", tool_call_id, content}`, no `type`, no id). The
 * person's lines typed in the terminal end in a bare carriage return; they are read as line breaks.
 */
export function mapChatMessage(item: JsonObject, toolNames: ToolNames, options: MappingOptions): MessageInput[] {
  const role = item.role;
  if (role === 'tool') {
    const callId = optionalText(item.tool_call_id);
    const name = (callId !== undefined ? toolNames.get(callId) : undefined) ?? optionalText(item.name) ?? 'tool';
    const text = typeof item.content === 'string' ? item.content : textOfResultContent(item.content);
    return messagesFromParts({ ...(callId !== undefined ? { id: `${callId}:output` } : {}), role: 'tool' }, [{ kind: 'tool-result', name, text: withLineFeeds(text) }], options);
  }
  if (role !== 'user' && role !== 'assistant') return [];
  const parts = messageParts(item.content, role === 'user').map((part): MessagePart => (part.kind === 'text' ? { kind: 'text', text: withLineFeeds(part.text) } : part));
  if (role === 'assistant' && Array.isArray(item.tool_calls)) {
    for (const call of item.tool_calls.filter(isObject)) {
      const fn = isObject(call.function) ? call.function : call;
      const name = optionalText(fn.name) ?? 'tool';
      const callId = optionalText(call.id);
      if (callId !== undefined) toolNames.set(callId, name);
      parts.push({ kind: 'tool-call', name, args: typeof fn.arguments === 'string' ? fn.arguments : (fn.arguments ?? {}) });
    }
  }
  return messagesFromParts({ role }, parts, options);
}

/** Whether an item is a Chat Completions message rather than a Responses item (which has a `type`). */
export function isChatMessage(item: JsonObject): boolean {
  return item.type === undefined && typeof item.role === 'string';
}

function withLineFeeds(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

function idOf(item: JsonObject, fallback?: string): { id?: string } {
  const id = optionalText(item.id) ?? fallback;
  return id === undefined ? {} : { id };
}

/** Whether a user-role message holds the person's words rather than context Codex injected. */
function isPersonsMessage(item: JsonObject): boolean {
  const passthrough = item.internal_chat_message_metadata_passthrough;
  const metadata = isObject(passthrough) && Array.isArray(passthrough.content_item_metadata) ? passthrough.content_item_metadata : [];
  const origins = metadata.map((entry) => (isObject(entry) && isObject(entry.provenance) ? entry.provenance.type : undefined)).filter((type) => typeof type === 'string');
  return origins.every((type) => type === 'user');
}

/**
 * The parts of a user message the person wrote. Since 0.154 Codex names the kind of each part
 * (`internal_chat_message_metadata_passthrough.content_item_kinds`, one per part): the person's are
 * `user.*` (`user.text`), the others what it adds (`agents_md.instructions`,
 * `environments.environment_context`, `plugins.recommendations`, `additional_content.*`). A message
 * without kinds, or with a count that does not match its parts, is read whole (by how its parts begin).
 */
function personsContent(item: JsonObject, fromPerson: boolean): unknown {
  const passthrough = item.internal_chat_message_metadata_passthrough;
  const kinds = isObject(passthrough) && Array.isArray(passthrough.content_item_kinds) ? passthrough.content_item_kinds : undefined;
  if (!fromPerson || !kinds || !Array.isArray(item.content) || kinds.length !== item.content.length) return item.content;
  return item.content.filter((_, i) => typeof kinds[i] !== 'string' || (kinds[i] as string).startsWith('user.'));
}

function messageParts(content: unknown, fromPerson: boolean): MessagePart[] {
  if (typeof content === 'string') return fromPerson && isInjectedText(content) ? [] : [{ kind: 'text', text: fromPerson ? personsRequest(content) : content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).flatMap((part): MessagePart[] => {
    if (part.type === 'input_image' || part.type === 'image' || part.type === 'image_url') return [{ kind: 'text', text: IMAGE_PLACEHOLDER }];
    const text = typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : '';
    if (fromPerson && isInjectedText(text)) return [];
    return [{ kind: 'text', text: fromPerson ? personsRequest(text) : text }];
  });
}

/** Readable reasoning: its summary, else its raw text; encrypted reasoning has neither. */
function reasoningText(item: JsonObject): string {
  const texts = (value: unknown) => (Array.isArray(value) ? value.filter(isObject).map((part) => (typeof part.text === 'string' ? part.text : '')).filter((text) => text.trim() !== '') : []);
  const summary = texts(item.summary);
  return (summary.length > 0 ? summary : texts(item.content)).join('\n\n');
}

function toolCallPart(item: JsonObject): Extract<MessagePart, { kind: 'tool-call' }> {
  switch (item.type) {
    case 'local_shell_call':
      return { kind: 'tool-call', name: 'shell', args: isObject(item.action) ? item.action : {} };
    case 'web_search_call':
      return { kind: 'tool-call', name: 'web_search', args: isObject(item.action) ? item.action : {} };
    case 'custom_tool_call':
      return { kind: 'tool-call', name: optionalText(item.name) ?? 'tool', args: typeof item.input === 'string' ? item.input : (item.input ?? {}) };
    default: {
      const name = optionalText(item.name) ?? 'tool';
      const namespace = optionalText(item.namespace);
      // MCP tools are namespaced by server (`mcp__<server>`); the namespace is part of their name.
      const fullName = namespace !== undefined && namespace.startsWith('mcp__') ? `${namespace}__${name}` : name;
      return { kind: 'tool-call', name: fullName, args: typeof item.arguments === 'string' ? item.arguments : (item.arguments ?? {}) };
    }
  }
}

/** A call's output: plain text, `{content, success}`, or a list of content items. */
function outputText(output: unknown): { text: string; isError: boolean } {
  if (typeof output === 'string') return { text: output, isError: false };
  if (Array.isArray(output)) return { text: textOfResultContent(output), isError: false };
  if (isObject(output)) {
    const content = output.content;
    const text = typeof content === 'string' ? content : textOfResultContent(content ?? output.body);
    return { text, isError: output.success === false };
  }
  return { text: '', isError: false };
}
