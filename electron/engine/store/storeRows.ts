/** What the store keeps, as the engine sees it, and how it maps to and from table rows. */
import type { Role } from '../../../shared/domain.js';
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
  /** Who said it, when named (MessageInput.speaker); absent in rows written before names were kept. */
  speaker?: string;
  timestamp?: string;
}

/**
 * Where a chunk sits in its session: the position (`seq`) of its first message, then which part of
 * that message it starts with. `part` is -1 for a row written before the pair had a column of its
 * own: its `seq` then packs both as `position * 1000 + part`, which `inChunkOrder` takes apart.
 */
interface ChunkPosition {
  seq: number;
  part: number;
}

export interface ChunkRecord extends ChunkPosition {
  chunkId: string;
  sessionId: string;
  text: string;
  textHash: string;
  vector: Float32Array;
  msgIds: string[];
  owned: OwnedMessage[];
  createdAt: number;
}

/** What a save needs to know of a stored chunk: no text, no vector, no message content. */
export interface ChunkHead extends ChunkPosition {
  chunkId: string;
  sessionId: string;
  textHash: string;
  msgIds: string[];
  owned: OwnedKey[];
  createdAt: number;
  /** The owned messages in full, as stored (JSON), when the read asked for them (ChunkStore.sessionHeads). */
  ownedJson?: string;
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
  /** Which part of its first message the chunk starts with; -1 (or absent) when `seq` packs it (ChunkPosition). */
  part?: number;
  /** Present when the search read it (vector searches do). */
  vector?: Float32Array;
}

/**
 * A session's chunks in order: by the position of their first message, then by part, then by id.
 * Positions can tie (new messages take their input position, which a stored message may share), and
 * the row order LanceDB returns is not stable across commits, so the id makes the order the same
 * however the store was written. Give every chunk of the session: a row written before the part
 * had its own column finds its first message's position among them.
 */
export function inChunkOrder<T extends ChunkPosition & { chunkId: string; msgIds: readonly string[]; owned: readonly OwnedKey[] }>(chunks: readonly T[]): T[] {
  let positions: Map<string, number> | null = null;
  const keyed = chunks.map((chunk) => {
    if (chunk.part >= 0) return { chunk, seq: chunk.seq, part: chunk.part };
    positions ??= new Map(chunks.flatMap((c) => c.owned.map((m) => [m.msgId, m.seq] as const)));
    const seq = positions.get(chunk.msgIds[0] ?? '') ?? Math.floor(chunk.seq / 1000);
    return { chunk, seq, part: Math.round(chunk.seq - seq * 1000) };
  });
  keyed.sort((a, b) => a.seq - b.seq || a.part - b.part || (a.chunk.chunkId < b.chunk.chunkId ? -1 : a.chunk.chunkId > b.chunk.chunkId ? 1 : 0));
  return keyed.map((k) => k.chunk);
}

/** Quotes a string for a LanceDB SQL filter. */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export function sqlIn(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map(sqlString).join(', ')})`;
}

export type Row = Record<string, unknown>;

/** An Arrow table or record batch as LanceDB returns them (typed loosely: LanceDB bundles its own Arrow). */
export interface ArrowColumns {
  numRows: number;
  schema: { fields: ReadonlyArray<{ name: string; type: { typeId: number; listSize?: number } }> };
  getChild(name: string): ArrowVector | null;
}

interface ArrowVector extends Iterable<unknown> {
  data: ReadonlyArray<{ length: number; valueOffsets?: ArrayLike<number> }>;
  getChildAt(index: number): ArrowVector | null;
  toArray(): ArrayLike<unknown>;
}

// Arrow's type ids (apache-arrow's `Type` enum).
const ARROW_LIST = 12;
const ARROW_FIXED_SIZE_LIST = 16;

/**
 * The rows of an Arrow table or batch as plain objects, read column by column. Arrow's own rows
 * (`toArray()`) are proxies that make a vector for each list value read: reading a session's
 * chunk heads that way took about ten times as long as reading the columns. A list of strings
 * becomes a string array and a fixed-size list (a vector) a Float32Array of its own.
 */
export function rowsOf(table: ArrowColumns): Row[] {
  const rows: Row[] = Array.from({ length: table.numRows }, () => ({}));
  for (const field of table.schema.fields) {
    const column = table.getChild(field.name);
    if (!column) continue;
    let i = 0;
    if (field.type.typeId === ARROW_LIST || field.type.typeId === ARROW_FIXED_SIZE_LIST) {
      // Each chunk of the column on its own: a list's offsets point into its own chunk's values.
      const Chunk = column.constructor as new (data: unknown[]) => ArrowVector;
      for (const data of column.data) {
        const values = new Chunk([data]).getChildAt(0);
        if (field.type.typeId === ARROW_LIST) {
          const strings = values ? Array.from(values, (v) => (v == null ? '' : String(v))) : [];
          const offsets = data.valueOffsets!;
          for (let j = 0; j < data.length; j++) rows[i++]![field.name] = strings.slice(offsets[j], offsets[j + 1]);
        } else {
          const size = field.type.listSize!;
          const flat = values?.toArray() ?? [];
          const numbers = flat instanceof Float32Array ? flat : Float32Array.from(flat as ArrayLike<number>);
          for (let j = 0; j < data.length; j++) rows[i++]![field.name] = numbers.slice(j * size, (j + 1) * size);
        }
      }
      continue;
    }
    for (const value of column) rows[i++]![field.name] = value;
  }
  return rows;
}

/** The rows a LanceDB query returns, as plain objects (rowsOf). */
export async function readRows(query: { toArrow(): Promise<unknown> }): Promise<Row[]> {
  return rowsOf((await query.toArrow()) as ArrowColumns);
}

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
    // Absent (a store not yet upgraded, or rolled back to before the column): the packed key.
    part: row[PART_COLUMN] == null ? -1 : Number(row[PART_COLUMN]),
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
    [PART_COLUMN]: chunk.part,
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

/** Which part of its first message a chunk starts with (see ChunkPosition); added after the first layout. */
export const PART_COLUMN = 'part';

export const HEAD_COLUMNS = ['chunk_id', 'session_id', 'seq', 'text_hash', 'msg_ids', 'owned_keys', 'created_at'];

/** The head columns of a table, with `part` when it has it. */
export function headColumns(hasPart: boolean): string[] {
  return hasPart ? [...HEAD_COLUMNS, PART_COLUMN] : HEAD_COLUMNS;
}
