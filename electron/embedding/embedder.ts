/**
 * The embedder used by the engine: worker threads running the model (ONNX Runtime, through
 * transformers.js for models other than the built-in one).
 * Batches are queued to the workers as fast as they are asked for, so the caller can write the
 * previous batch to the store while the next one is being embedded.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { EngineError } from '../../shared/errors.js';
import { OFFLINE_MODEL, resolveModel, type ModelSpec } from './models.js';
import type { WorkerRequest, WorkerResponse } from './protocol.js';
import type { UseLiteEnPrecision } from './useLiteEn.js';

export interface Embedder {
  /** The model's name as the store records it. */
  readonly model: string;
  readonly dim: number;
  /** The model's input window in tokens: chunks are cut to fit it. */
  readonly maxTokens: number;
  embed(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export interface DownloadProgress {
  file: string;
  loaded: number;
  total: number;
  status: string;
}

export interface WorkerEmbedderOptions {
  modelsDir: string;
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** The worker script; a packaged build passes its compiled worker. */
  workerUrl?: URL | undefined;
  /** How long one batch may take before the worker is taken to be stuck (default BATCH_TIMEOUT_MS). */
  batchTimeoutMs?: number;
  /**
   * use-lite-en: padded tokens per model call, a request being embedded in groups of like token
   * lengths (default GROUP_TOKENS, lengthGroups.ts); 0 embeds each request in one call.
   */
  groupTokens?: number;
  /**
   * Let the model's threads spin while they wait for work, as ONNX Runtime does by default (a plain
   * transformers.js caller; the peer of `npm run bench:peer`). Off by default: embeddingThreads.ts.
   */
  spinning?: boolean;
  /** use-lite-en only: its int8 graph (default) or its float32 one (see UseLiteEnOptions). */
  precision?: UseLiteEnPrecision;
  /**
   * How many workers may embed side by side, each with its own copy of the model and a share of the
   * cores for its threads (default: defaultWorkers). The first starts with the embedder; another
   * only when requests pile up on the running ones (SPARE_AFTER), so one-text requests (a search, an
   * edit) and short bursts never start it.
   */
  workers?: number;
  /** How long a worker other than the first may have nothing to do before it ends (default SPARE_IDLE_MS). */
  spareIdleMs?: number;
}

/**
 * Workers for a model: two for use-lite-en's int8 graph on a machine of two cores or more, else one.
 * That graph runs one text a model call (useLiteEn.ts), calls too small for ONNX Runtime to spread
 * over several threads well: two workers of one thread each embed more texts a second, for less CPU
 * a text, than one worker of two threads (docs/benchmarks.md). The other models run a request's texts
 * in one call, which their threads share; a copy of a model of 118 MB more is not worth it there.
 */
export function defaultWorkers(modelName: string, precision: UseLiteEnPrecision | undefined): number {
  return modelName === OFFLINE_MODEL && (precision ?? 'int8') === 'int8' && os.availableParallelism() >= 2 ? 2 : 1;
}

/**
 * Requests under way on every running worker at which another is started (WorkerEmbedder.placeForRequest):
 * a save keeps three requests of 32 texts in flight, an append of a few dozen texts one or two.
 */
export const SPARE_AFTER = 2;

/** How long a worker other than the first stays with nothing to do before it ends (WorkerEmbedder.retire). */
export const SPARE_IDLE_MS = 30_000;

/** A batch is at most a few dozen chunks: minutes without an answer mean the worker is stuck. */
export const BATCH_TIMEOUT_MS = 5 * 60_000;
/** How long close() waits for the worker to stop before it returns anyway. */
export const CLOSE_DEADLINE_MS = 5_000;

/**
 * If the worker crashes (an exception, out of memory, killed) or a batch gets no answer within the
 * timeout, the requests waiting on it fail with a clear error (so a save fails and releases the
 * write lock instead of waiting forever), and the next request starts a new worker.
 *
 * A worker is stopped by a message, never by `terminate()` while it may be embedding: the model
 * runs in a synchronous native call, and a thread terminated inside it fails as the call returns,
 * which aborts the whole process (onnxruntime-node's binding throws a C++ exception no one catches).
 */
export class WorkerEmbedder implements Embedder {
  private nextId = 1;
  private readonly pending = new Map<number, { worker: Worker; resolve: (value: WorkerResponse) => void; reject: (error: Error) => void; timer?: NodeJS.Timeout }>();
  private closed = false;
  /** The places for workers: each running, starting or empty (never started, or lost). */
  private readonly slots: Array<{ worker: Worker | null; starting: Promise<Worker> | null; underWay: number; idle?: NodeJS.Timeout }>;
  /** Workers whose thread has ended. */
  private readonly exited = new WeakSet<Worker>();
  /** Workers started so far (one per place used, and one more for each that had to be replaced). */
  private starts = 0;

  private readyInfo = { dim: 0, maxTokens: 0, loadMs: 0 };

  private constructor(
    private readonly spec: ModelSpec,
    private readonly options: WorkerEmbedderOptions,
  ) {
    const count = Math.max(1, Math.floor(options.workers ?? defaultWorkers(spec.name, options.precision)));
    this.slots = Array.from({ length: count }, () => ({ worker: null, starting: null, underWay: 0 }));
  }

  get model(): string {
    return this.spec.name;
  }

  get dim(): number {
    return this.readyInfo.dim;
  }

  get maxTokens(): number {
    return this.readyInfo.maxTokens;
  }

  /** How long loading the model took, in ms. */
  get loadMs(): number {
    return this.readyInfo.loadMs;
  }

  /** How many workers are running now. */
  get runningWorkers(): number {
    return this.slots.filter((slot) => slot.worker).length;
  }

  /** How many workers were started: more than the places used after a crash or a stuck batch. */
  get workerStarts(): number {
    return this.starts;
  }

  static async start(modelName: string, options: WorkerEmbedderOptions): Promise<WorkerEmbedder> {
    const embedder = new WorkerEmbedder(resolveModel(modelName, options.modelsDir), options);
    try {
      await embedder.liveWorker(0);
    } catch (error) {
      await embedder.close();
      throw error;
    }
    return embedder;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const answer = await this.request({ type: 'embed', id: 0, texts }, this.options.batchTimeoutMs ?? BATCH_TIMEOUT_MS);
    if (answer.type !== 'vectors') throw new Error('unexpected answer from the embedding worker');
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) out.push(answer.data.subarray(i * answer.dim, (i + 1) * answer.dim));
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.failAll(new EngineError('cancelled', 'the embedder was closed'));
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.idle);
        const worker = slot.worker ?? (await slot.starting?.catch(() => null)) ?? null;
        slot.worker = null;
        if (worker) await this.stop(worker);
      }),
    );
  }

  /**
   * Asks the worker to end its thread, which it does once its current model call returns; resolves
   * when it has, or at the deadline. A worker still inside one call then (a stuck model) is left to
   * end with it, unreferenced, so that it keeps no process alive.
   */
  private stop(worker: Worker): Promise<void> {
    if (this.exited.has(worker)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.unref();
        resolve();
      }, CLOSE_DEADLINE_MS);
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ type: 'stop', id: 0 } satisfies WorkerRequest);
    });
  }

  /** The worker running in a place, or a new one there with the model loaded. */
  private liveWorker(index: number): Promise<Worker> {
    if (this.closed) return Promise.reject(new EngineError('cancelled', 'the embedder was closed'));
    const slot = this.slots[index]!;
    if (slot.worker) return Promise.resolve(slot.worker);
    slot.starting ??= this.startWorker(index).finally(() => (slot.starting = null));
    return slot.starting;
  }

  /**
   * Where the next request goes: the running worker with the fewest requests under way (the first,
   * started, when none runs). When even that one has SPARE_AFTER requests under way, a worker is
   * started in an empty place meanwhile, and takes requests once its model is loaded: a short burst
   * (an append of a few dozen texts, in one or two requests) neither waits for a model to load nor
   * pays for it, and one-text requests in turn all go to the first.
   */
  private placeForRequest(): number {
    const running = this.slots.flatMap((slot, index) => (slot.worker ? [index] : []));
    if (running.length === 0) return 0;
    const best = running.reduce((a, b) => (this.slots[b]!.underWay < this.slots[a]!.underWay ? b : a));
    if (this.slots[best]!.underWay >= SPARE_AFTER) {
      const empty = this.slots.findIndex((slot) => !slot.worker && !slot.starting);
      if (empty >= 0) {
        this.liveWorker(empty).then(
          () => this.idleLater(empty),
          () => {}, // a worker that cannot start now: the running ones serve, and the next burst tries again
        );
      }
    }
    return best;
  }

  private async startWorker(index: number): Promise<Worker> {
    const worker = new Worker(this.options.workerUrl ?? defaultWorkerUrl());
    this.starts++;
    worker.on('message', (message: WorkerResponse) => this.receive(message));
    worker.on('error', (error) => this.lose(worker, new EngineError('internal', `the embedding worker failed: ${error.message}`)));
    worker.on('exit', (code) => {
      this.exited.add(worker);
      this.lose(worker, new EngineError(this.closed ? 'cancelled' : 'internal', `the embedding worker stopped (exit code ${code})`));
    });
    const { groupTokens, spinning, precision } = this.options;
    // Several workers share the cores: each model's threads take its share (one worker: the default, one a core).
    const threads = this.slots.length > 1 ? Math.max(1, Math.floor(os.availableParallelism() / this.slots.length)) : undefined;
    const ready = await this.post(worker, { type: 'init', id: 0, spec: this.spec, ...(groupTokens === undefined ? {} : { groupTokens }), ...(spinning === undefined ? {} : { spinning }), ...(precision === undefined ? {} : { precision }), ...(threads === undefined ? {} : { threads }) }).catch(async (error: unknown) => {
      await this.stop(worker);
      throw error;
    });
    if (ready.type !== 'ready') throw new Error('unexpected answer from the embedding worker');
    this.readyInfo = { dim: ready.dim, maxTokens: ready.maxTokens, loadMs: ready.loadMs };
    if (this.closed) {
      await this.stop(worker);
      throw new EngineError('cancelled', 'the embedder was closed');
    }
    this.slots[index]!.worker = worker;
    return worker;
  }

  /** A worker crashed or stopped: what waited on it fails, and the next request starts another. */
  private lose(worker: Worker, error: Error): void {
    for (const slot of this.slots) if (slot.worker === worker) slot.worker = null;
    this.failAll(error, worker);
  }

  private async request(message: WorkerRequest, timeoutMs?: number): Promise<WorkerResponse> {
    const index = this.placeForRequest();
    const slot = this.slots[index]!;
    slot.underWay++;
    clearTimeout(slot.idle);
    try {
      const worker = await this.liveWorker(index);
      if (this.closed) throw new EngineError('cancelled', 'the embedder was closed');
      return await this.post(worker, message, timeoutMs);
    } finally {
      slot.underWay--;
      this.idleLater(index);
    }
  }

  /** A worker other than the first with nothing under way is retired after `spareIdleMs` (unless a request comes first). */
  private idleLater(index: number): void {
    const slot = this.slots[index]!;
    if (index === 0 || slot.underWay > 0 || this.closed) return;
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => this.retire(index), this.options.spareIdleMs ?? SPARE_IDLE_MS).unref();
  }

  /**
   * Ends the worker of a place other than the first, idle for `spareIdleMs`: a process that saved
   * once and then only searches (an MCP server, a hooks' saver) keeps one copy of the model. The place
   * is emptied first, so a request that comes meanwhile starts another worker there.
   */
  private retire(index: number): void {
    const slot = this.slots[index]!;
    const worker = slot.worker;
    if (!worker || slot.underWay > 0) return;
    slot.worker = null;
    void this.stop(worker);
  }

  private post(worker: Worker, message: WorkerRequest, timeoutMs?: number): Promise<WorkerResponse> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              // Stuck: everything waiting on this worker fails, and it is replaced at the next request.
              const error = new EngineError('internal', `the embedding worker gave no answer in ${Math.round(timeoutMs / 1000)} s; it was stopped and will be restarted`);
              this.lose(worker, error);
              void this.stop(worker);
            }, timeoutMs);
      this.pending.set(id, { worker, resolve, reject, ...(timer ? { timer } : {}) });
      worker.postMessage({ ...message, id });
    });
  }

  private receive(message: WorkerResponse): void {
    if (message.type === 'progress') {
      this.options.onDownloadProgress?.(message);
      return;
    }
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    clearTimeout(waiter.timer);
    if (message.type === 'error') {
      waiter.reject(new EngineError(message.code === 'model_unavailable' ? 'model_unavailable' : 'internal', message.message));
    } else {
      waiter.resolve(message);
    }
  }

  /** Fails what waits on `worker` (on every worker when none is named). */
  private failAll(error: Error, worker?: Worker): void {
    for (const [id, waiter] of this.pending) {
      if (worker && waiter.worker !== worker) continue;
      this.pending.delete(id);
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }
}

/**
 * The worker script: beside this module, or where `$SESSION_MEMORY_EMBED_WORKER` says (the packaged
 * app's CLI runs from inside the asar archive, from which workers cannot start).
 */
function defaultWorkerUrl(): URL {
  const fromEnv = process.env.SESSION_MEMORY_EMBED_WORKER;
  return fromEnv ? pathToFileURL(fromEnv) : new URL('./embedWorker.entry.mjs', import.meta.url);
}
