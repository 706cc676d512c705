/**
 * A small table of the store beside the chunks (the save history, the state): opened on first use,
 * created by the first writer that needs it, compacted with the store, and purged after a forget so
 * that no deleted row stays in an older version or an unreferenced file.
 */
import type * as lancedb from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import path from 'node:path';
import { isRemoteStore } from './connect.js';
import type { ChunkStore } from './store.js';
import { isTableCommitted } from './storeCreation.js';
import { sweepUnreferencedFiles } from './storeSweep.js';
import { retryTransient } from './transient.js';

export class SmallTable {
  private table: lancedb.Table | null = null;

  constructor(
    private readonly store: Pick<ChunkStore, 'db' | 'uri'>,
    readonly name: string,
    private readonly schema: arrow.Schema,
  ) {}

  /** The table, or null when no writer has created it yet (`create`: create it now). */
  async open(create: boolean): Promise<lancedb.Table | null> {
    if (this.table) return this.table;
    const { db, uri } = this.store;
    // A version another machine is committing may not be readable for a moment: tried again, never created over.
    this.table = await retryTransient(async () => {
      if (await isTableCommitted(uri, this.name, db)) return db.openTable(this.name);
      return create ? db.createEmptyTable(this.name, this.schema, { existOk: true }) : null;
    });
    return this.table;
  }

  /** Folds the small files of many commits into a few (with the store's own compaction). */
  async compact(olderThan: Date): Promise<void> {
    const table = await this.open(false);
    if (table) await table.optimize({ cleanupOlderThan: olderThan });
  }

  /**
   * Every row is written again (setting `column` to itself), then older versions and the files no
   * version uses are removed: deleted rows are in no file or object.
   */
  async purge(column: string): Promise<void> {
    const table = await this.open(false);
    if (!table) return;
    if ((await table.countRows()) > 0) await table.update({ where: 'true', valuesSql: { [column]: column } });
    // Files no version ever referenced are left to LanceDB's own bound on object storage (a week, see
    // ChunkStore.rewriteAndPrune): one can be a commit still under way on a machine paused past its lease.
    await table.optimize({ cleanupOlderThan: new Date(), deleteUnverified: false });
    if (!isRemoteStore(this.store.uri)) await sweepUnreferencedFiles(path.join(this.store.uri, `${this.name}.lance`));
  }

  close(): void {
    this.table?.close();
    this.table = null;
  }
}
