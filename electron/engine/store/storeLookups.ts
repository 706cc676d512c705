/**
 * Lookups on the chunks table: which other chunks hold a text, the vectors of sessions, of text
 * hashes and of chunks, the messages kept in chunks. They serve saves, the near-duplicate check of
 * every save (nearDuplicates.ts) and the dry runs of an import preview, so they read only the
 * columns they need.
 */
import type * as lancedb from '@lancedb/lancedb';
import { sqlIn, sqlString, vectorOf, type OwnedMessage, type Row } from './storeRows.js';

export interface ChunkLocation {
  chunkId: string;
  sessionId: string;
  textHash: string;
}


/** The chunks of sessions other than `sessionId` that hold one of these texts (by hash). */
export async function chunksWithTextHashes(chunks: lancedb.Table, textHashes: readonly string[], sessionId: string): Promise<ChunkLocation[]> {
  const found: ChunkLocation[] = [];
  for (let i = 0; i < textHashes.length; i += 500) {
    const rows = (await chunks
      .query()
      .where(`${sqlIn('text_hash', textHashes.slice(i, i + 500))} AND session_id != ${sqlString(sessionId)}`)
      .select(['chunk_id', 'session_id', 'text_hash'])
      .toArray()) as Row[];
    for (const row of rows) found.push({ chunkId: String(row.chunk_id), sessionId: String(row.session_id), textHash: String(row.text_hash) });
  }
  return found;
}

/**
 * The vectors of these sessions' chunks (of every session when `sessionIds` is null), streamed in
 * the store's batches, for the vector sketch (vectorSketch.ts) to encode as they come.
 */
export async function* sessionVectors(chunks: lancedb.Table, sessionIds: readonly string[] | null): AsyncGenerator<{ chunkId: string; sessionId: string; vector: Float32Array }> {
  const groups = sessionIds === null ? [null] : Array.from({ length: Math.ceil(sessionIds.length / 500) }, (_, i) => sessionIds.slice(i * 500, i * 500 + 500));
  for (const group of groups) {
    const query = group === null ? chunks.query() : chunks.query().where(sqlIn('session_id', group));
    for await (const batch of query.select(['chunk_id', 'session_id', 'vector'])) {
      const ids = batch.getChild('chunk_id')!;
      const sessions = batch.getChild('session_id')!;
      const column = batch.getChild('vector')!;
      for (let row = 0; row < batch.numRows; row++) yield { chunkId: String(ids.get(row)), sessionId: String(sessions.get(row)), vector: vectorOf(column.get(row)) };
    }
  }
}

/** Which of these text hashes some stored chunk has. */
export async function storedTextHashes(chunks: lancedb.Table, textHashes: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < textHashes.length; i += 500) {
    const rows = (await chunks.query().where(sqlIn('text_hash', textHashes.slice(i, i + 500))).select(['text_hash']).toArray()) as Row[];
    for (const row of rows) found.add(String(row.text_hash));
  }
  return found;
}

/** The text and session of these chunks (those still stored). */
export async function chunkTexts(chunks: lancedb.Table, chunkIds: readonly string[]): Promise<Map<string, { sessionId: string; text: string }>> {
  const found = new Map<string, { sessionId: string; text: string }>();
  for (let i = 0; i < chunkIds.length; i += 500) {
    const rows = (await chunks.query().where(sqlIn('chunk_id', chunkIds.slice(i, i + 500))).select(['chunk_id', 'session_id', 'text']).toArray()) as Row[];
    for (const row of rows) found.set(String(row.chunk_id), { sessionId: String(row.session_id), text: String(row.text) });
  }
  return found;
}

/**
 * For each chunk place (its session and `seq`), the chunk's first message, the message just before it
 * and the one just after the chunk's last, when the store holds them: reads of the rows starting in the two
 * message positions on either side of each chunk, through the session index (the work grows with the
 * places asked, not the store).
 */
export async function messagesAround(chunks: lancedb.Table, places: ReadonlyArray<ChunkPlace>): Promise<MessagesAround[]> {
  const out: MessagesAround[] = [];
  // A few dozen places per read: one filter with hundreds of ranges is slow to plan.
  for (let i = 0; i < places.length; i += 50) out.push(...(await aroundBatch(chunks, places.slice(i, i + 50))));
  return out;
}

/** The chunk's first message, the one before it and the one after its last (those the store holds). */
export interface MessagesAround {
  first?: OwnedMessage;
  before?: OwnedMessage;
  after?: OwnedMessage;
}

export interface ChunkPlace {
  sessionId: string;
  seq: number;
  firstMsgId: string;
  lastMsgId: string;
}

async function aroundBatch(chunks: lancedb.Table, places: ReadonlyArray<ChunkPlace>): Promise<MessagesAround[]> {
  if (places.length === 0) return [];
  // A chunk's seq is its first message's position * 1000 + the part (chunkWriter.ts); the message
  // after a one-message chunk starts at the next position.
  const ranges = places.map((p) => `(session_id = ${sqlString(p.sessionId)} AND seq >= ${p.seq - 2000} AND seq < ${Math.floor(p.seq / 1000) * 1000 + 2000})`);
  const sessions = [...new Set(places.map((p) => p.sessionId))];
  const rows = (await chunks
    .query()
    // Only the rows that hold a message's start (its full record) are read.
    .where(`${sqlIn('session_id', sessions)} AND owned_keys != '[]' AND (${ranges.join(' OR ')})`)
    .select(['session_id', 'owned'])
    .toArray()) as Row[];
  const bySession = new Map<string, OwnedMessage[]>();
  for (const row of rows) {
    const list = bySession.get(String(row.session_id)) ?? [];
    list.push(...(JSON.parse(String(row.owned)) as OwnedMessage[]));
    bySession.set(String(row.session_id), list);
  }
  return places.map((p) => {
    const messages = bySession.get(p.sessionId) ?? [];
    const first = messages.find((m) => m.msgId === p.firstMsgId);
    const last = messages.find((m) => m.msgId === p.lastMsgId);
    let before: OwnedMessage | undefined;
    let after: OwnedMessage | undefined;
    for (const m of messages) {
      if (first && m.seq < first.seq && (!before || m.seq > before.seq)) before = m;
      if (last && m.seq > last.seq && (!after || m.seq < after.seq)) after = m;
    }
    return { ...(first ? { first } : {}), ...(before ? { before } : {}), ...(after ? { after } : {}) };
  });
}

/** The full messages kept in these chunks of a session (for rebuilding chunks around an edit). */
export async function ownedMessages(chunks: lancedb.Table, sessionId: string, chunkIds: readonly string[]): Promise<Map<string, OwnedMessage>> {
  const found = new Map<string, OwnedMessage>();
  for (let i = 0; i < chunkIds.length; i += 500) {
    const rows = (await chunks
      .query()
      .where(`session_id = ${sqlString(sessionId)} AND ${sqlIn('chunk_id', chunkIds.slice(i, i + 500))}`)
      .select(['owned'])
      .toArray()) as Row[];
    for (const row of rows) for (const m of JSON.parse(String(row.owned)) as OwnedMessage[]) found.set(m.msgId, m);
  }
  return found;
}

/**
 * Vectors already stored for these text hashes, in any session (or in `sessionId` only): a text is
 * embedded once per store, and a store holds one model's vectors, so the text hash is the key.
 */
export async function vectorsByTextHash(chunks: lancedb.Table, textHashes: readonly string[], sessionId?: string): Promise<Map<string, Float32Array>> {
  const found = new Map<string, Float32Array>();
  for (let i = 0; i < textHashes.length; i += 500) {
    const slice = textHashes.slice(i, i + 500);
    const rows = (await chunks
      .query()
      .where(sessionId === undefined ? sqlIn('text_hash', slice) : `session_id = ${sqlString(sessionId)} AND ${sqlIn('text_hash', slice)}`)
      .select(['text_hash', 'vector'])
      .toArray()) as Row[];
    for (const row of rows) found.set(String(row.text_hash), vectorOf(row.vector));
  }
  return found;
}

/** The vectors of these chunks. */
export async function vectorsByChunkId(chunks: lancedb.Table, chunkIds: readonly string[]): Promise<Map<string, Float32Array>> {
  const found = new Map<string, Float32Array>();
  for (let i = 0; i < chunkIds.length; i += 500) {
    const rows = (await chunks.query().where(sqlIn('chunk_id', chunkIds.slice(i, i + 500))).select(['chunk_id', 'vector']).toArray()) as Row[];
    for (const row of rows) found.set(String(row.chunk_id), vectorOf(row.vector));
  }
  return found;
}
