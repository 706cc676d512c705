/**
 * One source message often holds more than dialogue: model thinking, tool calls, tool results.
 * The formats turn their content into `MessagePart`s; this module turns those parts into the
 * messages we save, the same way for every format:
 *
 * - The text parts (joined) are the message itself and keep the source id. A message without any
 *   text (only a tool call, say) gives its source id to its first other part.
 * - Every other part becomes its own message with id `<source id>#<index of the part>`.
 * - Thinking is saved as role `assistant` with content `[thinking] ...`; tool calls and results as
 *   role `tool` with `[tool call: name] {json}` / `[tool result: name] ...`. Both are left out
 *   unless asked for (`include`).
 *
 * Ids depend only on the source message, never on `include`, so importing the same file with and
 * without tools gives the same ids to the messages both imports share.
 */
import type { MessageInput, Role } from '../../shared/domain.js';
import { serializeNested } from './shape.js';

export type IncludedExtra = 'tools' | 'thinking';

/** What the format mappers need to know about the import. */
export interface MappingOptions {
  include: ReadonlySet<IncludedExtra>;
  /** Session id for a transcript of the engine's own format that names none (`save --session`). */
  sessionId?: string;
}

export type MessagePart =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string }
  | { kind: 'tool-call'; name: string; args: unknown }
  | { kind: 'tool-result'; name: string; text: string; isError?: boolean };

export interface SourceMessage {
  /** The source's id for the message; absent for formats without ids (the engine derives one). */
  id?: string;
  role: Role;
  timestamp?: string;
}

export const IMAGE_PLACEHOLDER = '[image]';

export function thinkingContent(text: string): string {
  return `[thinking] ${text.trim()}`;
}

/**
 * A document the assistant wrote for the person beside its answer (a Claude artifact, a ChatGPT
 * canvas). It is made through a tool call, but it is what the person asked for: it is kept as part of
 * the answer's text, marked by the tool's own name for it (`[artifact: Title] … [/artifact]`).
 */
export function documentText(label: string, title: string | undefined, body: string): string {
  return `[${label}${title === undefined ? '' : `: ${title}`}]\n${body.trim()}\n[/${label}]`;
}

export function toolCallContent(name: string, args: unknown): string {
  const rendered = typeof args === 'string' ? args : serializeNested(`the arguments of the tool call ${JSON.stringify(name)}`, () => JSON.stringify(args ?? {}));
  return `[tool call: ${name}] ${rendered}`.trimEnd();
}

export function toolResultContent(name: string, text: string, isError = false): string {
  return `[tool result: ${name}]${isError ? ' (error)' : ''} ${text}`.trimEnd();
}

export function messagesFromParts(
  source: SourceMessage,
  parts: readonly MessagePart[],
  options: MappingOptions,
  textSeparator = '\n\n',
): MessageInput[] {
  const texts = parts.flatMap((part) => (part.kind === 'text' && part.text.trim() !== '' ? [part.text] : []));
  const firstTextIndex = texts.length > 0 ? parts.findIndex((part) => part.kind === 'text' && part.text.trim() !== '') : -1;
  // The part that carries the source id as is: the text, or else the first part that is not text.
  const ownerIndex = firstTextIndex !== -1 ? firstTextIndex : parts.findIndex((part) => part.kind !== 'text');
  const messages: MessageInput[] = [];

  parts.forEach((part, index) => {
    if (part.kind === 'text') {
      if (index === firstTextIndex) {
        messages.push(withMeta({ role: source.role, content: texts.join(textSeparator).trim() }, source.id, source.timestamp));
      }
      return;
    }
    const id = source.id === undefined ? undefined : index === ownerIndex ? source.id : `${source.id}#${index}`;
    const extra = extraMessage(part, options);
    if (extra) messages.push(withMeta(extra, id, source.timestamp));
  });
  return messages;
}

function extraMessage(part: Exclude<MessagePart, { kind: 'text' }>, options: MappingOptions): Pick<MessageInput, 'role' | 'content'> | undefined {
  switch (part.kind) {
    case 'thinking':
      if (!options.include.has('thinking') || part.text.trim() === '') return undefined;
      return { role: 'assistant', content: thinkingContent(part.text) };
    case 'tool-call':
      if (!options.include.has('tools')) return undefined;
      return { role: 'tool', content: toolCallContent(part.name, part.args) };
    case 'tool-result':
      if (!options.include.has('tools')) return undefined;
      return { role: 'tool', content: toolResultContent(part.name, part.text, part.isError) };
  }
}

function withMeta(message: Pick<MessageInput, 'role' | 'content'>, msgId: string | undefined, timestamp: string | undefined): MessageInput {
  return {
    ...(msgId !== undefined ? { msgId } : {}),
    role: message.role,
    content: message.content,
    ...(timestamp !== undefined ? { timestamp } : {}),
  };
}

/**
 * The text of a tool result or similar content: a string, or an array of blocks whose `text`
 * (or, failing that, `title`) is kept; images become a placeholder.
 */
export function textOfResultContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => {
      if (typeof block === 'string') return block;
      if (typeof block !== 'object' || block === null) return '';
      const record = block as Record<string, unknown>;
      if (typeof record.text === 'string') return record.text;
      if (record.type === 'image') return IMAGE_PLACEHOLDER;
      if (typeof record.title === 'string') return record.title;
      return '';
    })
    .filter((text) => text !== '')
    .join('\n');
}

/**
 * Text with the reasoning a local model wrote between `<think>` tags (DeepSeek R1, Qwen 3) taken
 * out as thinking; an unclosed tag (an answer stopped while thinking) runs to the end.
 */
export function textWithThinkTags(text: string): MessagePart[] {
  const parts: MessagePart[] = [];
  let rest = text;
  for (;;) {
    const open = rest.indexOf('<think>');
    if (open === -1) break;
    parts.push({ kind: 'text', text: rest.slice(0, open) });
    const close = rest.indexOf('</think>', open);
    parts.push({ kind: 'thinking', text: rest.slice(open + '<think>'.length, close === -1 ? undefined : close) });
    rest = close === -1 ? '' : rest.slice(close + '</think>'.length);
  }
  parts.push({ kind: 'text', text: rest });
  return parts;
}
