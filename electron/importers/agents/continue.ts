/**
 * Continue sessions (`~/.continue/sessions/<sessionId>.json`, or under `CONTINUE_GLOBAL_DIR`), written
 * by the IDE extensions and by the `cn` CLI: `{sessionId, title, workspaceDirectory, history: [{message:
 * {role, content, toolCalls?, toolCallId?}, contextItems, reasoning?, toolCallStates?}], usage?}`. The
 * folder's `sessions.json` only indexes them. A session is rewritten whole at each turn, so a resumed
 * one is the same file.
 *
 * Kept: user and assistant messages; the model's reasoning (`reasoning.text`, or `thinking` messages) and
 * tool calls and results with `include`. A result comes from a `tool` message, or, where the `cn` CLI keeps
 * it, from the call's state (`toolCallStates[].output`). Left out: `system` messages and the files and
 * snippets the person attached (`contextItems`: context, not conversation). "Untitled Session" is no
 * title: the first thing the person said is. msgId: the message's `id` where it has one, else derived
 * from the content by the engine. Sessions with nothing said yet are skipped like any empty session.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, textOfResultContent, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireArray, requireNonEmptyString, requireObject, type JsonObject } from '../shape.js';
import { isoFromEpoch } from '../time.js';
import { titleFromMessages } from '../titles.js';

const DEFAULT_TITLES = new Set(['Untitled Session', 'New Session', '']);

export function isContinueSession(value: unknown): boolean {
  if (!isObject(value) || typeof value.sessionId !== 'string' || !Array.isArray(value.history)) return false;
  return 'workspaceDirectory' in value || 'title' in value || value.history.slice(0, 5).some((item) => isObject(item) && isObject(item.message) && 'contextItems' in item);
}

export function mapContinueSession(value: unknown, where: string, options: MappingOptions): SessionInput {
  const session = requireObject(value, where);
  const sessionId = requireNonEmptyString(session.sessionId, at(where, 'sessionId'));
  const historyWhere = at(where, 'history');
  const history = requireArray(session.history, historyWhere);
  const answered = new Set<string>();
  for (const item of history) {
    if (isObject(item) && isObject(item.message) && item.message.role === 'tool' && typeof item.message.toolCallId === 'string') answered.add(item.message.toolCallId);
  }
  const toolNames = new Map<string, string>();
  const messages: MessageInput[] = [];
  history.forEach((item, index) => {
    const itemWhere = at(historyWhere, index);
    const entry = requireObject(item, itemWhere);
    const message = requireObject(entry.message, at(itemWhere, 'message'));
    messages.push(...mapItem(entry, message, toolNames, answered, options));
  });
  const title = optionalText(session.title);
  const chosen = title !== undefined && !DEFAULT_TITLES.has(title.trim()) ? title : titleFromMessages(messages);
  return { sessionId, ...(chosen !== undefined ? { title: chosen } : {}), source: 'continue', messages };
}

function mapItem(entry: JsonObject, message: JsonObject, toolNames: Map<string, string>, answered: ReadonlySet<string>, options: MappingOptions): MessageInput[] {
  const id = optionalText(message.id);
  const timestamp = isoFromEpoch(entry.timestamp ?? message.timestamp);
  const meta = { ...(id !== undefined ? { id } : {}), ...(timestamp !== undefined ? { timestamp } : {}) };
  switch (message.role) {
    case 'user':
      return messagesFromParts({ ...meta, role: 'user' }, contentParts(message.content), options);
    case 'thinking':
      return messagesFromParts({ ...meta, role: 'assistant' }, [{ kind: 'thinking', text: textOf(message.content) }], options);
    case 'tool': {
      const callId = optionalText(message.toolCallId);
      const name = (callId !== undefined ? toolNames.get(callId) : undefined) ?? 'tool';
      return messagesFromParts({ ...meta, role: 'tool' }, [{ kind: 'tool-result', name, text: textOf(message.content) }], options);
    }
    case 'assistant': {
      const parts: MessagePart[] = [];
      const reasoning = isObject(entry.reasoning) ? optionalText(entry.reasoning.text) : undefined;
      if (reasoning !== undefined) parts.push({ kind: 'thinking', text: reasoning });
      parts.push(...contentParts(message.content));
      const states = Array.isArray(entry.toolCallStates) ? entry.toolCallStates.filter(isObject) : [];
      for (const call of Array.isArray(message.toolCalls) ? message.toolCalls.filter(isObject) : []) {
        const fn = isObject(call.function) ? call.function : {};
        const name = optionalText(fn.name) ?? 'tool';
        const callId = optionalText(call.id);
        if (callId !== undefined) toolNames.set(callId, name);
        parts.push({ kind: 'tool-call', name, args: fn.arguments ?? {} });
        const state = states.find((s) => s.toolCallId === callId);
        if (state !== undefined && Array.isArray(state.output) && (callId === undefined || !answered.has(callId))) {
          const text = state.output.filter(isObject).map((item) => (typeof item.content === 'string' ? item.content : '')).filter((t) => t !== '').join('\n');
          parts.push({ kind: 'tool-result', name, text, isError: state.status === 'errored' });
        }
      }
      return messagesFromParts({ ...meta, role: 'assistant' }, parts, options);
    }
    default:
      // `system` prompts and roles added later are not dialogue.
      return [];
  }
}

/** A message's content: a string, or parts (`text`, `imageUrl`). */
function contentParts(content: unknown): MessagePart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).map((part): MessagePart => {
    if (part.type === 'imageUrl' || part.type === 'image_url' || part.type === 'image') return { kind: 'text', text: IMAGE_PLACEHOLDER };
    return { kind: 'text', text: typeof part.text === 'string' ? part.text : '' };
  });
}

function textOf(content: unknown): string {
  return typeof content === 'string' ? content : textOfResultContent(content);
}

