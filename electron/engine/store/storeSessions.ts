/** The `sessions` table: one row per session with its title, source, parent and time of the last save. */
import type * as lancedb from '@lancedb/lancedb';
import { readRows, sqlString, type Row, type SessionMeta } from './storeRows.js';
import { PARENT_COLUMN } from './storeSchema.js';

export async function upsertSession(sessions: lancedb.Table, meta: SessionMeta): Promise<void> {
  await sessions
    .mergeInsert('session_id')
    .whenMatchedUpdateAll()
    .whenNotMatchedInsertAll()
    .execute([{ session_id: meta.sessionId, title: meta.title, source: meta.source, updated_at: meta.updatedAt, [PARENT_COLUMN]: meta.parentSessionId }]);
}

export async function sessionMetas(sessions: lancedb.Table): Promise<Map<string, SessionMeta>> {
  const rows = await readRows(sessions.query());
  return new Map(rows.map((r) => [String(r.session_id), sessionMetaOf(r)]));
}

export async function sessionMeta(sessions: lancedb.Table, sessionId: string): Promise<SessionMeta | null> {
  const rows = await readRows(sessions.query().where(`session_id = ${sqlString(sessionId)}`).limit(1));
  const r = rows[0];
  return r ? sessionMetaOf(r) : null;
}

/** A sessions row; a store from before the parent column reads as having none. */
function sessionMetaOf(r: Row): SessionMeta {
  const parent = r[PARENT_COLUMN];
  return { sessionId: String(r.session_id), title: String(r.title), source: String(r.source), parentSessionId: typeof parent === 'string' ? parent : '', updatedAt: Number(r.updated_at) };
}
