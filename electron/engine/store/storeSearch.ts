/**
 * Searching the chunks table: nearest vectors, and full text (words, and n-grams for scripts
 * without spaces), for the reads of a search (searchView.ts).
 */
import * as lancedb from '@lancedb/lancedb';
import { fuseByRank } from '../search/rankFusion.js';
import { CJK_COLUMN, cjkText } from './fullTextLayout.js';
import type { RecentRows } from './recentRows.js';
import { candidateColumns, candidateOf, candidateOfHit, hitColumns, hitOf, inStableOrder, type Candidate } from './searchHits.js';
import { readRows, sqlString, vectorOf, type Row, type VectorHit } from './storeRows.js';

/**
 * The chunks table at the version a search holds, whether it has the `part` column there, and its
 * rows outside the indexes held in memory (recentRows.ts), when the search reads them there: then the
 * table is asked for its indexed rows only and the held rows for the rest.
 */
export interface SearchTable {
  table: lancedb.Table;
  hasPart: boolean;
  recent: RecentRows | null;
}

/**
 * How a search reads its rows: as whole hits, or as candidates (searchHits.ts) with their row ids,
 * whose texts and vectors are read for the few a search keeps (candidateTexts).
 */
interface RowsAs<T extends { chunkId: string; distance: number }> {
  columns(hasPart: boolean): string[];
  rowIds: boolean;
  of(row: Row, distance: number): T;
  /** A hit of a row held in memory (recentRows.ts). */
  held(hit: VectorHit): T;
}

const AS_HITS: RowsAs<VectorHit> = { columns: hitColumns, rowIds: false, of: hitOf, held: (hit) => hit };
const AS_CANDIDATES: RowsAs<Candidate> = { columns: candidateColumns, rowIds: true, of: candidateOf, held: candidateOfHit };

export function vectorSearchIn(chunks: SearchTable, vector: Float32Array, limit: number, sessionId?: string, excludeChunkId?: string): Promise<VectorHit[]> {
  return nearestIn(AS_HITS, chunks, vector, limit, sessionId, excludeChunkId);
}

/** vectorSearchIn's hits as candidates: the same chunks in the same order, without their texts and vectors. */
export function vectorCandidatesIn(chunks: SearchTable, vector: Float32Array, limit: number, sessionId?: string): Promise<Candidate[]> {
  return nearestIn(AS_CANDIDATES, chunks, vector, limit, sessionId);
}

async function nearestIn<T extends { chunkId: string; distance: number }>(as: RowsAs<T>, chunks: SearchTable, vector: Float32Array, limit: number, sessionId?: string, excludeChunkId?: string): Promise<T[]> {
  const filters: string[] = [];
  if (sessionId) filters.push(`session_id = ${sqlString(sessionId)}`);
  if (excludeChunkId) filters.push(`chunk_id != ${sqlString(excludeChunkId)}`);
  const nearest = async (query: lancedb.VectorQuery) => {
    query = query.distanceType('cosine').limit(limit).select([...as.columns(chunks.hasPart), '_distance']);
    if (as.rowIds) query = query.withRowId();
    if (filters.length > 0) query = query.where(filters.join(' AND '));
    return (await readRows(query)).map((r) => as.of(r, Number(r._distance)));
  };
  // With the IVF-PQ index: probe enough partitions and re-rank with exact distances for good recall.
  const indexed = chunks.table.vectorSearch(Array.from(vector)).nprobes(24).refineFactor(refineFactorFor(limit));
  if (!chunks.recent) return inStableOrder(await nearest(indexed));
  return mergedHits(await nearest(indexed.fastSearch()), chunks.recent.nearest(vector, limit, sessionId, excludeChunkId).map(as.held), limit);
}

/**
 * The best `limit` of the hits of the indexed rows and of the held rows, best first. A row
 * an index covers after all (indexes built at different versions) is in both: its stored hit is kept.
 */
function mergedHits<T extends { chunkId: string; distance: number }>(stored: readonly T[], recent: readonly T[], limit: number): T[] {
  const seen = new Set(stored.map((hit) => hit.chunkId));
  return inStableOrder([...stored, ...recent.filter((hit) => !seen.has(hit.chunkId))]).slice(0, limit);
}

/**
 * How many times `limit` the index's nearest candidates are re-ranked by exact distance: at least
 * REFINED_ROWS of them (4x a search's first pool of 40), so that a widened pool (search.ts) ranks its
 * first 40 as the first pool did, without re-reading 4x the rows it asks for.
 */
export function refineFactorFor(limit: number): number {
  return Math.max(1, Math.min(4, Math.ceil(REFINED_ROWS / limit)));
}

const REFINED_ROWS = 160;

/**
 * Full-text search: words through the index on `text`, and, when the query holds Chinese,
 * Japanese, Korean or Thai, its n-grams through the index on `text_cjk`; the two rankings are
 * interleaved (reciprocal rank), one hit per chunk. `hasIndex` says which indexes the table has.
 */
export function textSearchIn(chunks: SearchTable, hasIndex: (column: string) => Promise<boolean>, text: string, limit: number, sessionId?: string): Promise<VectorHit[]> {
  return textMatchesIn(AS_HITS, chunks, hasIndex, text, limit, sessionId);
}

/** textSearchIn's hits as candidates: the same chunks in the same order, without their texts and vectors. */
export function textCandidatesIn(chunks: SearchTable, hasIndex: (column: string) => Promise<boolean>, text: string, limit: number, sessionId?: string): Promise<Candidate[]> {
  return textMatchesIn(AS_CANDIDATES, chunks, hasIndex, text, limit, sessionId);
}

async function textMatchesIn<T extends { chunkId: string; distance: number }>(as: RowsAs<T>, chunks: SearchTable, hasIndex: (column: string) => Promise<boolean>, text: string, limit: number, sessionId?: string): Promise<T[]> {
  const cjk = cjkText(text);
  const [words, grams] = await Promise.all([
    (await hasIndex('text')) ? ftsQuery(as, chunks, 'text', text, limit, sessionId) : [],
    cjk && (await hasIndex(CJK_COLUMN)) ? ftsQuery(as, chunks, CJK_COLUMN, cjk, limit, sessionId) : [],
  ]);
  if (grams.length === 0) return words;
  if (words.length === 0) return grams;
  return fuseByRank([words, grams]).slice(0, limit).map(({ hit, score }) => ({ ...hit, distance: -score }));
}

/**
 * Full-text candidates for chunks that hold one of the `required` words, ranked by the words of
 * `text` too: the best `limit` by all the words together, then those of `alone` (requiredWordsIn,
 * which the caller keeps per version) that are not among them, with their vectors (the caller checks
 * that the word index exists, and which hits hold a required word). Two plain word queries rather
 * than one that requires a word: in LanceDB 0.31 a query with a required clause scores every chunk
 * holding any of its words (20-100 ms at 200k chunks, even when no chunk holds a required word),
 * while a plain one stops at the best `limit`.
 */
export async function textSearchFavouringIn(chunks: SearchTable, required: string, text: string, limit: number, sessionId: string | undefined, alone: Promise<VectorHit[]>): Promise<VectorHit[]> {
  const [together, byRequired] = await Promise.all([
    ftsQuery(AS_HITS, chunks, 'text', new lancedb.MatchQuery(`${required} ${text}`, 'text'), limit, sessionId),
    alone,
  ]);
  const seen = new Set(together.map((hit) => hit.chunkId));
  return [...together, ...byRequired.filter((hit) => !seen.has(hit.chunkId))];
}

/** The best `limit` chunks by the `required` words alone: the same for every question asked of one version of the table. */
export function requiredWordsIn(chunks: SearchTable, required: string, limit: number, sessionId?: string): Promise<VectorHit[]> {
  return ftsQuery(AS_HITS, chunks, 'text', new lancedb.MatchQuery(required, 'text'), limit, sessionId);
}

async function ftsQuery<T extends { chunkId: string; distance: number }>(as: RowsAs<T>, chunks: SearchTable, column: string, text: string | lancedb.FullTextQuery, limit: number, sessionId?: string): Promise<T[]> {
  const matching = async (indexedOnly: boolean) => {
    // Whole hits have their vectors too: a hit found only by its words needs one to be folded with
    // its copies, and reading it with the rest costs no further round trip to object storage.
    let query = chunks.table.query().fullTextSearch(text, { columns: [column] }).limit(limit).select([...as.columns(chunks.hasPart), '_score']);
    if (as.rowIds) query = query.withRowId();
    if (indexedOnly) query = query.fastSearch();
    if (sessionId) query = query.where(`session_id = ${sqlString(sessionId)}`);
    return (await readRows(query)).map((r) => as.of(r, -Number(r._score)));
  };
  const recent = chunks.recent;
  if (!recent || (column === CJK_COLUMN && !recent.cjk)) return inStableOrder(await matching(false));
  const [stored, held] = await Promise.all([matching(true), recent.matching(column, text, limit, sessionId)]);
  return mergedHits(stored, held.map(as.held), limit);
}

/**
 * The hits of these lists of candidates, each with its candidate's distance: their texts and vectors
 * read by row id in one take, one row per text (copies of a text share its text by their text hash,
 * and its vector: a store embeds a text once and gives its copies that vector, storeLookups.ts
 * vectorsByTextHash). A candidate held in memory (recentRows.ts) has its hit already.
 */
export async function candidateTexts(chunks: SearchTable, lists: ReadonlyArray<readonly Candidate[]>): Promise<VectorHit[][]> {
  const byHash = new Map<string, { text: string; vector?: Float32Array }>();
  for (const list of lists) for (const { hit } of list) if (hit && !byHash.has(hit.textHash)) byHash.set(hit.textHash, hit);
  const unread = new Map<string, bigint>();
  for (const list of lists) for (const { textHash, rowId, hit } of list) if (!hit && !byHash.has(textHash) && !unread.has(textHash)) unread.set(textHash, rowId!);
  if (unread.size > 0) {
    for (const row of await readRows(chunks.table.takeRowIds([...unread.values()]).select(['text_hash', 'text', 'vector']))) {
      byHash.set(String(row.text_hash), { text: String(row.text), vector: vectorOf(row.vector) });
    }
  }
  return lists.map((list) =>
    list.map((candidate) => {
      if (candidate.hit) return { ...candidate.hit, distance: candidate.distance };
      const read = byHash.get(candidate.textHash);
      if (!read) throw new Error(`the text of chunk "${candidate.chunkId}" was not found at the version searched`);
      const { rowId: _rowId, hit: _hit, ...rest } = candidate;
      return { ...rest, text: read.text, vector: read.vector };
    }),
  );
}
