/**
 * The embedding worker: loads one model with transformers.js (onnxruntime-node on the CPU) and
 * embeds batches of texts, so model loading and inference never block the thread that serves
 * the UI or the CLI.
 */
import { parentPort } from 'node:worker_threads';
import path from 'node:path';
import { promises as fs } from 'node:fs';
import type { ModelSpec } from './models.js';
import { modelSessionOptions } from './embeddingThreads.js';
import { KNOWN_WINDOWS } from './models.js';
import type { WorkerRequest, WorkerResponse } from './protocol.js';
import type { UseLiteEnPrecision } from './useLiteEn.js';

type EmbedFn = (texts: string[]) => Promise<Float32Array[]>;

let embed: EmbedFn | null = null;

function post(message: WorkerResponse, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

async function load(spec: ModelSpec, groupTokens: number | undefined, spinning: boolean, precision: UseLiteEnPrecision | undefined, threads: number | undefined): Promise<{ fn: EmbedFn; maxTokens: number }> {
  if (spec.kind === 'builtin') {
    const { ensureUseLiteEn, loadUseLiteEn } = await import('./useLiteEn.js');
    await ensureUseLiteEn(spec.modelsDir);
    return { fn: await loadUseLiteEn(spec.modelsDir, { spinning, ...(groupTokens === undefined ? {} : { groupTokens }), ...(precision === undefined ? {} : { precision }), ...(threads === undefined ? {} : { threads }) }), maxTokens: KNOWN_WINDOWS[spec.name] ?? 128 };
  }
  const transformers = await import('@huggingface/transformers');
  const { env, pipeline } = transformers;
  let modelId: string;
  if (spec.kind === 'local') {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = path.dirname(spec.dir) + path.sep;
    modelId = path.basename(spec.dir);
  } else {
    env.allowRemoteModels = true;
    env.allowLocalModels = true;
    // A mirror of the hub, where the hub itself is out of reach.
    if (process.env.SESSION_MEMORY_HUB_URL) env.remoteHost = process.env.SESSION_MEMORY_HUB_URL;
    env.cacheDir = spec.modelsDir;
    env.localModelPath = spec.modelsDir + path.sep;
    modelId = spec.name;
  }
  let extractor;
  try {
    extractor = await pipeline('feature-extraction', modelId, {
      dtype: spec.kind === 'hub' ? 'q8' : 'fp32',
      session_options: modelSessionOptions(spinning, threads),
      progress_callback: (info: { status?: string; file?: string; loaded?: number; total?: number }) => {
        if (info.status === 'progress' || info.status === 'download' || info.status === 'done') {
          post({ type: 'progress', file: info.file ?? '', loaded: info.loaded ?? 0, total: info.total ?? 0, status: info.status });
        }
      },
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const where = spec.kind === 'hub' ? `could not be downloaded from the Hugging Face hub (${reason})` : `could not be loaded from ${spec.dir} (${reason})`;
    throw Object.assign(new Error(`embedding model "${spec.name}" ${where}. Without internet, use the offline English model: --model use-lite-en, or --model <folder> with a local transformers.js model (config.json, tokenizer.json, onnx/model.onnx)`), { code: 'model_unavailable' });
  }
  const maxTokens = KNOWN_WINDOWS[spec.name] ?? (await readWindow(spec, modelId));
  const fn: EmbedFn = async (texts) => {
    const output = await extractor(texts, { pooling: 'mean', normalize: true });
    const dim = output.dims[output.dims.length - 1]!;
    const data = output.data as Float32Array;
    return texts.map((_, i) => data.slice(i * dim, (i + 1) * dim));
  };
  return { fn, maxTokens };
}

async function readWindow(spec: ModelSpec, modelId: string): Promise<number> {
  const dir = spec.kind === 'local' ? spec.dir : path.join(spec.kind === 'hub' ? spec.modelsDir : '', modelId);
  try {
    const config = JSON.parse(await fs.readFile(path.join(dir, 'tokenizer_config.json'), 'utf8')) as { model_max_length?: number };
    return Math.min(512, config.model_max_length ?? 512);
  } catch {
    return 256;
  }
}

parentPort!.on('message', async (request: WorkerRequest) => {
  // Handled only when this thread runs JavaScript, so never inside a model call: the thread ends there.
  if (request.type === 'stop') process.exit(0);
  try {
    if (request.type === 'init') {
      const started = performance.now();
      const loaded = await load(request.spec, request.groupTokens, request.spinning ?? false, request.precision, request.threads);
      embed = loaded.fn;
      const [probe] = await embed(['dimension probe']);
      post({ type: 'ready', id: request.id, dim: probe!.length, maxTokens: loaded.maxTokens, loadMs: performance.now() - started });
      return;
    }
    if (!embed) throw new Error('the embedding model is not loaded');
    const vectors = await embed(request.texts);
    const dim = vectors[0]?.length ?? 0;
    const data = new Float32Array(vectors.length * dim);
    vectors.forEach((v, i) => data.set(v, i * dim));
    post({ type: 'vectors', id: request.id, dim, data }, [data.buffer]);
  } catch (error) {
    const code = (error as { code?: string }).code === 'model_unavailable' ? 'model_unavailable' : 'internal';
    post({ type: 'error', id: request.id, code, message: error instanceof Error ? error.message : String(error) });
  }
});
