/**
 * Cursor keeps its chats in SQLite databases named `state.vscdb`, in two layouts seen in real files:
 *
 * - Since 2025, in the editor-wide database (`User/globalStorage/state.vscdb`), table
 *   `cursorDiskKV`: `composerData:<composerId>` (the chat: `name`, `createdAt`, and the order of its
 *   messages in `fullConversationHeadersOnly`, `[{bubbleId, type}]`) and one
 *   `bubbleId:<composerId>:<bubbleId>` record per message (`type` 1 the person, 2 the model,
 *   `text`, `timingInfo`). A chat opened and never used is stored without any value.
 * - In 2024, in each workspace's database (`User/workspaceStorage/<id>/state.vscdb`), table
 *   `ItemTable`: `composer.composerData` (`allComposers`, each with its messages inline in
 *   `conversation`) and the chat panel's `workbench.panel.aichat.view.aichat.chatdata` (`tabs`,
 *   each with `bubbles` of type `user` or `ai`).
 *
 * Cursor does not document either and has changed them between versions; what is not in these
 * shapes is left alone. A session is a composer or a chat tab, under Cursor's own id; a message's
 * id is its bubble id. The model's thinking and tool calls follow the `--include` rule.
 */
import { createHash } from 'node:crypto';
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { parseRecord, readDatabaseSessions, type DatabaseSessions } from '../database-sessions.js';
import { messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import type { ImportedFile, ReadMapping } from '../read-types.js';
import { isObject, optionalText, type JsonObject } from '../shape.js';
import type { ReadOnlyDatabase } from '../readers/sqlite.js';
import { isoFromDateString, isoFromEpochMillis } from '../time.js';

const CHAT_PANEL_KEY = 'workbench.panel.aichat.view.aichat.chatdata';
const WORKSPACE_COMPOSERS_KEY = 'composer.composerData';

export function isCursorDatabase(db: ReadOnlyDatabase): boolean {
  const tables = db.tables();
  return tables.has('cursorDiskKV') || (tables.has('ItemTable') && db.get('SELECT 1 FROM ItemTable WHERE key IN (?, ?) LIMIT 1', CHAT_PANEL_KEY, WORKSPACE_COMPOSERS_KEY) !== undefined);
}

/**
 * A chat, with a digest of its record as its mark: Cursor rewrites a composer's record (its
 * `lastUpdatedAt`, its list of messages) whenever the chat changes.
 */
type CursorSessionKey = { kind: 'composer' | 'workspace-composer' | 'chat-tab'; id: string; mark: string };

/** Cursor's databases, chat by chat. */
export const cursorDatabaseSessions: DatabaseSessions<CursorSessionKey> = { format: 'cursor', keys: sessionKeys, session: mapSession, name: (key) => key.id, mark: (key) => key.mark };

export function readCursorDatabase(file: string, mapping: ReadMapping): ImportedFile {
  return readDatabaseSessions<CursorSessionKey>(file, mapping, cursorDatabaseSessions);
}

function digest(value: unknown): string {
  return createHash('sha256').update(typeof value === 'string' || value instanceof Uint8Array ? value : JSON.stringify(value ?? null)).digest('base64url').slice(0, 22);
}

function sessionKeys(db: ReadOnlyDatabase): CursorSessionKey[] {
  const tables = db.tables();
  const keys: CursorSessionKey[] = [];
  if (tables.has('cursorDiskKV')) {
    // Chats opened and never used have no value.
    const rows = db.all<{ key: string; value: unknown }>("SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;' AND value IS NOT NULL ORDER BY key");
    keys.push(...rows.map(({ key, value }) => ({ kind: 'composer' as const, id: key.slice('composerData:'.length), mark: digest(value) })));
  }
  if (tables.has('ItemTable')) {
    const composers = itemJson(db, WORKSPACE_COMPOSERS_KEY)?.allComposers;
    if (Array.isArray(composers)) keys.push(...composers.filter(isObject).flatMap((composer) => (typeof composer.composerId === 'string' ? [{ kind: 'workspace-composer' as const, id: composer.composerId, mark: digest(composer) }] : [])));
    const tabs = itemJson(db, CHAT_PANEL_KEY)?.tabs;
    if (Array.isArray(tabs)) keys.push(...tabs.filter(isObject).flatMap((tab) => (typeof tab.tabId === 'string' ? [{ kind: 'chat-tab' as const, id: tab.tabId, mark: digest(tab) }] : [])));
  }
  return keys;
}

function mapSession(db: ReadOnlyDatabase, key: CursorSessionKey, options: MappingOptions): SessionInput {
  switch (key.kind) {
    case 'composer': {
      const row = db.get<{ value: unknown }>('SELECT value FROM cursorDiskKV WHERE key = ?', `composerData:${key.id}`);
      const composer = parseRecord(row?.value, `composer ${key.id}`);
      return composerSession(key.id, composer, bubblesOf(db, key.id, composer), options);
    }
    case 'workspace-composer': {
      const composers = itemJson(db, WORKSPACE_COMPOSERS_KEY)?.allComposers;
      const composer = Array.isArray(composers) ? composers.filter(isObject).find((candidate) => candidate.composerId === key.id) : undefined;
      return composerSession(key.id, composer ?? {}, Array.isArray(composer?.conversation) ? composer.conversation.filter(isObject) : [], options);
    }
    case 'chat-tab': {
      const tabs = itemJson(db, CHAT_PANEL_KEY)?.tabs;
      const tab = Array.isArray(tabs) ? tabs.filter(isObject).find((candidate) => candidate.tabId === key.id) : undefined;
      const bubbles = Array.isArray(tab?.bubbles) ? tab.bubbles.filter(isObject) : [];
      const title = optionalText(tab?.chatTitle);
      return { sessionId: key.id, ...(title !== undefined ? { title } : {}), source: 'cursor', messages: bubbles.flatMap((bubble) => bubbleMessages(bubble, options)) };
    }
  }
}

/** The messages of a composer in its own order; one whose record is missing is left out. */
function bubblesOf(db: ReadOnlyDatabase, composerId: string, composer: JsonObject): JsonObject[] {
  if (Array.isArray(composer.conversation)) return composer.conversation.filter(isObject);
  const prefix = `bubbleId:${composerId}:`;
  const rows = db.all<{ key: string; value: unknown }>('SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?', prefix, `bubbleId:${composerId};`);
  const byId = new Map(rows.filter((row) => row.value !== null).map((row) => [row.key.slice(prefix.length), row.value]));
  const inline = isObject(composer.conversationMap) ? composer.conversationMap : {};
  const headers = Array.isArray(composer.fullConversationHeadersOnly) ? composer.fullConversationHeadersOnly.filter(isObject) : [];
  return headers.flatMap((header) => {
    const id = typeof header.bubbleId === 'string' ? header.bubbleId : undefined;
    if (id === undefined) return [];
    const stored = byId.get(id);
    if (stored !== undefined) return [parseRecord(stored, `message ${id} of composer ${composerId}`)];
    return isObject(inline[id]) ? [inline[id]] : [];
  });
}

function composerSession(id: string, composer: JsonObject, bubbles: readonly JsonObject[], options: MappingOptions): SessionInput {
  const messages = bubbles.flatMap((bubble) => bubbleMessages(bubble, options));
  const started = isoFromEpochMillis(composer.createdAt);
  if (started !== undefined && messages[0] && messages[0].timestamp === undefined) messages[0] = { ...messages[0], timestamp: started };
  const title = optionalText(composer.name) ?? messages.find((message) => message.role === 'user')?.content.split('\n')[0]?.slice(0, 100);
  return { sessionId: id, ...(title !== undefined ? { title } : {}), source: 'cursor', messages };
}

function bubbleMessages(bubble: JsonObject, options: MappingOptions): MessageInput[] {
  const id = optionalText(bubble.bubbleId) ?? optionalText(bubble.id);
  const role = bubble.type === 1 || bubble.type === '1' || bubble.type === 'user' ? 'user' : 'assistant';
  const timing = isObject(bubble.timingInfo) ? bubble.timingInfo.clientRpcSendTime : undefined;
  const timestamp = isoFromDateString(bubble.createdAt) ?? isoFromEpochMillis(bubble.createdAt) ?? isoFromEpochMillis(timing);
  const parts: MessagePart[] = [];
  if (Array.isArray(bubble.allThinkingBlocks)) {
    for (const block of bubble.allThinkingBlocks) if (isObject(block) && typeof block.thinking === 'string') parts.push({ kind: 'thinking', text: block.thinking });
  }
  const text = typeof bubble.text === 'string' && bubble.text.trim() !== '' ? bubble.text : typeof bubble.rawText === 'string' ? bubble.rawText : '';
  parts.push({ kind: 'text', text });
  const tool = isObject(bubble.toolFormerData) ? bubble.toolFormerData : undefined;
  if (tool && typeof tool.name === 'string') {
    parts.push({ kind: 'tool-call', name: tool.name, args: tool.rawArgs ?? tool.params ?? {} });
    if (typeof tool.result === 'string') parts.push({ kind: 'tool-result', name: tool.name, text: tool.result });
  }
  return messagesFromParts({ ...(id !== undefined ? { id } : {}), role, ...(timestamp !== undefined ? { timestamp } : {}) }, parts, options);
}

function itemJson(db: ReadOnlyDatabase, key: string): JsonObject | undefined {
  const row = db.get<{ value: unknown }>('SELECT value FROM ItemTable WHERE key = ?', key);
  if (row === undefined || row.value === null) return undefined;
  return parseRecord(row.value, key);
}
