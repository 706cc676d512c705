import type { ModelSpec } from './models.js';
import type { UseLiteEnPrecision } from './useLiteEn.js';

/** Messages between the embedder and its worker thread. */
export type WorkerRequest =
  /** `threads`: the model's threads (ONNX Runtime's intra-op threads; default one a core). */
  | { type: 'init'; id: number; spec: ModelSpec; groupTokens?: number; spinning?: boolean; precision?: UseLiteEnPrecision; threads?: number }
  | { type: 'embed'; id: number; texts: string[] }
  /** Exit between two model calls (see WorkerEmbedder's stop). */
  | { type: 'stop'; id: number };

export type WorkerResponse =
  | { type: 'ready'; id: number; dim: number; maxTokens: number; loadMs: number }
  | { type: 'vectors'; id: number; dim: number; data: Float32Array }
  | { type: 'error'; id: number; code: string; message: string }
  | { type: 'progress'; file: string; loaded: number; total: number; status: string };
