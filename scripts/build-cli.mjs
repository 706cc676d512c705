// Bundles the CLI and its embedding worker into dist-cli/ so that `session-memory` starts in about
// half the time it takes from the TypeScript sources. bin/session-memory.mjs uses the bundle only
// while it is newer than every source file, and the sources (through tsx) otherwise.
import { build } from 'esbuild';

const common = { bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', logLevel: 'warning', sourcemap: true };

await Promise.all([
  build({ ...common, entryPoints: ['electron/cli/main.ts'], outfile: 'dist-cli/cli.mjs' }),
  // Named like the source entry, so the embedder finds it beside the bundle by the same relative URL.
  build({ ...common, entryPoints: ['electron/embedding/embedWorker.ts'], outfile: 'dist-cli/embedWorker.entry.mjs' }),
]);
