/**
 * Where a save's time goes: the save pipeline times each of its phases with `performance.now()` (a
 * few dozen calls a save) and hands the totals to `MemoryEngineOptions.onSaveTimings`. The
 * benchmarks read them; the save report, which people read, does not carry them.
 *
 * Phases run one after another on the save's own path, so their sum is the save's time less what is
 * not timed (`otherMs`: hashing, building rows, the report). Embedding that overlaps a commit
 * counts only the time the save waited for the model.
 */

export const SAVE_PHASES = [
  /** The write lock (and on a store in a bucket, the store's lease). */
  'lock',
  /** Reading the archive record (a cache: one file read per process, then a stat). */
  'record',
  /** Validating the input, hashing messages, redacting secrets. */
  'normalize',
  /** A store of an earlier layout brought up to date, owed forget or purge work. */
  'upgrade',
  /** Reading the session's chunk heads and sorting messages into new, changed and unchanged; placing new ones. */
  'diff',
  /** Numbering a session's messages afresh when no position is left between two (a rare commit). */
  'renumber',
  /** Cutting messages into chunks, reopening the last chunk, rebuilding chunks around edits. */
  'chunking',
  /** Looking up vectors the store already holds for the chunks' texts. */
  'vectorReuse',
  /** Waiting for the model. */
  'embedding',
  /** The near-duplicate check: the sketch brought up to date, codes compared, candidates read and compared, the journals appended. */
  'nearDuplicates',
  /** Committing chunks (LanceDB merge-insert into `chunks`, and its scalar indexes when missing). */
  'chunkCommit',
  /** The session's row in `sessions` (title, source, parent). */
  'sessionMeta',
  /** Looking for the session this one branched from, and those that branched from it (a `state` commit when that changed). */
  'forks',
  /** The periodic compaction, when commits have piled up. */
  'optimize',
  /** Writing the archive record. */
  'recordWrite',
  /** The save's row in `history`. */
  'historyCommit',
  /** Giving the lock back. */
  'release',
] as const;

export type SavePhase = (typeof SAVE_PHASES)[number];

export interface SaveTimings {
  sessionId: string;
  /** From the call to the lock's release, in milliseconds. */
  totalMs: number;
  /** Milliseconds per phase that ran. */
  phases: Partial<Record<SavePhase, number>>;
  /** What no phase timed. */
  otherMs: number;
  /** False when the save failed or was cancelled. */
  ok: boolean;
  /** Each timed step as it ran: its phase, start and end (`performance.now()`), for a benchmark to tell which step sent a request. */
  spans: ReadonlyArray<readonly [SavePhase, number, number]>;
}

export class SaveClock {
  private readonly ms: Partial<Record<SavePhase, number>> = {};
  private readonly spans: Array<readonly [SavePhase, number, number]> = [];
  private readonly started = performance.now();

  /** Runs `job`, adding its time to `phase`. */
  async time<T>(phase: SavePhase, job: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await job();
    } finally {
      this.add(phase, performance.now() - started);
    }
  }

  /** Adds `ms` to `phase`: a step that ended now. */
  add(phase: SavePhase, ms: number): void {
    this.ms[phase] = (this.ms[phase] ?? 0) + ms;
    const end = performance.now();
    this.spans.push([phase, end - ms, end]);
  }

  result(sessionId: string, ok: boolean): SaveTimings {
    const totalMs = performance.now() - this.started;
    const timed = Object.values(this.ms).reduce((sum, ms) => sum + ms, 0);
    return { sessionId, totalMs, phases: { ...this.ms }, otherMs: Math.max(0, totalMs - timed), ok, spans: [...this.spans] };
  }
}
