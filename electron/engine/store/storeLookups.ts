/**
 * Lookups on the chunks table: which other chunks hold a text, the vectors of sessions, of text
 * hashes and of chunks, the messages kept in chunks. They serve saves, the near-duplicate check of
 * every save (nearDuplicates.ts) and the dry runs of an import preview, so they read only the
 * columns they need.
 */
import type * as lancedb from '@lancedb/lancedb';
import { hitColumns, hitOf } from './searchHits.js';
import { listOf, PART_COLUMN, readRows, sqlIn, sqlString, vectorOf, type OwnedMessage, type VectorHit } from './storeRows.js';
import type { SearchTable } from './storeSearch.js';
import type { Role } from '../../../shared/domain.js';

export interface ChunkLocation {
  chunkId: string;
  sessionId: string;
  textHash: string;
}


/** The chunks of sessions other than `sessionId` that hold one of these texts (by hash). */
export async function chunksWithTextHashes(chunks: lancedb.Table, textHashes: readonly string[], sessionId: string): Promise<ChunkLocation[]> {
  const found: ChunkLocation[] = [];
  for (let i = 0; i < textHashes.length; i += 500) {
    const rows = await readRows(chunks
      .query()
      .where(`${sqlIn('text_hash', textHashes.slice(i, i + 500))} AND session_id != ${sqlString(sessionId)}`)
      .select(['chunk_id', 'session_id', 'text_hash'])
      );
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
    const rows = await readRows(chunks.query().where(sqlIn('text_hash', textHashes.slice(i, i + 500))).select(['text_hash']));
    for (const row of rows) found.add(String(row.text_hash));
  }
  return found;
}

/** The text and session of these chunks (those still stored). */
export async function chunkTexts(chunks: lancedb.Table, chunkIds: readonly string[]): Promise<Map<string, { sessionId: string; text: string }>> {
  const found = new Map<string, { sessionId: string; text: string }>();
  for (let i = 0; i < chunkIds.length; i += 500) {
    const rows = await readRows(chunks.query().where(sqlIn('chunk_id', chunkIds.slice(i, i + 500))).select(['chunk_id', 'session_id', 'text']));
    for (const row of rows) found.set(String(row.chunk_id), { sessionId: String(row.session_id), text: String(row.text) });
  }
  return found;
}

/**
 * For each chunk place, the chunk's first message, the message just before it and the one just after
 * the chunk's last, when the store holds them within AROUND_POSITIONS message positions of the chunk.
 * A message is kept in the row of the chunk that holds its start, and a row's `seq` is the position
 * of its first message (ChunkPosition), so what is read is the rows that start within those positions,
 * through the session index: the work grows with the places asked, not with the store or the length
 * of their sessions. A neighbour further off (a gap of more positions, or behind a chunk that packs
 * more short messages than that) is not given.
 */
export async function messagesAround(chunks: SearchTable, places: ReadonlyArray<ChunkPlace>): Promise<MessagesAround[]> {
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
  /** The roles of the chunk's own messages read (first to last), in order. */
  roles?: Role[];
}

export interface ChunkPlace {
  sessionId: string;
  /** The chunk's `seq` and `part` as read (ChunkPosition); `part` -1 or absent when `seq` packs both. */
  seq: number;
  part?: number;
  firstMsgId: string;
  lastMsgId: string;
}

/** How many message positions on either side of a chunk are read for the messages around it. */
export const AROUND_POSITIONS = 16;

async function aroundBatch(chunks: SearchTable, places: ReadonlyArray<ChunkPlace>): Promise<MessagesAround[]> {
  if (places.length === 0) return [];
  const windows = places.map((p) => {
    // Whole positions: a fraction (a message inserted between two) is within the same bounds.
    const position = Math.floor(p.part !== undefined && p.part >= 0 ? p.seq : p.seq / 1000);
    return { from: position - AROUND_POSITIONS, to: position + AROUND_POSITIONS + 1 };
  });
  const sessions = [...new Set(places.map((p) => p.sessionId))];
  const spans = places.map((p, i) => ({ sessionId: p.sessionId, ...windows[i]! }));
  const ranges = startsWithin(spans, chunks.hasPart);
  // Rows outside the indexes that the search holds (recentRows.ts) are taken from there, and the
  // table is asked for indexed rows only: through the session index, the rows outside it would
  // otherwise be scanned at every read (19 against 7 ms with 2,244 of them at 200k chunks).
  const recent = chunks.recent;
  let query = chunks.table.query().where(`${sqlIn('session_id', sessions)} AND ${ranges}`).select(['session_id', 'owned']);
  if (recent) query = query.fastSearch();
  const rows = await readRows(query);
  if (recent) for (const row of recent.ofSessions(new Set(sessions))) if (spans.some((span) => span.sessionId === row.sessionId && startsIn(row, span, chunks.hasPart))) rows.push({ session_id: row.sessionId, owned: row.owned });
  const bySession = new Map<string, Map<string, OwnedMessage>>();
  for (const row of rows) {
    const sessionId = String(row.session_id);
    const messages = bySession.get(sessionId) ?? new Map<string, OwnedMessage>();
    for (const m of JSON.parse(String(row.owned)) as OwnedMessage[]) messages.set(m.msgId, m);
    bySession.set(sessionId, messages);
  }
  return places.map((p, i) => {
    const messages = bySession.get(p.sessionId);
    const { from, to } = windows[i]!;
    const first = messages?.get(p.firstMsgId);
    const last = messages?.get(p.lastMsgId);
    let before: OwnedMessage | undefined;
    let after: OwnedMessage | undefined;
    const own: OwnedMessage[] = [];
    // Only messages within the place's own positions: one read for another place of the session
    // further off may not be the nearest.
    for (const m of messages?.values() ?? []) {
      if (m.seq < from || m.seq >= to) continue;
      if (first && m.seq < first.seq && (!before || m.seq > before.seq)) before = m;
      if (last && m.seq > last.seq && (!after || m.seq < after.seq)) after = m;
      if (first && last && m.seq >= first.seq && m.seq <= last.seq) own.push(m);
    }
    const roles = own.sort((a, b) => a.seq - b.seq).map((m) => m.role);
    return { ...(first ? { first } : {}), ...(before ? { before } : {}), ...(after ? { after } : {}), ...(roles.length > 0 ? { roles } : {}) };
  });
}

/**
 * For each chunk place, the nearest chunk of its session after it whose first message is not the
 * place's last (the other parts of a long message are skipped: the neighbour is the message said
 * next), when one starts within AROUND_POSITIONS message positions of the place's first message;
 * with its text and vector. Read as messagesAround reads, through the session index, but only the
 * rows from the place's own position on: nothing before it is read.
 */
export async function chunksAfter(chunks: SearchTable, places: ReadonlyArray<ChunkPlace>): Promise<Array<VectorHit | undefined>> {
  return (await chunksBeside(chunks, places, [])).after;
}

/**
 * For each chunk place, the nearest chunk of its session before it whose messages are not all the
 * place's first (the other parts of its own long message are skipped: the neighbour is the message
 * said before, its last part), when one starts within AROUND_POSITIONS message positions before it;
 * with its text and vector. Only the rows up to the place's own position are read.
 */
export async function chunksBefore(chunks: SearchTable, places: ReadonlyArray<ChunkPlace>): Promise<Array<VectorHit | undefined>> {
  return (await chunksBeside(chunks, [], places)).before;
}

/** chunksAfter of the places `after` and chunksBefore of the places `before`, in one read of each kind. */
export async function chunksBeside(chunks: SearchTable, after: ReadonlyArray<ChunkPlace>, before: ReadonlyArray<ChunkPlace>): Promise<{ after: Array<VectorHit | undefined>; before: Array<VectorHit | undefined> }> {
  const wanted = [...after.map((place) => ({ place, side: 'after' as const })), ...before.map((place) => ({ place, side: 'before' as const }))];
  const out: Array<VectorHit | undefined> = [];
  for (let i = 0; i < wanted.length; i += 50) out.push(...(await nextToBatch(chunks, wanted.slice(i, i + 50))));
  return { after: out.slice(0, after.length), before: out.slice(after.length) };
}

function orderOf(place: { seq: number; part?: number }): number {
  return place.part !== undefined && place.part >= 0 ? place.seq * 1000 + place.part : place.seq;
}

async function nextToBatch(chunks: SearchTable, wanted: ReadonlyArray<{ place: ChunkPlace; side: 'before' | 'after' }>): Promise<Array<VectorHit | undefined>> {
  if (wanted.length === 0) return [];
  const places = wanted.map((w) => w.place);
  // From or up to the place's own position: a row after it in the session starts there or later, a row before it there or earlier.
  const spans = wanted.map(({ place: p, side }) => {
    const position = Math.floor(p.part !== undefined && p.part >= 0 ? p.seq : p.seq / 1000);
    return side === 'after' ? { sessionId: p.sessionId, from: position, to: position + AROUND_POSITIONS + 1 } : { sessionId: p.sessionId, from: position - AROUND_POSITIONS, to: position + 1 };
  });
  const sessions = [...new Set(places.map((p) => p.sessionId))];
  const recent = chunks.recent;
  // The places of the rows first (a long message's many parts are rows too), then the text and vector of the few chosen.
  let query = chunks.table
    .query()
    .where(`${sqlIn('session_id', sessions)} AND ${startsWithin(spans, chunks.hasPart)}`)
    .select(['chunk_id', 'session_id', 'seq', 'msg_ids', ...(chunks.hasPart ? [PART_COLUMN] : [])]);
  if (recent) query = query.fastSearch();
  type Near = { chunkId: string; sessionId: string; seq: number; part: number; msgIds: string[]; hit?: VectorHit };
  const rows: Near[] = (await readRows(query)).map((r) => ({ chunkId: String(r.chunk_id), sessionId: String(r.session_id), seq: Number(r.seq), part: r[PART_COLUMN] == null ? -1 : Number(r[PART_COLUMN]), msgIds: listOf(r.msg_ids) }));
  if (recent) for (const row of recent.ofSessions(new Set(sessions))) if (spans.some((span) => span.sessionId === row.sessionId && startsIn(row, span, chunks.hasPart))) rows.push({ chunkId: row.hit.chunkId, sessionId: row.sessionId, seq: row.seq, part: row.part, msgIds: row.hit.msgIds, hit: row.hit });
  const bySession = new Map<string, Near[]>();
  for (const row of rows) {
    const list = bySession.get(row.sessionId);
    if (list) list.push(row);
    else bySession.set(row.sessionId, [row]);
  }
  for (const list of bySession.values()) list.sort((a, b) => orderOf(a) - orderOf(b) || (a.chunkId < b.chunkId ? -1 : 1));
  const chosen = places.map((p, i) => {
    const span = spans[i]!;
    const at = orderOf(p);
    const list = bySession.get(p.sessionId) ?? [];
    if (wanted[i]!.side === 'before') return list.findLast((row) => startsIn(row, span, chunks.hasPart) && orderOf(row) < at && !row.msgIds.every((id) => id === p.firstMsgId));
    return list.find((row) => startsIn(row, span, chunks.hasPart) && orderOf(row) > at && row.msgIds[0] !== p.lastMsgId);
  });
  const unread = [...new Set(chosen.filter((row): row is Near => row !== undefined && !row.hit).map((row) => row.chunkId))];
  const hits = new Map<string, VectorHit>();
  if (unread.length > 0) {
    // Through the session index again: chunk ids alone have none.
    let read = chunks.table.query().where(`${sqlIn('session_id', sessions)} AND ${startsWithin(spans, chunks.hasPart)} AND ${sqlIn('chunk_id', unread)}`).select(hitColumns(chunks.hasPart));
    if (recent) read = read.fastSearch();
    for (const row of await readRows(read)) hits.set(String(row.chunk_id), hitOf(row, Number.NaN));
  }
  return chosen.map((row) => (row ? (row.hit ? { ...row.hit, distance: Number.NaN } : hits.get(row.chunkId)) : undefined));
}

/**
 * The filter for rows whose first message's position is in one of these spans [from, to) of their
 * session: `seq` itself, or in a row that packs `position * 1000 + part` (part -1, or no part column
 * at all), `seq` / 1000. Overlapping spans of a session are merged: the filter is evaluated on every
 * row of the sessions, and a short one is quicker.
 */
function startsWithin(spans: ReadonlyArray<{ sessionId: string; from: number; to: number }>, hasPart: boolean): string {
  const bySession = new Map<string, Array<{ from: number; to: number }>>();
  for (const { sessionId, from, to } of [...spans].sort((x, y) => x.from - y.from)) {
    const merged = bySession.get(sessionId) ?? [];
    const last = merged[merged.length - 1];
    if (last && from <= last.to) last.to = Math.max(last.to, to);
    else merged.push({ from, to });
    bySession.set(sessionId, merged);
  }
  const within = (scale: number) =>
    [...bySession].map(([sessionId, ranges]) => `(session_id = ${sqlString(sessionId)} AND (${ranges.map(({ from, to }) => `(seq >= ${from * scale} AND seq < ${to * scale})`).join(' OR ')}))`).join(' OR ');
  return hasPart ? `((${PART_COLUMN} >= 0 AND (${within(1)})) OR (${PART_COLUMN} < 0 AND (${within(1000)})))` : `(${within(1000)})`;
}

/** What startsWithin's filter says of one row and one span. */
function startsIn(row: { seq: number; part: number }, span: { from: number; to: number }, hasPart: boolean): boolean {
  const scale = hasPart && row.part >= 0 ? 1 : 1000;
  return row.seq >= span.from * scale && row.seq < span.to * scale;
}

/** The full messages kept in these chunks of a session (for rebuilding chunks around an edit). */
export async function ownedMessages(chunks: lancedb.Table, sessionId: string, chunkIds: readonly string[]): Promise<Map<string, OwnedMessage>> {
  const found = new Map<string, OwnedMessage>();
  for (let i = 0; i < chunkIds.length; i += 500) {
    const rows = await readRows(chunks
      .query()
      .where(`session_id = ${sqlString(sessionId)} AND ${sqlIn('chunk_id', chunkIds.slice(i, i + 500))}`)
      .select(['owned'])
      );
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
    const rows = await readRows(chunks
      .query()
      .where(sessionId === undefined ? sqlIn('text_hash', slice) : `session_id = ${sqlString(sessionId)} AND ${sqlIn('text_hash', slice)}`)
      .select(['text_hash', 'vector'])
      );
    for (const row of rows) found.set(String(row.text_hash), vectorOf(row.vector));
  }
  return found;
}

/** The vectors of these chunks. */
export async function vectorsByChunkId(chunks: lancedb.Table, chunkIds: readonly string[]): Promise<Map<string, Float32Array>> {
  const found = new Map<string, Float32Array>();
  for (let i = 0; i < chunkIds.length; i += 500) {
    const rows = await readRows(chunks.query().where(sqlIn('chunk_id', chunkIds.slice(i, i + 500))).select(['chunk_id', 'vector']));
    for (const row of rows) found.set(String(row.chunk_id), vectorOf(row.vector));
  }
  return found;
}
