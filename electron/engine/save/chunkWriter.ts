/** The last step of a save: planned chunks become embedded rows in the store. */
import type { SaveProgress, SaveReport } from '../../../shared/domain.js';
import type { PlannedChunk } from './chunker.js';
import { keysByTextHash } from './chunkKey.js';
import { WRITE_BATCH_CHUNKS, type EngineContext, type SaveCallOptions } from '../context.js';
import { EngineError } from '../errors.js';
import { crashPoint } from '../files/crashPoints.js';
import { assertWriteLock } from '../files/writeLock.js';
import type { ChunkRecord, OwnedMessage } from '../store/store.js';
import type { SaveClock } from './saveTimings.js';

const EMBED_BATCH = 32;
/** Batches kept in flight in the worker while the previous ones are written. */
const EMBED_LOOKAHEAD = 3;
/**
 * New texts are embedded in windows of this many, shortest first within each: the model pads every
 * text of a batch to the batch's longest, so batches of like lengths spend less of its time on
 * padding (a first save of a 2,000-message session: chunks of 10 to 128 tokens). The window bounds
 * how long a commit waits for the vectors of its chunks (4 write batches).
 */
export const EMBED_SORT_WINDOW = 4 * WRITE_BATCH_CHUNKS;

/** Batches of EMBED_BATCH in plan order by windows, each window sorted by length (stable: equal lengths keep their order). */
export function lengthSortedBatches<T>(items: readonly T[], lengthOf: (item: T) => number, window = EMBED_SORT_WINDOW): T[][] {
  const batches: T[][] = [];
  for (let w = 0; w < items.length; w += window) {
    const sorted = items.slice(w, w + window).map((item) => ({ item, length: lengthOf(item) })).sort((a, b) => a.length - b.length).map((x) => x.item);
    for (let i = 0; i < sorted.length; i += EMBED_BATCH) batches.push(sorted.slice(i, i + EMBED_BATCH));
  }
  return batches;
}
const NO_VECTOR = new Float32Array(0);

/**
 * Embeds planned chunks and writes them with their messages. Each commit is whole; chunks are cut
 * into commits only where a turn begins, so a save that dies between commits and is run again
 * continues with exactly the chunks a clean run would have written.
 */
export class ChunkWriter {
  readonly written: ChunkRecord[] = [];
  readonly removed = new Set<string>();
  /** Texts (by hash) this save embedded: no chunk held them before it. */
  readonly freshHashes = new Set<string>();
  commits = 0;
  cancelled = false;
  /** Told of each batch of texts embedded while later batches are still in the worker (the near-duplicate precheck). */
  onEmbedded: ((hashes: readonly string[], vectors: readonly Float32Array[]) => void) | null = null;

  constructor(
    private readonly ctx: EngineContext,
    private readonly sessionId: string,
    private readonly options: SaveCallOptions,
    private readonly report: SaveReport,
    private readonly progress: (phase: SaveProgress['phase'], done: number, total: number) => void,
    private readonly clock: SaveClock,
  ) {}

  removedIds(): string[] {
    return [...this.removed];
  }

  /** Plans that must land in a single commit (rebuilt chunks with their deletions; overwrites). */
  async writeAll(plan: PlannedChunk[], owned: Map<string, OwnedMessage>, removal: { replaceSession: boolean; removedIds: string[] }): Promise<void> {
    const vectors = await this.vectorsFor(plan);
    // A dry run reads no vectors: its records are only counted.
    const records = plan.map((c) => this.toRecord(c, vectors.get(c.textHash) ?? NO_VECTOR, owned));
    if (this.options.dryRun) {
      this.count(records, removal.removedIds);
      return;
    }
    this.throwIfAborted();
    this.progress('writing', 0, records.length);
    assertWriteLock(this.ctx.dataDir);
    await this.clock.time('chunkCommit', () => this.ctx.store.commit(records, { sessionId: this.sessionId, chunkIds: removal.removedIds, allOthers: removal.replaceSession }));
    this.commits++;
    this.count(records, removal.removedIds);
  }

  /**
   * New chunks: embedding of later batches overlaps the writing of earlier ones. `storedIds`: the
   * ids of the session's chunks read from the store under the write lock; chunks whose ids are
   * neither among them nor written by this save are appended, not merged (ChunkStore.commit).
   */
  async writeStreaming(plan: PlannedChunk[], owned: Map<string, OwnedMessage>, storedIds: ReadonlySet<string> | null = null): Promise<void> {
    if (this.options.dryRun) {
      const vectors = await this.vectorsFor(plan);
      this.count(plan.map((c) => this.toRecord(c, vectors.get(c.textHash) ?? NO_VECTOR, owned)), []);
      return;
    }
    const unique = keysByTextHash(plan);
    // Texts another session (or an earlier save) already embedded keep their vectors.
    const vectors = unique.size > 0 ? await this.clock.time('vectorReuse', () => this.ctx.store.vectorsByTextHash([...unique.keys()])) : new Map<string, Float32Array>();
    const hashes = [...unique.keys()].filter((h) => !vectors.has(h));
    const embedder = hashes.length > 0 ? await this.clock.time('embedding', () => this.ctx.embedder()) : null;
    const batches = lengthSortedBatches(hashes, (h) => unique.get(h)!.length);
    const inFlight: Array<Promise<Float32Array[]>> = [];
    const launch = (index: number) => {
      const batch = batches[index];
      if (batch) inFlight[index] = embedder!.embed(batch.map((h) => unique.get(h)!));
    };
    for (let i = 0; i < EMBED_LOOKAHEAD; i++) launch(i);

    const batchSize = this.ctx.options.writeBatchChunks ?? WRITE_BATCH_CHUNKS;
    let pending: ChunkRecord[] = [];
    let next = 0; // next chunk of the plan to turn into a record
    this.progress('embedding', 0, plan.length);
    const flush = async () => {
      if (pending.length === 0) return;
      crashPoint('write-batch');
      assertWriteLock(this.ctx.dataDir);
      const writtenIds = new Set(this.written.map((r) => r.chunkId));
      const absent = storedIds !== null && pending.every((r) => !storedIds.has(r.chunkId) && !writtenIds.has(r.chunkId));
      await this.clock.time('chunkCommit', () => this.ctx.store.commit(pending, { sessionId: this.sessionId, absent }));
      this.commits++;
      this.count(pending, []);
      pending = [];
    };
    /** Turns the chunks whose vectors are known into records, committing as batches fill; false when cancelled. */
    const drain = async (): Promise<boolean> => {
      while (next < plan.length && vectors.has(plan[next]!.textHash)) {
        const chunk = plan[next]!;
        // Cut commits only where a turn begins (see the class comment).
        if (pending.length >= batchSize && chunk.startsTurn) {
          if (this.options.signal?.aborted) {
            this.cancelled = true;
            return false;
          }
          await flush();
        }
        pending.push(this.toRecord(chunk, vectors.get(chunk.textHash)!, owned));
        next++;
      }
      this.progress('embedding', next, plan.length);
      return true;
    };
    try {
      if (!(await drain())) return;
      for (let b = 0; b < batches.length; b++) {
        const result = await this.clock.time('embedding', () => inFlight[b]!);
        launch(b + EMBED_LOOKAHEAD);
        this.report.embeddingsComputed += result.length;
        batches[b]!.forEach((hash, i) => {
          vectors.set(hash, result[i]!);
          this.freshHashes.add(hash);
        });
        this.onEmbedded?.(batches[b]!, result);
        if (!(await drain())) return;
      }
      await flush();
    } finally {
      // Settle batches still in the worker so none rejects unobserved.
      await Promise.allSettled(inFlight);
    }
    this.progress('done', plan.length, plan.length);
  }

  private throwIfAborted(): void {
    if (this.options.signal?.aborted) throw new EngineError('cancelled', `save of ${this.sessionId} cancelled before anything was written`);
  }

  private count(records: ChunkRecord[], removedIds: readonly string[]): void {
    const writtenIds = new Set(records.map((r) => r.chunkId));
    this.written.push(...records);
    this.report.chunksWritten += records.length;
    this.report.chunkIds.push(...records.map((r) => r.chunkId));
    for (const id of removedIds) {
      if (writtenIds.has(id) || this.removed.has(id)) continue;
      this.removed.add(id);
      this.report.chunksDeleted++;
    }
  }

  /** Vectors for a plan: reused from any stored chunk with the same text, embedded otherwise. */
  private async vectorsFor(plan: PlannedChunk[]): Promise<Map<string, Float32Array>> {
    const hashes = [...new Set(plan.map((c) => c.textHash))];
    if (this.options.dryRun) {
      // Only counted: the stored vectors are not read (a preview of a large export runs thousands of these).
      const stored = hashes.length > 0 ? await this.ctx.store.storedTextHashes(hashes) : new Set<string>();
      this.report.embeddingsComputed += hashes.filter((h) => !stored.has(h)).length;
      return new Map();
    }
    const vectors = hashes.length > 0 ? await this.clock.time('vectorReuse', () => this.ctx.store.vectorsByTextHash(hashes)) : new Map<string, Float32Array>();
    const missing = hashes.filter((h) => !vectors.has(h));
    if (missing.length === 0) return vectors;
    const texts = keysByTextHash(plan);
    const embedder = await this.clock.time('embedding', () => this.ctx.embedder());
    this.progress('embedding', 0, missing.length);
    let done = 0;
    for (const batch of lengthSortedBatches(missing, (h) => texts.get(h)!.length)) {
      this.throwIfAborted();
      const result = await this.clock.time('embedding', () => embedder.embed(batch.map((h) => texts.get(h)!)));
      batch.forEach((h, j) => {
        vectors.set(h, result[j]!);
        this.freshHashes.add(h);
      });
      this.report.embeddingsComputed += batch.length;
      done += batch.length;
      this.progress('embedding', done, missing.length);
    }
    return vectors;
  }

  private toRecord(chunk: PlannedChunk, vector: Float32Array, owned: Map<string, OwnedMessage>): ChunkRecord {
    const first = chunk.segments[0]!;
    const ownedHere = chunk.segments.filter((s) => s.part === 0).map((s) => owned.get(s.msgId)!);
    return {
      chunkId: chunk.chunkId,
      sessionId: this.sessionId,
      // Ordered by the pair, never a number packing both (inChunkOrder).
      seq: owned.get(first.msgId)?.seq ?? 0,
      part: first.part,
      text: chunk.text,
      textHash: chunk.textHash,
      vector,
      msgIds: chunk.msgIds,
      owned: ownedHere,
      createdAt: Date.now(),
    };
  }
}
