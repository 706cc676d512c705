/**
 * LM Studio keeps each chat as one JSON file, `conversations/<createdAt ms>.conversation.json`
 * (folders of chats are sub-folders), under its home folder: `~/.lmstudio` since 0.3, or
 * `~/.cache/lm-studio` for installs from before (0.2.x). The file is rewritten whole on each turn.
 *
 * `{name, createdAt, systemPrompt, messages: [{versions: [...], currentlySelected}], ...}`: each
 * message keeps every version the person made (an edited prompt, a regenerated answer), and shows
 * the one `currentlySelected` points to; that is the branch we read. A person's version is
 * `{type: "singleStep", role: "user", content: [{type: "text", text}, {type: "file", ...}]}`; the
 * model's is `{type: "multiStep", role: "assistant", steps: [...]}` where a `contentBlock` step holds
 * text (its `style: {type: "thinking"}` marks reasoning, and older files leave `<think>...</think>`
 * in the text), tool call requests and results, and `toolStatus`/`debugInfoBlock` steps are the
 * app's bookkeeping.
 *
 * LM Studio gives its messages no ids and no times. A message's id is its place and the version
 * shown (`3:1`), so a re-save adds what is new and a version picked later is another message; the
 * stored messages of versions no longer shown are dropped by a sync (`lmStudioRewound`). Times: the
 * chat's `createdAt` dates its first message, `userLastMessagedAt` and `assistantLastMessagedAt`
 * the last of each side. The system prompt is the person's setting, not dialogue: left out.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, textWithThinkTags, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireArray, requireObject, type JsonObject } from '../shape.js';
import { isoFromEpochMillis } from '../time.js';
import { titleFromMessages } from '../titles.js';

export const LMSTUDIO_CONVERSATION_SUFFIX = '.conversation.json';

/** A chat as LM Studio writes it: messages that each hold versions and the one shown; or a new chat, still empty. */
export function isLmStudioConversation(value: unknown): boolean {
  if (!isObject(value) || !Array.isArray(value.messages)) return false;
  if (value.messages.length === 0) return typeof value.createdAt === 'number' && ('tokenCount' in value || 'perChatPredictionConfig' in value || 'clientInput' in value);
  return value.messages.slice(0, 5).some((message) => isObject(message) && Array.isArray(message.versions) && typeof message.currentlySelected === 'number');
}

/** The session of a chat: its file's name without `.conversation.json`. */
export function lmStudioSessionId(baseName: string): string {
  const name = baseName.toLowerCase().endsWith(LMSTUDIO_CONVERSATION_SUFFIX) ? baseName.slice(0, -LMSTUDIO_CONVERSATION_SUFFIX.length) : baseName.replace(/\.json$/i, '');
  return name === '' ? baseName : name;
}

export function mapLmStudioConversation(value: unknown, where: string, options: MappingOptions, baseName: string): SessionInput {
  const conversation = requireObject(value, where);
  const entries = requireArray(conversation.messages, at(where, 'messages'));
  const shown = entries.map((entry, index) => shownVersion(entry, at(at(where, 'messages'), index)));
  const lastOf = (role: string) => shown.map((version) => version?.version.role).lastIndexOf(role);
  const times = new Map<number, string | undefined>([
    [lastOf('user'), isoFromEpochMillis(conversation.userLastMessagedAt)],
    [lastOf('assistant'), isoFromEpochMillis(conversation.assistantLastMessagedAt)],
  ]);
  const created = isoFromEpochMillis(conversation.createdAt);
  const messages: MessageInput[] = [];
  shown.forEach((version, index) => {
    if (version === undefined) return;
    const role = version.version.role === 'assistant' ? 'assistant' : version.version.role === 'user' ? 'user' : undefined;
    if (role === undefined) return;
    const timestamp = (index === 0 ? created : undefined) ?? times.get(index);
    const parts = version.version.type === 'multiStep' ? stepParts(version.version.steps, version.where) : contentParts(version.version.content);
    messages.push(...messagesFromParts({ id: `${index}:${version.selected}`, role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options));
  });
  const title = optionalText(conversation.name)?.trim() ?? titleFromMessages(messages);
  return { sessionId: lmStudioSessionId(baseName), ...(title !== undefined ? { title } : {}), source: 'lmstudio', messages };
}

interface ShownVersion {
  version: JsonObject;
  selected: number;
  where: string;
}

function shownVersion(entry: unknown, where: string): ShownVersion | undefined {
  const message = requireObject(entry, where);
  const versions = requireArray(message.versions, at(where, 'versions'));
  if (versions.length === 0) return undefined;
  const selected = typeof message.currentlySelected === 'number' && Number.isInteger(message.currentlySelected) && message.currentlySelected >= 0 && message.currentlySelected < versions.length ? message.currentlySelected : 0;
  const versionWhere = at(at(where, 'versions'), selected);
  return { version: requireObject(versions[selected], versionWhere), selected, where: versionWhere };
}

/** A person's content: text, and a placeholder for each attached file. */
function contentParts(content: unknown): MessagePart[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).map((block): MessagePart => {
    if (block.type === 'text') return { kind: 'text', text: typeof block.text === 'string' ? block.text : '' };
    if (block.type === 'file') return { kind: 'text', text: block.fileType === 'image' ? IMAGE_PLACEHOLDER : `[file: ${optionalText(block.name) ?? optionalText(block.fileIdentifier) ?? 'attachment'}]` };
    return { kind: 'text', text: '' };
  });
}

/** The model's steps: its text and reasoning, and the tools it called with what they returned. */
function stepParts(steps: unknown, where: string): MessagePart[] {
  const toolNames = new Map<string, string>();
  return requireArray(steps, at(where, 'steps'))
    .filter(isObject)
    .flatMap((step): MessagePart[] => {
      if (step.type !== 'contentBlock' || !Array.isArray(step.content)) return [];
      const thinking = isObject(step.style) && step.style.type === 'thinking';
      return step.content.filter(isObject).flatMap((block): MessagePart[] => {
        switch (block.type) {
          case 'text': {
            const text = typeof block.text === 'string' ? block.text : '';
            return thinking ? [{ kind: 'thinking', text }] : textWithThinkTags(text);
          }
          case 'toolCallRequest': {
            const name = optionalText(block.name) ?? 'tool';
            if (block.callId !== undefined) toolNames.set(String(block.callId), name);
            return [{ kind: 'tool-call', name, args: block.arguments ?? block.parameters ?? {} }];
          }
          case 'toolCallResult': {
            const name = optionalText(block.name) ?? (block.callId !== undefined ? toolNames.get(String(block.callId)) : undefined) ?? 'tool';
            return [{ kind: 'tool-result', name, text: typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? '') }];
          }
          default:
            return [];
        }
      });
    });
}

/**
 * Stored messages of a chat that LM Studio no longer shows: a version the person left for another
 * (`2:0` once message 2 shows version 1), or a message deleted from the chat.
 */
export function lmStudioRewound(document: unknown): (msgId: string) => boolean {
  const shown = new Map<number, number>();
  if (isObject(document) && Array.isArray(document.messages)) {
    document.messages.forEach((message, index) => {
      if (isObject(message) && Array.isArray(message.versions) && message.versions.length > 0) {
        const selected = message.currentlySelected;
        shown.set(index, typeof selected === 'number' && Number.isInteger(selected) && selected >= 0 && selected < message.versions.length ? selected : 0);
      }
    });
  }
  return (msgId) => {
    const match = /^(\d+):(\d+)(?:#\d+)?$/.exec(msgId);
    if (!match) return false;
    return shown.get(Number(match[1])) !== Number(match[2]);
  };
}
