/** Steps of bringing a store written by an earlier version to the current layout (see ChunkStore.upgrade). */
import type * as lancedb from '@lancedb/lancedb';
import { CJK_COLUMN, cjkText, FTS_LAYOUT, FTS_LAYOUT_KEY } from './fullTextLayout.js';
import { headColumns, readRows, rowsOf, PART_COLUMN, recordOf, sqlIn, sqlString, toRow } from './storeRows.js';
import { PARENT_COLUMN } from './storeSchema.js';

/** Rewrites the rows whose `text_cjk` does not match their text (all of them agree afterwards). */
export async function fillCjkColumn(chunks: lancedb.Table): Promise<void> {
  const stale: string[] = [];
  for await (const batch of chunks.query().select(['chunk_id', 'text', CJK_COLUMN])) {
    for (const row of rowsOf(batch)) {
      if (String(row[CJK_COLUMN] ?? '') !== cjkText(String(row.text))) stale.push(String(row.chunk_id));
    }
  }
  const columns = [...headColumns((await chunks.schema()).fields.some((f) => f.name === PART_COLUMN)), 'owned', 'text', 'vector'];
  for (let i = 0; i < stale.length; i += 2_000) {
    const rows = await readRows(chunks
      .query()
      .where(sqlIn('chunk_id', stale.slice(i, i + 2_000)))
      .select(columns)
      );
    await chunks.mergeInsert('chunk_id').whenMatchedUpdateAll().execute(rows.map((row) => toRow(recordOf(row, true))));
  }
}

/**
 * Brings the tables of a store written by an earlier version to the current layout. Every step can
 * be repeated, and the layout is recorded only after the last one, so a process killed half-way
 * leaves a store that the next call finishes. `rebuildIndexes` creates the indexes the current layout
 * has (the store's own ensureIndexes, once it knows the layout is current).
 */
export async function upgradeLayout(chunks: lancedb.Table, sessions: lancedb.Table, meta: lancedb.Table, rebuildIndexes: () => Promise<void>): Promise<void> {
  const recorded = (await readRows(meta.query().where(`key = ${sqlString(FTS_LAYOUT_KEY)}`))).some((r) => r.value === FTS_LAYOUT);
  // Sessions started from another one (added after the first layout): '' for the sessions before it.
  if (!(await sessions.schema()).fields.some((f) => f.name === PARENT_COLUMN)) await sessions.addColumns([{ name: PARENT_COLUMN, valueSql: "''" }]);
  await addPartColumn(chunks);
  const hasColumn = (await chunks.schema()).fields.some((f) => f.name === CJK_COLUMN);
  if (recorded && hasColumn) return;
  // The column is missing in an old store, or in one rolled back to a version from before it.
  // It starts empty; the rows whose text has such scripts are then rewritten with it filled in.
  if (!hasColumn) await chunks.addColumns([{ name: CJK_COLUMN, valueSql: "''" }]);
  await fillCjkColumn(chunks);
  const textIndex = (await chunks.listIndices()).find((i) => i.columns.length === 1 && i.columns[0] === 'text');
  if (textIndex) await chunks.dropIndex(textIndex.name);
  await rebuildIndexes();
  if (!recorded) await meta.add([{ key: FTS_LAYOUT_KEY, value: FTS_LAYOUT }]);
}

/**
 * The part a chunk starts with got a column of its own (before, `seq` packed it with the position as
 * `position * 1000 + part`, which collides past 999 parts or after many insertions into one gap).
 * Rows from before read -1 there, and their order is taken from the packed key (`inChunkOrder`).
 */
export async function addPartColumn(chunks: lancedb.Table): Promise<boolean> {
  if ((await chunks.schema()).fields.some((f) => f.name === PART_COLUMN)) return false;
  await chunks.addColumns([{ name: PART_COLUMN, valueSql: 'CAST(-1 AS DOUBLE)' }]);
  return true;
}
