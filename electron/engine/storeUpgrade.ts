/** Steps of bringing a store written by an earlier version to the current layout (see ChunkStore.upgrade). */
import type * as lancedb from '@lancedb/lancedb';
import { CJK_COLUMN, cjkText } from './fullTextLayout.js';
import { HEAD_COLUMNS, recordOf, sqlIn, toRow, type Row } from './storeRows.js';

/** Rewrites the rows whose `text_cjk` does not match their text (all of them agree afterwards). */
export async function fillCjkColumn(chunks: lancedb.Table): Promise<void> {
  const stale: string[] = [];
  for await (const batch of chunks.query().select(['chunk_id', 'text', CJK_COLUMN])) {
    for (const row of batch.toArray() as Row[]) {
      if (String(row[CJK_COLUMN] ?? '') !== cjkText(String(row.text))) stale.push(String(row.chunk_id));
    }
  }
  for (let i = 0; i < stale.length; i += 2_000) {
    const rows = (await chunks
      .query()
      .where(sqlIn('chunk_id', stale.slice(i, i + 2_000)))
      .select([...HEAD_COLUMNS, 'owned', 'text', 'vector'])
      .toArray()) as Row[];
    await chunks.mergeInsert('chunk_id').whenMatchedUpdateAll().execute(rows.map((row) => toRow(recordOf(row, true))));
  }
}
