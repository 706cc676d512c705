/**
 * A stand-in for a model in test runs whose subject is not embedding (crashes, locks, shared
 * stores, importing, forgetting): each word of a text, lower-cased (each Han, kana or Hangul
 * character on its own), is hashed to a signed dimension, and the sum is normalised. The same text
 * always gives the same vector, texts that share words are closer than texts that share none, and
 * nothing is loaded: no worker, no model files, no start-up time.
 *
 * The engine uses it only in a test run that asks for it (`SESSION_MEMORY_TEST_EMBEDDER=hash`, see
 * engine.ts); the store then records the model as `HASH_TEST_MODEL`, so that a store built with it
 * is never searched with a real model's vectors (or the other way round): opening it with another
 * model is a model_mismatch error.
 */
import type { Embedder } from './embedder.js';

export const HASH_TEST_MODEL = 'test-hash';
/** As many dimensions as the offline model, so stores and vector indexes have the same shape. */
const DIMENSIONS = 512;
/** The offline model's input window: chunks are cut as they are for it. */
const MAX_TOKENS = 128;

const WORDS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}]+/gu;

/** FNV-1a, 32 bits. */
function hash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function hashVector(text: string): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  for (const word of text.toLowerCase().match(WORDS) ?? []) {
    const h = hash(word);
    vector[h % DIMENSIONS]! += (h & 0x80000000) !== 0 ? -1 : 1;
  }
  let norm = 0;
  for (const v of vector) norm += v * v;
  if (norm === 0) {
    // No word at all (punctuation, an empty text): one fixed direction, still a unit vector.
    vector[0] = 1;
    return vector;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < DIMENSIONS; i++) vector[i]! *= scale;
  return vector;
}

export class HashEmbedder implements Embedder {
  readonly model = HASH_TEST_MODEL;
  readonly dim = DIMENSIONS;
  readonly maxTokens = MAX_TOKENS;

  embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map(hashVector));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
