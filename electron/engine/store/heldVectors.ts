/**
 * The vectors of a store that has no vector index yet, held for searches. Below VECTOR_INDEX_MIN_ROWS
 * chunks (and above it until `maintain` builds the index) LanceDB answers a nearest-vector query by
 * reading every row's vector: on a store of 10,604 chunks of long replies in 15 fragments that took
 * 95-186 ms a query, more than the rest of a search together. A search view therefore reads the
 * vectors once per version it holds (at the next version only the rows of the fragments added since,
 * and which of the earlier rows are still there) and compares them in memory: exactly, as LanceDB's
 * flat search does, with the cosine distance (1 - cosine similarity), ties by chunk id.
 *
 * A row's id (`_rowid`) is its fragment and its place in it; fragments are never written again, only
 * added (a save, a compaction) or have rows deleted, so a row id still there at a later version holds
 * the same row. Rows added since go into fragments after the last one read. When the count of rows
 * held and added is the table's count, none was deleted; otherwise the ids of the earlier fragments'
 * rows (and their chunk ids) tell which are left.
 */
import type * as lancedb from '@lancedb/lancedb';
import { cosineDistance, fragmentOfRowId, fromFragmentOn, normOf } from './heldRows.js';
import { candidateColumns, candidateOf, inStableOrder, type Candidate } from './searchHits.js';
import { readRows, vectorOf, type Row } from './storeRows.js';

/**
 * Past this many rows a store without a vector index is searched in the table, as before: each held
 * row keeps its vector (2 KB for the bundled models' 512 dimensions) and its place, about 45 MB at
 * this count. The vector index is built from VECTOR_INDEX_MIN_ROWS (10,000) rows on.
 */
export const HELD_VECTORS_MAX = 20_000;

export class HeldVectors {
  private constructor(
    /** Each row's place, its row id among them. */
    private readonly candidates: readonly Candidate[],
    /** The rows' vectors one after another, `dim` numbers each. */
    private readonly vectors: Float32Array,
    private readonly norms: Float64Array,
    private readonly dim: number,
    /** The last fragment read; rows added later are in the fragments after it. */
    readonly toFragment: number,
  ) {}

  get rows(): number {
    return this.candidates.length;
  }

  /**
   * The vectors of the table at the version it holds, or null when the searches should read the table:
   * it has a vector index, or more than HELD_VECTORS_MAX rows. `previous`: those held at an earlier
   * version of the same table; its rows still there are not read again.
   */
  static async of(table: lancedb.Table, hasPart: boolean, previous: HeldVectors | null): Promise<HeldVectors | null> {
    if ((await table.listIndices()).some((index) => index.columns[0] === 'vector')) return null;
    const total = await table.countRows();
    if (total > HELD_VECTORS_MAX) return null;
    const from = previous ? previous.toFragment + 1 : 0;
    const added = await readRows(
      table
        .query()
        .where(fromFragmentOn(from))
        .select([...candidateColumns(hasPart), 'vector'])
        .withRowId(),
    );
    // The rows of `previous` still there, by their index in it.
    let kept: number[] = [];
    if (previous) {
      if (previous.rows + added.length === total) kept = previous.candidates.map((_, i) => i);
      else {
        const left = new Map((await readRows(table.query().where(`_rowid < ${BigInt(from) << 32n}`).select(['chunk_id']).withRowId())).map((row) => [BigInt(row._rowid as bigint | number), String(row.chunk_id)]));
        previous.candidates.forEach((candidate, i) => {
          if (left.get(candidate.rowId!) === candidate.chunkId) kept.push(i);
        });
      }
    }
    // Rows written while these were read belong to a later version; and were a table rolled back to
    // an earlier version (`verify --repair`) to write fragments of ids read before (LanceDB, measured,
    // gives the compaction after it new ids), the counts would not add up. All are read again then.
    if (kept.length + added.length !== total) return previous ? HeldVectors.of(table, hasPart, null) : null;
    const addedVectors = added.map((row: Row) => vectorOf(row.vector));
    const dim = previous?.dim ?? addedVectors[0]?.length ?? 0;
    if (addedVectors.some((vector) => vector.length !== dim)) return null;
    const candidates: Candidate[] = [];
    const vectors = new Float32Array(total * dim);
    const norms = new Float64Array(total);
    let at = 0;
    for (const i of kept) {
      candidates.push(previous!.candidates[i]!);
      vectors.set(previous!.vectors.subarray(i * dim, (i + 1) * dim), at * dim);
      norms[at++] = previous!.norms[i]!;
    }
    let toFragment = previous?.toFragment ?? -1;
    added.forEach((row: Row, i) => {
      const candidate = candidateOf(row, 0);
      toFragment = Math.max(toFragment, fragmentOfRowId(candidate.rowId!));
      candidates.push(candidate);
      vectors.set(addedVectors[i]!, at * dim);
      norms[at++] = normOf(addedVectors[i]!);
    });
    return new HeldVectors(candidates, vectors, norms, dim, toFragment);
  }

  /** The nearest `limit` rows to `vector` by cosine distance (of one session, when given), nearest first, ties by chunk id. */
  nearest(vector: Float32Array, limit: number, sessionId?: string): Candidate[] {
    const { candidates, vectors, norms, dim } = this;
    const count = candidates.length;
    const norm = normOf(vector);
    const distances = new Float64Array(count).fill(Number.POSITIVE_INFINITY);
    for (let r = 0; r < count; r++) {
      if (sessionId !== undefined && candidates[r]!.sessionId !== sessionId) continue;
      distances[r] = cosineDistance(vector, norm, vectors, r * dim, dim, norms[r]!);
    }
    // The `limit`-th smallest distance, then the rows within it in order (ties at the cut by chunk id).
    const cut = limit >= count ? Number.POSITIVE_INFINITY : Float64Array.from(distances).sort()[limit - 1]!;
    const near: Candidate[] = [];
    for (let r = 0; r < count; r++) if (distances[r]! <= cut && distances[r]! !== Number.POSITIVE_INFINITY) near.push({ ...candidates[r]!, distance: distances[r]! });
    return inStableOrder(near).slice(0, limit);
  }
}
