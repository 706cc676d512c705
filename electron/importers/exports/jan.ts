/**
 * Jan (jan.ai) keeps each thread in a folder of its data folder: `threads/<thread id>/thread.json`
 * (`{id, title, assistants, created, updated, metadata}`) and `messages.jsonl`, one message a line,
 * appended as the chat goes on (an edit or a deletion rewrites the file). The data folder is
 * `<the system's data folder>/Jan/data` since 0.6 (`~/.local/share/Jan/data` on Linux,
 * `~/Library/Application Support/Jan/data` on macOS, `%APPDATA%\Jan\data` on Windows); the
 * versions before it (Electron) kept it in `~/.config/Jan/data` on Linux, and the first ones in `~/jan`.
 *
 * A line: `{id, object: "thread.message", thread_id, role, content: [{type: "text", text: {value,
 * annotations}}, {type: "image_url", ...}], status, created_at, completed_at, metadata}`. Times are
 * milliseconds (seconds in the first versions). The model's reasoning is in its text between
 * `<think>` tags; the tools it called are in `metadata.tool_calls` (`{tool: {function: {name,
 * arguments}}, response: {content}}`), both kept only when asked for. The message ids are Jan's own.
 * The thread's title is in `thread.json` beside the messages (read in companions.ts).
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, textOfResultContent, textWithThinkTags, type MappingOptions, type MessagePart } from '../parts.js';
import type { JsonlRecord } from '../readers/jsonl-record.js';
import { at, isObject, lineWhere, optionalText, requireArray, requireNonEmptyString, type JsonObject } from '../shape.js';
import { isoFromEpoch } from '../time.js';
import { titleFromMessages } from '../titles.js';

export const JAN_MESSAGES_FILE = 'messages.jsonl';
export const JAN_THREAD_FILE = 'thread.json';

/** A thread's messages as Jan writes them: messages of a thread, with OpenAI-style content blocks. */
export function isJanThreadMessages(records: readonly JsonlRecord[]): boolean {
  const first = records[0]?.value;
  if (first === undefined || typeof first.thread_id !== 'string' || typeof first.role !== 'string' || !Array.isArray(first.content)) return false;
  return first.object === 'thread.message' || first.content.some((block) => isObject(block) && isObject(block.text) && typeof block.text.value === 'string');
}

/** @param folderName the thread's folder, named after the thread: its id when the lines name none. */
export function mapJanThreadMessages(records: readonly JsonlRecord[], options: MappingOptions, folderName = ''): SessionInput {
  const messages: MessageInput[] = [];
  let threadId: string | undefined;
  for (const { lineNo, value } of records) {
    const where = lineWhere(lineNo);
    threadId ??= optionalText(value.thread_id);
    const role = value.role === 'user' ? 'user' : value.role === 'assistant' ? 'assistant' : undefined;
    if (role === undefined) continue;
    const id = requireNonEmptyString(value.id, at(where, 'id'));
    const content = requireArray(value.content, at(where, 'content'));
    const timestamp = isoFromEpoch(value.created_at) ?? isoFromEpoch(value.created) ?? isoFromEpoch(value.completed_at);
    const parts = [...toolParts(value.metadata), ...content.filter(isObject).flatMap((block) => blockParts(block, role))];
    messages.push(...messagesFromParts({ id, role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options));
  }
  const title = titleFromMessages(messages);
  return { sessionId: threadId ?? folderName, ...(title !== undefined ? { title } : {}), source: 'jan', messages };
}

function blockParts(block: JsonObject, role: 'user' | 'assistant'): MessagePart[] {
  const text = isObject(block.text) && typeof block.text.value === 'string' ? block.text.value : typeof block.text === 'string' ? block.text : '';
  switch (block.type) {
    case 'text':
      return role === 'assistant' ? textWithThinkTags(text) : [{ kind: 'text', text }];
    case 'reasoning':
      return [{ kind: 'thinking', text }];
    case 'image_url':
    case 'image':
      return [{ kind: 'text', text: IMAGE_PLACEHOLDER }];
    default:
      return [];
  }
}

/** The tools a model's answer called on its way, with what each returned. */
function toolParts(metadata: unknown): MessagePart[] {
  if (!isObject(metadata) || !Array.isArray(metadata.tool_calls)) return [];
  return metadata.tool_calls.filter(isObject).flatMap((call): MessagePart[] => {
    const tool = isObject(call.tool) ? call.tool : {};
    const fn = isObject(tool.function) ? tool.function : {};
    const name = optionalText(fn.name) ?? 'tool';
    const parts: MessagePart[] = [{ kind: 'tool-call', name, args: parsedArguments(fn.arguments) }];
    const response = call.response;
    if (isObject(response)) {
      const error = optionalText(response.error);
      parts.push({ kind: 'tool-result', name, text: error ?? textOfResultContent(response.content), isError: error !== undefined });
    } else if (typeof response === 'string') {
      parts.push({ kind: 'tool-result', name, text: response });
    }
    return parts;
  });
}

/** Arguments as the model wrote them (a JSON string), parsed when they parse. */
function parsedArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
