/** What the store keeps, as the engine sees it, and how it maps to and from table rows. */
import type { Role } from '../../shared/domain.js';
import { CJK_COLUMN, cjkText } from './fullTextLayout.js';

/** What identifies a stored message version: enough to diff a save against the store. */
export interface OwnedKey {
  msgId: string;
  contentHash: string;
  seq: number;
}

/** A message as kept inside its owner chunk row. */
export interface OwnedMessage extends OwnedKey {
  role: Role;
  content: string;
  timestamp?: string;
}

export interface ChunkRecord {
  chunkId: string;
  sessionId: string;
  /** Ordering key within the session: the first message's position, then the part. */
  seq: number;
  text: string;
  textHash: string;
  vector: Float32Array;
  msgIds: string[];
  owned: OwnedMessage[];
  createdAt: number;
}

/** What a save needs to know of a stored chunk: no text, no vector, no message content. */
export interface ChunkHead {
  chunkId: string;
  sessionId: string;
  seq: number;
  textHash: string;
  msgIds: string[];
  owned: OwnedKey[];
  createdAt: number;
}

export interface SessionMeta {
  sessionId: string;
  title: string;
  source: string;
  /** '' when none. */
  parentSessionId: string;
  updatedAt: number;
}

export interface StoreModelInfo {
  model: string;
  dim: number;
}

export interface VectorHit {
  chunkId: string;
  sessionId: string;
  text: string;
  textHash: string;
  msgIds: string[];
  distance: number;
  /** The chunk's ordering key in its session (see ChunkRecord.seq). */
  seq?: number;
  /** Present when the search read it (vector searches do). */
  vector?: Float32Array;
}

/**
 * Chunk order within a session: by position, then by id. Positions can tie (new messages take their
 * input position, which a stored message may share), and the row order LanceDB returns is not
 * stable across commits, so the id makes the order the same however the store was written.
 */
export function bySeqThenId(a: { seq: number; chunkId: string }, b: { seq: number; chunkId: string }): number {
  return a.seq - b.seq || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0);
}

/** Quotes a string for a LanceDB SQL filter. */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export function sqlIn(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map(sqlString).join(', ')})`;
}

export type Row = Record<string, unknown>;

export function listOf(value: unknown): string[] {
  if (value == null) return [];
  if (Array.isArray(value)) return value.map(String);
  const vector = value as { toArray?: () => unknown[] };
  return vector.toArray ? Array.from(vector.toArray(), String) : [];
}

export function vectorOf(value: unknown): Float32Array {
  if (value instanceof Float32Array) return value;
  const vector = value as { toArray?: () => ArrayLike<number> };
  if (vector?.toArray) return Float32Array.from(vector.toArray());
  return Float32Array.from(value as ArrayLike<number>);
}

export function headOf(row: Row): ChunkHead {
  const keys = JSON.parse(String(row.owned_keys)) as Array<[string, string, number]>;
  return {
    chunkId: String(row.chunk_id),
    sessionId: String(row.session_id),
    seq: Number(row.seq),
    textHash: String(row.text_hash),
    msgIds: listOf(row.msg_ids),
    owned: keys.map(([msgId, contentHash, seq]) => ({ msgId, contentHash, seq })),
    createdAt: Number(row.created_at),
  };
}

export function recordOf(row: Row, withVector: boolean): ChunkRecord {
  return {
    ...headOf(row),
    owned: JSON.parse(String(row.owned)) as OwnedMessage[],
    text: String(row.text),
    vector: withVector ? vectorOf(row.vector) : new Float32Array(0),
  };
}

export function toRow(chunk: ChunkRecord): Row {
  return {
    chunk_id: chunk.chunkId,
    session_id: chunk.sessionId,
    seq: chunk.seq,
    text: chunk.text,
    [CJK_COLUMN]: cjkText(chunk.text),
    text_hash: chunk.textHash,
    vector: Array.from(chunk.vector),
    msg_ids: chunk.msgIds,
    owned_keys: JSON.stringify(chunk.owned.map((m) => [m.msgId, m.contentHash, m.seq])),
    owned: JSON.stringify(chunk.owned),
    created_at: chunk.createdAt,
  };
}

export const HEAD_COLUMNS = ['chunk_id', 'session_id', 'seq', 'text_hash', 'msg_ids', 'owned_keys', 'created_at'];
