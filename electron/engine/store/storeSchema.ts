/** The store's tables and their columns, and the model a store records in its meta table. */
import * as lancedb from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { CJK_COLUMN, FTS_LAYOUT, ngramIndex, wordIndex } from './fullTextLayout.js';
import { PART_COLUMN, type Row, type StoreModelInfo } from './storeRows.js';

import { CHUNKS_TABLE, META_TABLE, SESSIONS_TABLE } from '../files/layout.js';
export { CHUNKS_TABLE, META_TABLE, SESSIONS_TABLE };
export const PARENT_COLUMN = 'parent_session_id';

export function chunkSchema(dim: number): arrow.Schema {
  const utf8List = () => new arrow.List(new arrow.Field('item', new arrow.Utf8(), true));
  return new arrow.Schema([
    new arrow.Field('chunk_id', new arrow.Utf8(), false),
    new arrow.Field('session_id', new arrow.Utf8(), false),
    // The position of the chunk's first message, and which part of it the chunk starts with.
    new arrow.Field('seq', new arrow.Float64(), false),
    new arrow.Field(PART_COLUMN, new arrow.Float64(), false),
    new arrow.Field('text', new arrow.Utf8(), false),
    // What of the text the n-gram index covers (see cjkText).
    new arrow.Field(CJK_COLUMN, new arrow.Utf8(), false),
    new arrow.Field('text_hash', new arrow.Utf8(), false),
    new arrow.Field('vector', new arrow.FixedSizeList(dim, new arrow.Field('item', new arrow.Float32(), true)), false),
    new arrow.Field('msg_ids', utf8List(), false),
    // [[msgId, contentHash, seq], ...] of the owned messages: enough to rebuild the archive record
    // without reading any content.
    new arrow.Field('owned_keys', new arrow.Utf8(), false),
    // The owned messages in full (JSON), for `show` and for rebuilding chunks around an edit.
    new arrow.Field('owned', new arrow.Utf8(), false),
    new arrow.Field('created_at', new arrow.Float64(), false),
  ]);
}

export const sessionSchema = new arrow.Schema([
  new arrow.Field('session_id', new arrow.Utf8(), false),
  new arrow.Field('title', new arrow.Utf8(), false),
  new arrow.Field('source', new arrow.Utf8(), false),
  new arrow.Field('updated_at', new arrow.Float64(), false),
  // '' when the session was not started from another one (added after the first layout: see upgrade()).
  new arrow.Field(PARENT_COLUMN, new arrow.Utf8(), false),
]);

export const metaSchema = new arrow.Schema([
  new arrow.Field('key', new arrow.Utf8(), false),
  new arrow.Field('value', new arrow.Utf8(), false),
]);

export function readModelInfo(rows: Row[]): StoreModelInfo | null {
  const get = (key: string) => rows.find((r) => r.key === key)?.value;
  const model = get('model');
  const dim = Number(get('dim'));
  return typeof model === 'string' && Number.isFinite(dim) ? { model, dim } : null;
}

/** The columns of the chunks table that carry an index (besides the vector index) in a store of this full-text layout. */
export function indexedColumns(ftsLayout: string | null): string[] {
  return ['session_id', 'chunk_id', 'text_hash', 'text', ...(ftsLayout === FTS_LAYOUT ? [CJK_COLUMN] : [])];
}

/** The index of one of those columns. Before the current layout (a store not yet converted), `text` had the n-gram index. */
export function indexFor(column: string, ftsLayout: string | null): lancedb.Index {
  if (column === 'session_id' || column === 'chunk_id' || column === 'text_hash') return lancedb.Index.btree();
  if (column === 'text') return ftsLayout === FTS_LAYOUT ? wordIndex() : ngramIndex();
  return ngramIndex();
}
