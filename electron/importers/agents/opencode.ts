/**
 * opencode's sessions. Since 1.2 they live in one SQLite database, `opencode.db` in opencode's data
 * folder (WAL mode, written while opencode runs): tables `session` (id, parent_id, title, times),
 * `message` (id, session_id, JSON `data`: role, times, model) and `part` (id, message_id, JSON
 * `data`: `text`, `reasoning`, `tool` with its input and output, `step-start`/`step-finish`,
 * `file`, `subtask`, ...). Before 1.2 the same records were JSON files under `storage/`:
 * `session/<project>/<sessionID>.json`, `message/<sessionID>/<messageID>.json` and
 * `part/<messageID>/<partID>.json` (earlier `part/<sessionID>/<messageID>/<partID>.json`).
 *
 * Ids stay opencode's own (`ses_…`, `msg_…`), so the same session read from the old folder and
 * from the database is one memory. A session still under opencode's placeholder title is titled by
 * the first thing the person said. A sub-agent's session (opencode's task tool) names its parent.
 * Text that opencode adds itself (`synthetic`, `ignored`) is not the person's; reasoning and tool
 * calls follow the `--include` rule.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireArray, requireNonEmptyString, requireObject, type JsonObject } from '../shape.js';
import { isoFromEpochMillis } from '../time.js';
import { titleFromMessages } from '../titles.js';

export interface OpencodeSessionRecord {
  id: string;
  title?: string;
  parentId?: string;
}

export interface OpencodeMessageRecord {
  id: string;
  /** The message's JSON (`role`, `time.created`, ...). */
  data: JsonObject;
  /** Its parts' JSON, in order. */
  parts: JsonObject[];
  /** The row's own time, for a message whose JSON has none. */
  createdAt?: number;
}

/**
 * What `opencode export <session>` writes (1.x): `{info: <the session>, messages: [{info: <a message>,
 * parts: [...]}]}`, the same records as the database and the storage folders hold, so the session is
 * the same memory whichever of them it is read from.
 */
export function isOpencodeExport(value: unknown): boolean {
  if (!isObject(value) || !isObject(value.info) || typeof value.info.id !== 'string' || !Array.isArray(value.messages)) return false;
  return value.messages.slice(0, 20).every((message) => isObject(message) && isObject(message.info) && Array.isArray(message.parts));
}

export function mapOpencodeExport(value: unknown, where: string, options: MappingOptions): SessionInput {
  const exported = requireObject(value, where);
  const info = requireObject(exported.info, at(where, 'info'));
  const messagesWhere = at(where, 'messages');
  const records = requireArray(exported.messages, messagesWhere).map((entry, index): OpencodeMessageRecord => {
    const here = at(messagesWhere, index);
    const message = requireObject(entry, here);
    const data = requireObject(message.info, at(here, 'info'));
    return { id: requireNonEmptyString(data.id, at(at(here, 'info'), 'id')), data, parts: requireArray(message.parts, at(here, 'parts')).filter(isObject) };
  });
  const id = requireNonEmptyString(info.id, at(at(where, 'info'), 'id'));
  const parentId = optionalText(info.parentID);
  return mapOpencodeSession({ id, ...(typeof info.title === 'string' ? { title: info.title } : {}), ...(parentId !== undefined ? { parentId } : {}) }, records, options);
}

export function mapOpencodeSession(session: OpencodeSessionRecord, records: readonly OpencodeMessageRecord[], options: MappingOptions): SessionInput {
  const messages: MessageInput[] = [];
  for (const record of records) {
    const role = record.data.role === 'user' ? 'user' : 'assistant';
    const time = isObject(record.data.time) ? record.data.time.created : undefined;
    const timestamp = isoFromEpochMillis(time) ?? isoFromEpochMillis(record.createdAt);
    const parts = record.parts.flatMap(partsOf);
    messages.push(...messagesFromParts({ id: record.id, role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options));
  }
  const title = isPlaceholderTitle(session.title) ? titleFromMessages(messages) : optionalText(session.title);
  return {
    sessionId: session.id,
    ...(title !== undefined ? { title } : {}),
    source: 'opencode',
    ...(session.parentId !== undefined ? { parentSessionId: session.parentId } : {}),
    messages,
  };
}

/**
 * The title opencode (and Kilo's CLI) gives a session until its model has made one up
 * (`New session - <ISO time>`, a sub-agent's `Child session - …`; opencode's own `isDefaultTitle`). A
 * session whose title request failed or never ran keeps it: it is no title.
 */
const PLACEHOLDER_TITLE = /^(?:New session|Child session) - \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isPlaceholderTitle(title: unknown): boolean {
  return typeof title === 'string' && PLACEHOLDER_TITLE.test(title);
}

/** One part of opencode, as parts of ours: a tool part holds both the call and, once finished, its result. */
function partsOf(part: JsonObject): MessagePart[] {
  switch (part.type) {
    case 'text':
      // Text opencode adds on its own (a file's content read for the model, a reminder) is not dialogue.
      if (part.synthetic === true || part.ignored === true) return [];
      return [{ kind: 'text', text: typeof part.text === 'string' ? part.text : '' }];
    case 'reasoning':
      return [{ kind: 'thinking', text: typeof part.text === 'string' ? part.text : '' }];
    case 'tool': {
      const name = optionalText(part.tool) ?? 'tool';
      const state = isObject(part.state) ? part.state : {};
      const call: MessagePart = { kind: 'tool-call', name, args: state.input ?? {} };
      if (state.status === 'completed') return [call, { kind: 'tool-result', name, text: typeof state.output === 'string' ? state.output : '' }];
      if (state.status === 'error') return [call, { kind: 'tool-result', name, text: typeof state.error === 'string' ? state.error : '', isError: true }];
      return [call];
    }
    case 'subtask':
      return [{ kind: 'tool-call', name: 'subtask', args: { agent: part.agent, description: part.description, prompt: part.prompt } }];
    case 'file':
      return typeof part.mime === 'string' && part.mime.startsWith('image/') ? [{ kind: 'text', text: IMAGE_PLACEHOLDER }] : [];
    default:
      // step-start, step-finish, snapshot, patch, agent, retry, compaction: bookkeeping.
      return [];
  }
}
