// use-lite-en, rebuilt from the TF.js package as ONNX, must reproduce the original tokenizer and encoder:
// golden token ids and vectors come from the TF.js original (@energetic-ai/embeddings). The float32 graph
// reproduces its vectors; the int8 graph the engine embeds with comes within a cosine of 0.998 of them.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureUseLiteEn, loadUseLiteEn, USE_LITE_EN } from '../electron/embedding/useLiteEn.js';
import { chunkDialogue } from '../electron/engine/save/index.js';
import { realisticConversation, seededRandom } from '../scripts/transcriptGenerator.js';
import { TEST_MODELS_DIR, testModelDir } from './helpers/model.js';
import { loadedModules, loadedModulesEnv, loadedOf } from './helpers/loadedModules.js';

interface GoldenCase {
  text: string;
  tokenIds: number[];
  embedding: number[];
}

function readGolden(): GoldenCase[] {
  const raw: unknown = JSON.parse(readFileSync(new URL('./fixtures/use-lite-en-golden.json', import.meta.url), 'utf8'));
  const cases = typeof raw === 'object' && raw !== null && 'cases' in raw ? raw.cases : undefined;
  if (!Array.isArray(cases)) throw new Error('golden file: no cases');
  const numbers = (v: unknown): number[] => {
    if (!Array.isArray(v) || !v.every((n): n is number => typeof n === 'number')) throw new Error('golden file: bad numbers');
    return v;
  };
  return cases.map((c: unknown): GoldenCase => {
    if (typeof c !== 'object' || c === null || !('text' in c) || typeof c.text !== 'string') throw new Error('golden file: bad case');
    return {
      text: c.text,
      tokenIds: numbers('tokenIds' in c ? c.tokenIds : undefined),
      embedding: numbers('embedding' in c ? c.embedding : undefined),
    };
  });
}

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
  return max;
};
const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

const golden = readGolden();
const BUILD_TIMEOUT = 300_000;

describe('use-lite-en', () => {
  /** The engine's embedder: the int8 graph, one text a call. */
  let embed: (texts: string[]) => Promise<Float32Array[]>;
  /** The float32 graph, in groups of like lengths. */
  let embedFp32: (texts: string[]) => Promise<Float32Array[]>;

  beforeAll(async () => {
    await testModelDir();
    embed = await loadUseLiteEn(TEST_MODELS_DIR);
    embedFp32 = await loadUseLiteEn(TEST_MODELS_DIR, { precision: 'fp32' });
  }, BUILD_TIMEOUT);

  it('tokenizes every golden case exactly like the original (before the 128-token cut)', async () => {
    env.allowRemoteModels = false;
    env.localModelPath = TEST_MODELS_DIR;
    const tokenizer = await AutoTokenizer.from_pretrained(USE_LITE_EN.name);
    for (const c of golden) {
      expect(tokenizer.encode(c.text), JSON.stringify(c.text)).toEqual(c.tokenIds);
    }
    // The model only sees the first 128 tokens; the tokenizer cuts there when truncating.
    const long = golden.find((c) => c.tokenIds.length > USE_LITE_EN.maxTokens);
    expect(long).toBeDefined();
    const { input_ids } = tokenizer(long?.text ?? '', { truncation: true });
    expect(Array.from(input_ids.data as BigInt64Array, Number)).toEqual(long?.tokenIds.slice(0, USE_LITE_EN.maxTokens));
  });

  it('embeds every golden case like the TF.js original (max abs diff < 1e-5) with the float32 graph', async () => {
    let worst = 0;
    for (const c of golden) {
      const [vector] = await embedFp32([c.text]);
      expect(vector?.length).toBe(USE_LITE_EN.dim);
      const diff = maxAbsDiff(vector ?? [], c.embedding);
      expect(diff, JSON.stringify(c.text)).toBeLessThan(1e-5);
      worst = Math.max(worst, diff);
    }
    console.log(`use-lite-en: max abs diff over ${golden.length} golden cases ${worst.toExponential(2)}`);
  });

  it('embeds every golden case within a cosine of 0.998 of the TF.js original with the int8 graph', async () => {
    let lowest = 1;
    for (const c of golden) {
      const [vector] = await embed([c.text]);
      expect(vector?.length).toBe(USE_LITE_EN.dim);
      const similarity = cosine(vector!, Float32Array.from(c.embedding));
      expect(similarity, JSON.stringify(c.text)).toBeGreaterThan(0.998);
      // Not the float32 vector itself: the int8 graph is the one embedding.
      expect(maxAbsDiff(vector!, c.embedding), JSON.stringify(c.text)).toBeGreaterThan(1e-5);
      lowest = Math.min(lowest, similarity);
    }
    console.log(`use-lite-en int8: lowest cosine over ${golden.length} golden cases ${lowest.toFixed(5)}`);
  });

  it('gives a text the same vector alone and in a request with a much longer text, with either graph', async () => {
    const short = 'The cat sits on the mat.';
    const long = golden.reduce((a, b) => (b.tokenIds.length > a.tokenIds.length ? b : a)).text;
    for (const embedding of [embed, embedFp32]) {
      const [alone] = await embedding([short]);
      const [inBatch, longVector] = await embedding([short, long]);
      expect(maxAbsDiff(alone ?? [], inBatch ?? [])).toBeLessThan(1e-6);
      const [longAlone] = await embedding([long]);
      expect(maxAbsDiff(longAlone ?? [], longVector ?? [])).toBeLessThan(1e-6);
    }
  });

  it('embeds a request in groups of like lengths with the very vectors of one text at a time and of one plain call', async () => {
    // Chunk texts of a generated conversation (10 to 128 tokens) and the golden texts (one past the window), shuffled.
    const session = realisticConversation('mixed', 160, 3);
    const chunks = chunkDialogue('mixed', session.messages.map((m, i) => ({ msgId: `m${i}`, role: m.role, content: m.content })), { maxTokens: USE_LITE_EN.maxTokens });
    const random = seededRandom(9);
    const texts = [...new Set([...chunks.map((c) => c.text).slice(0, 40), ...golden.map((c) => c.text)])].sort(() => random() - 0.5);
    const plain = await loadUseLiteEn(TEST_MODELS_DIR, { groupTokens: 0, precision: 'fp32' });
    const grouped = await embedFp32(texts);
    const whole = await plain(texts);
    expect(grouped).toHaveLength(texts.length);
    let worst = 0;
    for (const [i, text] of texts.entries()) {
      const [alone] = await plain([text]);
      worst = Math.max(worst, maxAbsDiff(alone ?? [], grouped[i] ?? []), maxAbsDiff(whole[i] ?? [], grouped[i] ?? []));
    }
    expect(worst).toBeLessThan(1e-6);
  });

  it('embeds with the int8 graph the very vectors transformers.js gives with it (dtype q8) one text a call', async () => {
    const plainInt8 = await loadUseLiteEn(TEST_MODELS_DIR, { groupTokens: 0 });
    const texts = ['The cat sits on the mat.', ...golden.map((c) => c.text)];
    const direct = await embed(texts);
    let worst = 0;
    for (const [i, text] of texts.entries()) worst = Math.max(worst, maxAbsDiff((await plainInt8([text]))[0] ?? [], direct[i] ?? []));
    expect(worst).toBeLessThan(1e-6);
  });

  it('embeds without loading transformers.js (its import alone takes about 600 ms of every process that embeds)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sm-embed-once-'));
    try {
      const file = path.join(dir, 'modules.txt');
      const script = fileURLToPath(new URL('./helpers/embedOnce.mts', import.meta.url));
      const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, TEST_MODELS_DIR], { env: { ...process.env, ...loadedModulesEnv(file) }, timeout: 120_000 });
      expect(Math.abs(Number(run.stdout.trim()) - (await embed(['the tomato seedlings go outside after the last frost']))[0]![0]!)).toBeLessThan(1e-6);
      const modules = await loadedModules(file);
      expect(loadedOf(modules, ['onnxruntime-node', '@huggingface/tokenizers']).length).toBeGreaterThan(0);
      expect(loadedOf(modules, ['@huggingface/transformers', 'sharp', 'onnxruntime-web'])).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('embeds a pasted document of over a million characters as its first 128 tokens, without reading it all', async () => {
    const words = Array.from({ length: 250_000 }, (_, i) => ['tomato', 'seedlings', 'frost', 'greenhouse', 'water'][i % 5]!).join(' ');
    expect(words.length).toBeGreaterThan(1_000_000);
    const started = performance.now();
    const [whole] = await embed([words]);
    expect(performance.now() - started).toBeLessThan(10_000);
    const [start] = await embed([words.slice(0, 20_000)]);
    expect(maxAbsDiff(whole!, start!)).toBeLessThan(1e-6);
  });

  it('puts paraphrases close together and unrelated sentences apart', async () => {
    const [cat, kitten, rates] = await embed([
      'The cat is sleeping on the sofa.',
      'A kitten naps on the couch.',
      'The central bank raised interest rates by half a percentage point.',
    ]);
    if (!cat || !kitten || !rates) throw new Error('missing vectors');
    expect(cosine(cat, kitten)).toBeGreaterThan(0.7);
    expect(cosine(cat, rates)).toBeLessThan(0.3);
  });

  it('builds a missing model directory, then reuses it', async () => {
    const modelsDir = await mkdtemp(path.join(os.tmpdir(), 'use-lite-en-'));
    try {
      const dir = await ensureUseLiteEn(modelsDir);
      expect(dir).toBe(path.join(modelsDir, USE_LITE_EN.name));
      for (const file of ['onnx/model.onnx', 'onnx/model_quantized.onnx', 'config.json', 'tokenizer.json', 'tokenizer_config.json']) {
        expect(existsSync(path.join(dir, file)), file).toBe(true);
      }
      // The build is deterministic: the same bytes as the shared test model.
      for (const file of ['onnx/model.onnx', 'onnx/model_quantized.onnx']) {
        const built = await readFile(path.join(dir, file));
        expect(built.equals(await readFile(path.join(TEST_MODELS_DIR, USE_LITE_EN.name, file))), file).toBe(true);
      }

      const before = (await stat(path.join(dir, 'onnx/model.onnx'))).mtimeMs;
      expect(await ensureUseLiteEn(modelsDir)).toBe(dir);
      expect((await stat(path.join(dir, 'onnx/model.onnx'))).mtimeMs).toBe(before);

      // A folder built before the int8 graph existed gets it, and keeps its float32 graph.
      await rm(path.join(dir, 'onnx/model_quantized.onnx'));
      expect(await ensureUseLiteEn(modelsDir)).toBe(dir);
      expect((await readFile(path.join(dir, 'onnx/model_quantized.onnx'))).equals(await readFile(path.join(TEST_MODELS_DIR, USE_LITE_EN.name, 'onnx/model_quantized.onnx')))).toBe(true);
      expect((await stat(path.join(dir, 'onnx/model.onnx'))).mtimeMs).toBe(before);
    } finally {
      await rm(modelsDir, { recursive: true, force: true });
    }
  }, BUILD_TIMEOUT);
});
