/**
 * The embedder used by the engine: a worker thread running transformers.js.
 * Batches are queued to the worker as fast as they are asked for, so the caller can write the
 * previous batch to the store while the next one is being embedded.
 */
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { EngineError } from '../../shared/errors.js';
import { resolveModel, type ModelSpec } from './models.js';
import type { WorkerRequest, WorkerResponse } from './protocol.js';

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
}

export class WorkerEmbedder implements Embedder {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: WorkerResponse) => void; reject: (error: Error) => void }>();
  private closed = false;

  private readyInfo = { dim: 0, maxTokens: 0, loadMs: 0 };

  private constructor(
    private readonly worker: Worker,
    readonly model: string,
    onProgress?: (progress: DownloadProgress) => void,
  ) {
    worker.on('message', (message: WorkerResponse) => this.receive(message, onProgress));
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', (code) => {
      if (!this.closed) this.failAll(new Error(`the embedding worker stopped (exit code ${code})`));
    });
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

  static async start(modelName: string, options: WorkerEmbedderOptions): Promise<WorkerEmbedder> {
    const spec: ModelSpec = resolveModel(modelName, options.modelsDir);
    const worker = new Worker(options.workerUrl ?? defaultWorkerUrl());
    const embedder = new WorkerEmbedder(worker, spec.name, options.onDownloadProgress);
    try {
      const ready = await embedder.request({ type: 'init', id: 0, spec });
      if (ready.type !== 'ready') throw new Error('unexpected answer from the embedding worker');
      embedder.readyInfo = { dim: ready.dim, maxTokens: ready.maxTokens, loadMs: ready.loadMs };
    } catch (error) {
      await embedder.close();
      throw error;
    }
    return embedder;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const answer = await this.request({ type: 'embed', id: 0, texts });
    if (answer.type !== 'vectors') throw new Error('unexpected answer from the embedding worker');
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) out.push(answer.data.subarray(i * answer.dim, (i + 1) * answer.dim));
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.failAll(new EngineError('cancelled', 'the embedder was closed'));
    await this.worker.terminate();
  }

  private request(message: WorkerRequest): Promise<WorkerResponse> {
    if (this.closed) return Promise.reject(new EngineError('cancelled', 'the embedder was closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  private receive(message: WorkerResponse, onProgress?: (progress: DownloadProgress) => void): void {
    if (message.type === 'progress') {
      onProgress?.(message);
      return;
    }
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (message.type === 'error') {
      waiter.reject(new EngineError(message.code === 'model_unavailable' ? 'model_unavailable' : 'internal', message.message));
    } else {
      waiter.resolve(message);
    }
  }

  private failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
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
