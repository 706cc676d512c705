/**
 * How the model's threads run.
 *
 * Waiting: ONNX Runtime runs a model call on a pool of threads (one per core), and by default those
 * threads spin for a while after each call, waiting for the next. A save embeds in bursts: an edit
 * embeds one text and then commits, and the spinning thread takes a core from that commit. Measured
 * on 2 cores (an edit of a 2,200-message session, 30 edits): the spinning thread used about 37 ms of
 * CPU an edit, for one text that takes 5 ms to embed; beside a process busy on one core, an edit took
 * 91-102 ms with spinning threads and 60-63 ms with threads that sleep. Embedding many texts at once
 * runs as fast either way (within 2%: `npm run bench:embed`), since the threads then have work waiting.
 *
 * How many: the offline model's calls are small (at most 1,024 padded tokens, lengthGroups.ts), and a
 * second thread in one call adds little; a second worker running another call beside it nearly
 * doubles what two cores embed. So when the embedder runs several workers, each runs the model on one
 * thread (embedder.ts); a single worker keeps one thread per core.
 */

export interface ModelThreads {
  /** Let the threads spin while they wait for work, as ONNX Runtime does by default. */
  spinning: boolean;
  /** Threads a model call runs on (default: ONNX Runtime's, one per core). */
  threads?: number;
}

/** The session options of a model for `threads`. */
export function modelSessionOptions(threads: ModelThreads): { extra?: Record<string, unknown>; intraOpNumThreads?: number } {
  return {
    ...(threads.spinning ? {} : { extra: { session: { intra_op: { allow_spinning: '0' } } } }),
    ...(threads.threads ? { intraOpNumThreads: threads.threads } : {}),
  };
}
