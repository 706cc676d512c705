/**
 * The rows of the chunks table that its indexes do not cover yet, held for searches: their hits in
 * memory, searched exactly for nearest vectors, and their texts in an in-memory table with the same
 * full-text indexes as the store.
 *
 * LanceDB adds new rows to its indexes only when the store is compacted, and a compaction of a
 * store under a million rows rewrites all of it, so a large store compacts once per hundred commits
 * or so (maintenance.ts). Until then every query reads those rows in full, and the full-text side
 * tokenizes each of their texts again at every query: on a 200k-chunk store with 2,244 such rows a
 * word query took 36 ms against 10 ms over the indexed rows alone. A search view therefore reads
 * them once per version it holds (at the next version only the fragments added since) and asks the
 * stored table for its indexed rows only (`fastSearch`).
 *
 * Nearest vectors: the held rows are searched exactly, as LanceDB searches unindexed rows, and the
 * stored table's hits carry exact distances too (its search re-ranks them), so the merged list is the
 * one a full query gives (copies of one text at the same distance may be cut at the limit
 * differently). Full text: the in-memory table's word scores (BM25) use its own statistics, which
 * LanceDB's scores for those rows are close to but not equal to (on the store above: 19.3 to 19.8 of
 * the best 20 the same). Once the store is compacted the rows are indexed and scored there.
 *
 * New rows go into new fragments, whose ids only grow, so the rows no index covers are those of the
 * fragments from some id on: the fragment of the row that many rows before the end, checked by
 * counting the rows from it on (LanceDB counts from fragment metadata). When the count is not the
 * index statistics' number of unindexed rows (some index covers a fragment after one it does not),
 * or there are more than RECENT_ROWS_MAX of them, the view searches the stored table in full.
 */
import * as lancedb from '@lancedb/lancedb';
import type { Table as ArrowTable } from 'apache-arrow';
import { CJK_COLUMN, ngramIndex, wordIndex } from './fullTextLayout.js';
import { cosineDistance, fragmentOf, fromFragmentOn, normOf } from './heldRows.js';
import { hitColumns, hitOf, inStableOrder } from './searchHits.js';
import { readRows, rowsOf, sqlString, type VectorHit } from './storeRows.js';

/** Rows added to the in-memory texts table before it indexes them (HeldTexts.adding). */
const UNINDEXED_TEXTS_MAX = 256;

/**
 * Past this many rows outside the indexes the view reads them in the table: each held row keeps its
 * vector, its text and its messages in memory, about 8 KB, so this bounds the memory at about 80 MB
 * (a 200k-chunk store compacts about every 100 commits, and holds a few thousand such rows at most).
 */
export const RECENT_ROWS_MAX = 10_000;

/** The rows outside the indexes at one version of the chunks table, held for searches. */
export interface RecentRows {
  readonly rows: number;
  /** Whether the texts are indexed for n-grams on `text_cjk` too (the store has that index). */
  readonly cjk: boolean;
  /** The nearest `limit` of them by cosine distance, exactly. */
  nearest(vector: Float32Array, limit: number, sessionId?: string, excludeChunkId?: string): VectorHit[];
  /** Those of these sessions, with the messages each holds (its `owned` column): for the messages around a result (storeLookups.ts). */
  ofSessions(sessionIds: ReadonlySet<string>): Array<{ sessionId: string; seq: number; part: number; owned: string; hit: VectorHit }>;
  /** Whether these and `other` (another version's) search one in-memory table of texts, which `close` closes. */
  sharesTextsWith(other: RecentRows): boolean;
  /** The best `limit` of them by full-text score on `column` (`text`, or `text_cjk` when `cjk`). */
  matching(column: string, query: string | lancedb.FullTextQuery, limit: number, sessionId?: string): Promise<VectorHit[]>;
  close(): void;
}

interface Held {
  hit: VectorHit;
  norm: number;
  owned: string;
}

/**
 * The rows the table's indexes do not cover at the version it holds, or null when the view should
 * read them in the table: no vector or word index (a small store: every query reads the table
 * anyway), every row indexed, too many rows outside, or no fragment from which they all are.
 * `words`: whether `text` has the word index (else the n-gram index of an older layout).
 * `previous`: the rows held at an earlier version; those still there are not read again.
 */
export async function recentRowsOf(table: lancedb.Table, hasPart: boolean, words: boolean, previous: RecentRows | null): Promise<RecentRows | null> {
  const indexes = new Map((await table.listIndices()).map((index) => [index.columns[0], index.name]));
  if (!indexes.has('vector') || !indexes.has('text') || !indexes.has('session_id')) return null;
  const cjk = indexes.has(CJK_COLUMN);
  // Every index the searches' reads go through: nearest vectors, full text, and the session index of the messages around a result.
  const statistics = await Promise.all(['vector', 'text', 'session_id', ...(cjk ? [CJK_COLUMN] : [])].map((column) => table.indexStats(indexes.get(column)!)));
  const outside = Math.max(...statistics.map((s) => s?.numUnindexedRows ?? Number.POSITIVE_INFINITY));
  if (outside === 0 || !(outside <= RECENT_ROWS_MAX)) return null;

  const total = await table.countRows();
  const [first] = await readRows(table.query().select(['chunk_id']).withRowId().offset(total - outside).limit(1));
  if (!first) return null;
  const fromFragment = fragmentOf(first);
  if ((await table.countRows(fromFragmentOn(fromFragment))) !== outside) return null;

  const earlier = previous instanceof HeldRows && previous.fromFragment === fromFragment && previous.texts.fits(cjk, words) ? previous : null;
  const held = (earlier && (await heldSince(earlier))) ?? (await heldSince(null));
  if (!held || held.rows.size !== outside) return null;
  return new HeldRows(held.rows, fromFragment, held.toFragment, held.texts);

  /** The rows from `fromFragment` on, those of `before` still there taken from it; null when they do not add up. */
  async function heldSince(before: HeldRows | null): Promise<{ rows: Map<string, Held>; toFragment: number; texts: HeldTexts } | null> {
    const added = await table
      .query()
      .where(fromFragmentOn(before ? before.toFragment + 1 : fromFragment))
      .select([...hitColumns(hasPart), 'owned', ...(cjk ? [CJK_COLUMN] : [])])
      .withRowId()
      .toArrow();
    const rows = new Map<string, Held>();
    if (before) {
      if (outside - added.numRows === before.held.size) {
        // None of the rows held before was deleted since: new rows go into new fragments, so the count tells.
        for (const [chunkId, kept] of before.held) rows.set(chunkId, kept);
      } else {
        // Which of them are still there.
        const ids = await readRows(table.query().where(fromFragmentOn(fromFragment)).select(['chunk_id']).withRowId());
        for (const row of ids) {
          if (fragmentOf(row) > before.toFragment) continue;
          const kept = before.held.get(String(row.chunk_id));
          if (!kept) return null;
          rows.set(kept.hit.chunkId, kept);
        }
      }
    }
    let toFragment = before?.toFragment ?? fromFragment;
    for (const row of rowsOf(added)) {
      const hit = hitOf(row, 0);
      toFragment = Math.max(toFragment, fragmentOf(row));
      rows.set(hit.chunkId, { hit, norm: normOf(hit.vector!), owned: String(row.owned) });
    }
    const textColumns = added.select(['chunk_id', 'session_id', 'text', ...(cjk ? [CJK_COLUMN] : [])]);
    const texts = before ? await before.texts.adding(textColumns) : await HeldTexts.of(textColumns, cjk, words);
    return { rows, toFragment, texts };
  }
}

/**
 * The texts of the held rows in a LanceDB table in memory, with the store's full-text indexes. Shared
 * by the versions that hold rows from the same fragment on: a later version adds its new rows. A row
 * deleted since stays in it; what a version finds there is kept only when the version holds it.
 */
class HeldTexts {
  static async of(data: ArrowTable, cjk: boolean, words: boolean): Promise<HeldTexts> {
    const db = await lancedb.connect('memory://');
    try {
      const table = await db.createTable('recent', data);
      await table.createIndex('text', { config: words ? wordIndex() : ngramIndex() });
      if (cjk) await table.createIndex(CJK_COLUMN, { config: ngramIndex() });
      return new HeldTexts(db, table, cjk, words, data.numRows);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  private constructor(
    private readonly db: lancedb.Connection,
    readonly table: lancedb.Table,
    readonly cjk: boolean,
    readonly words: boolean,
    /** Rows in the table, deleted ones included. */
    public rows: number,
  ) {}

  fits(cjk: boolean, words: boolean): boolean {
    return this.cjk === cjk && this.words === words;
  }

  /**
   * This table with `data` added. The added rows are indexed once UNINDEXED_TEXTS_MAX of them wait:
   * until then the in-memory table's own queries read them in full, a few hundred short texts.
   */
  async adding(data: ArrowTable): Promise<HeldTexts> {
    if (data.numRows === 0) return this;
    await this.table.add(data);
    this.rows += data.numRows;
    this.unindexed += data.numRows;
    if (this.unindexed >= UNINDEXED_TEXTS_MAX) {
      await this.table.optimize();
      this.unindexed = 0;
    }
    return this;
  }

  /** Rows added since the indexes were last brought up to date. */
  private unindexed = 0;

  close(): void {
    this.table.close();
    this.db.close();
  }
}

class HeldRows implements RecentRows {
  constructor(
    readonly held: Map<string, Held>,
    /** The first fragment none of whose rows the indexes cover; every later fragment is outside them too. */
    readonly fromFragment: number,
    /** The last fragment read. */
    readonly toFragment: number,
    readonly texts: HeldTexts,
  ) {}

  get rows(): number {
    return this.held.size;
  }

  get cjk(): boolean {
    return this.texts.cjk;
  }

  nearest(vector: Float32Array, limit: number, sessionId?: string, excludeChunkId?: string): VectorHit[] {
    const norm = normOf(vector);
    const scored: VectorHit[] = [];
    for (const { hit, norm: rowNorm } of this.held.values()) {
      if ((sessionId && hit.sessionId !== sessionId) || hit.chunkId === excludeChunkId) continue;
      const row = hit.vector!;
      scored.push({ ...hit, distance: cosineDistance(vector, norm, row, 0, row.length, rowNorm) });
    }
    return inStableOrder(scored).slice(0, limit);
  }

  ofSessions(sessionIds: ReadonlySet<string>): Array<{ sessionId: string; seq: number; part: number; owned: string; hit: VectorHit }> {
    const found: Array<{ sessionId: string; seq: number; part: number; owned: string; hit: VectorHit }> = [];
    for (const { hit, owned } of this.held.values()) if (sessionIds.has(hit.sessionId)) found.push({ sessionId: hit.sessionId, seq: hit.seq ?? 0, part: hit.part ?? -1, owned, hit });
    return found;
  }

  async matching(column: string, query: string | lancedb.FullTextQuery, limit: number, sessionId?: string): Promise<VectorHit[]> {
    // Rows this version does not hold (deleted since, or added by a later version) may be among the table's best: asked for as many more.
    let search = this.texts.table.query().fullTextSearch(query, { columns: [column] }).limit(limit + (this.texts.rows - this.held.size)).select(['chunk_id', '_score']);
    if (sessionId) search = search.where(`session_id = ${sqlString(sessionId)}`);
    const found = await readRows(search);
    const hits: VectorHit[] = [];
    const seen = new Set<string>();
    for (const row of found) {
      const chunkId = String(row.chunk_id);
      const held = this.held.get(chunkId);
      // A row rewritten in place is in the table once per write: its first (best) score counts.
      if (!held || seen.has(chunkId)) continue;
      seen.add(chunkId);
      hits.push({ ...held.hit, distance: -Number(row._score) });
    }
    return hits.slice(0, limit);
  }

  sharesTextsWith(other: RecentRows): boolean {
    return other instanceof HeldRows && other.texts === this.texts;
  }

  close(): void {
    this.texts.close();
  }
}
