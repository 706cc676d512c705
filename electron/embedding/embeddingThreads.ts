/**
 * How the model's threads wait. ONNX Runtime runs a model call on a pool of threads (one per core),
 * and by default those threads spin for a while after each call, waiting for the next. A save embeds
 * in bursts: an edit embeds one text and then commits, and the spinning thread takes a core from that
 * commit. Measured on 2 cores (an edit of a 2,200-message session, 30 edits): the spinning thread used
 * about 37 ms of CPU an edit, for one text that takes 5 ms to embed; beside a process busy on one core,
 * an edit took 91-102 ms with spinning threads and 60-63 ms with threads that sleep. Embedding many
 * texts at once runs as fast either way (within 2%: `npm run bench:embed`), since the threads then
 * have work waiting.
 */

/**
 * The session options of a model: threads that sleep while they wait, unless `spinning`; `threads`
 * of them when given (ONNX Runtime's default: one a core).
 */
export function modelSessionOptions(spinning: boolean, threads?: number): { extra?: Record<string, unknown>; intraOpNumThreads?: number } {
  return { ...(spinning ? {} : { extra: { session: { intra_op: { allow_spinning: '0' } } } }), ...(threads === undefined ? {} : { intraOpNumThreads: threads }) };
}
