import * as lancedb from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { listOf, readRows, rowsOf, vectorOf, type ArrowColumns, type Row } from '../electron/engine/store/storeRows.js';
import { tempDir } from './helpers/engine.js';

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

const schema = new arrow.Schema([
  new arrow.Field('id', new arrow.Utf8(), false),
  new arrow.Field('n', new arrow.Float64(), false),
  new arrow.Field('tags', new arrow.List(new arrow.Field('item', new arrow.Utf8(), true)), false),
  new arrow.Field('note', new arrow.Utf8(), true),
  new arrow.Field('vector', new arrow.FixedSizeList(3, new arrow.Field('item', new arrow.Float32(), true)), false),
]);

/** Rows as Arrow's own row proxies give them, read field by field (what the store did before rowsOf). */
function throughProxies(rows: Row[]): unknown[] {
  return rows.map((r) => ({ id: String(r.id), n: Number(r.n), tags: listOf(r.tags), note: r.note ?? null, vector: Array.from(vectorOf(r.vector)) }));
}

function plain(rows: Row[]): unknown[] {
  return rows.map((r) => ({ id: String(r.id), n: Number(r.n), tags: r.tags, note: r.note ?? null, vector: Array.from(r.vector as Float32Array) }));
}

describe('rowsOf', () => {
  it('reads a table of several fragments column by column into the same rows as Arrow’s row proxies, lists and vectors included', async () => {
    const { dir, cleanup } = tempDir('rows-');
    cleanups.push(cleanup);
    const db = await lancedb.connect(dir);
    const table = await db.createEmptyTable('t', schema);
    // Three appends: three fragments, so the query's result comes in several chunks whose list
    // offsets each start again at 0.
    for (let batch = 0; batch < 3; batch++) {
      const rows = Array.from({ length: 5 + batch * 7 }, (_, i) => {
        const k = batch * 100 + i;
        return { id: `c${k}`, n: k / 3, tags: Array.from({ length: k % 4 }, (_, t) => `m${k}-${t}é`), note: k % 3 === 0 ? null : `note ${k}`, vector: [k, -k / 2, 0.25] };
      });
      await table.add(rows);
    }
    const query = () => table.query().where(`n >= 1`).select(['id', 'n', 'tags', 'note', 'vector']);
    const viaProxies = throughProxies((await query().toArray()) as Row[]);
    const viaColumns = plain(await readRows(query()));
    expect(viaColumns.length).toBe(33);
    expect(viaColumns).toEqual(viaProxies);
    // A row with no tags reads as an empty list, not as its neighbour's.
    expect(viaColumns.find((r) => (r as { id: string }).id === 'c104')).toMatchObject({ tags: [] });
    expect(viaColumns.find((r) => (r as { id: string }).id === 'c203')).toMatchObject({ tags: ['m203-0é', 'm203-1é', 'm203-2é'], vector: [203, -101.5, 0.25] });

    // Batches streamed by a query read the same way.
    const streamed: Row[] = [];
    for await (const batch of query()) streamed.push(...rowsOf(batch as unknown as ArrowColumns));
    expect(plain(streamed).sort((a, b) => String((a as { id: string }).id).localeCompare((b as { id: string }).id))).toEqual(
      [...viaProxies].sort((a, b) => String((a as { id: string }).id).localeCompare((b as { id: string }).id)),
    );
    table.close();
    db.close();
  });
});
