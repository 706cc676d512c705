/**
 * `npm run build:wasm`: compiles the WebAssembly text of the vector sketch's scan
 * (electron/engine/duplicates/codeScan.wat) with wabt and writes its bytes, base64, into
 * codeScanModule.ts beside it, so that the app loads no file and needs no compiler at run time.
 * test/codeScan.test.ts compiles the text again and checks the module is what it gives.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { compileWat, moduleSource } from './wasmModule.js';

async function main(): Promise<void> {
  const wat = path.resolve('electron/engine/duplicates/codeScan.wat');
  const bytes = await compileWat(wat);
  const out = path.join(path.dirname(wat), 'codeScanModule.ts');
  await fs.writeFile(out, moduleSource(path.basename(wat), bytes));
  console.log(`${path.relative(process.cwd(), out)}: ${bytes.length} bytes of WebAssembly from ${path.relative(process.cwd(), wat)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
