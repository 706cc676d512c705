// use-lite-en's ONNX graph, built node by node from the TF.js graph of the npm package (see useLiteEn.ts).
import onnxProto from 'onnx-proto';
import type { onnx as Proto } from 'onnx-proto';
import { OUTPUT_NAME, PACKAGE, USE_LITE_EN, type TfjsGraph, type WeightEntry } from './useLiteEnPackage.js';

const { onnx } = onnxProto;

// ---------------------------------------------------------------------------------------------------------
// The ONNX graph

const ROOT = 'module_apply_default/Encoder_en/KonaTransformer/';
const STACK = `${ROOT}Encode/TransformerStack/`;
const HEAD = 'module_apply_default/Encoder_en/hidden_layers/';
const { FLOAT, INT8, INT64 } = onnx.TensorProto.DataType;

/** ONNX Runtime's own operators (DynamicQuantizeMatMul). */
const ORT_DOMAIN = 'com.microsoft';

export interface BuildOptions {
  /**
   * Every dense layer's kernel in int8 (one scale per output column, symmetric), multiplied by
   * ONNX Runtime's DynamicQuantizeMatMul, which quantizes its input to uint8 at each call with one
   * scale for the whole input. Run one text per call, a text's vector then depends on that text alone.
   */
  quantized?: boolean;
}

/**
 * The TF.js graph works on sparse token lists (indices + values) and scatters/gathers between the real
 * tokens and a dense [batch, seq] layout. With right or left padding and an attention mask the same
 * computation is dense: every op is per token except attention, whose padded keys get a -1e9 bias (their
 * softmax weight is exactly 0), and the final mean, which only counts real tokens. So a text's vector does
 * not depend on what else is in its batch.
 */
export function buildModel(tf: TfjsGraph, options: BuildOptions = {}): Proto.IModelProto {
  const g = new OnnxGraph(options.quantized ?? false);
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
    opsetImport: [{ domain: '', version: 17 }, ...(options.quantized ? [{ domain: ORT_DOMAIN, version: 1 }] : [])], // 17: LayerNormalization
    producerName: 'session-memory',
    docString: `Universal Sentence Encoder Lite (English), converted from ${PACKAGE}@${tf.pkg.version} (Apache-2.0)${options.quantized ? '; dense kernels in int8' : ''}`,
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
  if (g.quantized) {
    const { values, scales } = quantizeColumns(kernel);
    const weights = [g.int8s(`${matmulNode}/kernel_int8`, kernel.shape, values), g.floats(`${matmulNode}/kernel_scale`, scales)];
    return g.op('DynamicQuantizeMatMul', [x, ...weights, '', g.weight(`${biasNode}/bias`, tf.floats(biasNode, 1))], {}, ORT_DOMAIN);
  }
  const product = g.op('MatMul', [x, g.weight(`${matmulNode}/kernel`, tf.floats(matmulNode, 1, shape))]);
  return g.op('Add', [product, g.weight(`${biasNode}/bias`, tf.floats(biasNode, 1))]);
}

/**
 * A [rows, columns] float kernel in int8, symmetric, one scale per column (each output's weights
 * keep their own range): value = round(w / scale), scale = max |w| of the column / 127.
 */
export function quantizeColumns(kernel: WeightEntry): { values: Int8Array; scales: Float32Array } {
  const [rows, columns] = kernel.shape as [number, number];
  const w = new Float32Array(kernel.bytes.buffer.slice(kernel.bytes.byteOffset, kernel.bytes.byteOffset + kernel.bytes.byteLength));
  const scales = new Float32Array(columns);
  for (let c = 0; c < columns; c++) {
    let largest = 0;
    for (let r = 0; r < rows; r++) largest = Math.max(largest, Math.abs(w[r * columns + c]!));
    scales[c] = largest > 0 ? largest / 127 : 1;
  }
  const values = new Int8Array(rows * columns);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) values[r * columns + c] = Math.max(-127, Math.min(127, Math.round(w[r * columns + c]! / scales[c]!)));
  }
  return { values, scales };
}

type Attribute = number | number[] | { float: number };

/** Just enough of an ONNX graph builder: nodes get generated output names, constants become initializers. */
class OnnxGraph {
  readonly nodes: Proto.INodeProto[] = [];
  readonly initializers: Proto.ITensorProto[] = [];
  private readonly names = new Map<string, number>();

  constructor(readonly quantized: boolean) {}

  op(opType: string, inputs: string[], attributes: Record<string, Attribute> = {}, domain?: string): string {
    return this.ops(opType, inputs, 1, attributes, domain)[0] as string;
  }

  ops(opType: string, inputs: string[], outputs: number, attributes: Record<string, Attribute> = {}, domain?: string): string[] {
    const name = this.unique(opType);
    const output = Array.from({ length: outputs }, (_, i) => (outputs === 1 ? name : `${name}_${i}`));
    const attribute = Object.entries(attributes).map(([key, value]): Proto.IAttributeProto => {
      if (Array.isArray(value)) return { name: key, type: onnx.AttributeProto.AttributeType.INTS, ints: value };
      if (typeof value === 'number') return { name: key, type: onnx.AttributeProto.AttributeType.INT, i: value };
      return { name: key, type: onnx.AttributeProto.AttributeType.FLOAT, f: value.float };
    });
    this.nodes.push({ name, opType, input: inputs, output, attribute, ...(domain ? { domain } : {}) });
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

  int8s(name: string, dims: number[], values: Int8Array): string {
    this.initializers.push({ name, dims, dataType: INT8, rawData: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) });
    return name;
  }

  floats(name: string, values: Float32Array): string {
    this.initializers.push({ name, dims: [values.length], dataType: FLOAT, rawData: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) });
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
