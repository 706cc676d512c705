/** The store's tables and their columns, and the model a store records in its meta table. */
import * as arrow from 'apache-arrow';
import { CJK_COLUMN } from './fullTextLayout.js';
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
