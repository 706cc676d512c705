// The embedding model for tests: built once from the npm package into <repo>/.cache/models, then reused.
import { fileURLToPath } from 'node:url';
import { ensureUseLiteEn } from '../../electron/embedding/useLiteEn.js';

export const TEST_MODELS_DIR = fileURLToPath(new URL('../../.cache/models', import.meta.url));

export async function testModelDir(): Promise<string> {
  return ensureUseLiteEn(TEST_MODELS_DIR);
}
