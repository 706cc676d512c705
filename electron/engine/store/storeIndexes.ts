/**
 * Which indexes the chunks table has, asked of LanceDB once and kept until something may have
 * changed them (an index made or built, every row rewritten, a rollback, another process's commits
 * read in), and the making of the ones the store's layout needs.
 */
import type * as lancedb from '@lancedb/lancedb';
import { indexedColumns, indexFor } from './storeSchema.js';

export class ChunkIndexes {
  private names: Set<string> | null = null;

  /** @param table the chunks table (a function: the store may hold another handle later). */
  constructor(private readonly table: () => lancedb.Table) {}

  /** Forgets what was read: the next question asks LanceDB again. */
  forget(): void {
    this.names = null;
  }

  async has(column: string): Promise<boolean> {
    if (!this.names || !this.names.has(column)) {
      const indices = await this.table().listIndices();
      this.names = new Set(indices.flatMap((i) => i.columns));
    }
    return this.names.has(column);
  }

  /**
   * Makes the indexes the layout needs that the table lacks (none while it is empty). Scalar indexes
   * keep a save's reads to its own session's rows and find a text's stored vector. Full text: a word
   * index on `text` (lower-cased, accents folded, English stems, stop words left out: a query's
   * common words would otherwise touch most of the store) and an n-gram index on `text_cjk`, which
   * finds words in scripts without spaces that a word tokenizer misses.
   */
  async ensure(ftsLayout: string | null): Promise<void> {
    const missing: string[] = [];
    for (const column of indexedColumns(ftsLayout)) if (!(await this.has(column))) missing.push(column);
    if (missing.length === 0 || (await this.table().countRows()) === 0) return;
    for (const column of missing) await this.table().createIndex(column, { config: indexFor(column, ftsLayout) });
    this.forget();
  }

  /** True when the table has at least `minRows` rows and no vector index yet. */
  async vectorIndexDue(minRows: number): Promise<boolean> {
    if (await this.has('vector')) return false;
    return (await this.table().countRows()) >= minRows;
  }
}
