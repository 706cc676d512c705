// Bundles the CLI, its embedding worker and its database reader's worker into dist-cli/ so that `session-memory` starts in about
// half the time it takes from the TypeScript sources. bin/session-memory.mjs uses the bundle only
// while it is newer than every source file, and the sources (through tsx) otherwise.
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Dependencies stay in node_modules (native modules, large runtimes), except the MCP SDK and zod:
// spread over some 400 small files, they took most of the MCP server's start-up to load one by one,
// and an assistant that starts the server with its session waits for its handshake.
const inlined = ['@modelcontextprotocol/sdk', 'zod'];
const dependencies = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).dependencies ?? {});
const external = dependencies.filter((name) => !inlined.includes(name)).flatMap((name) => [name, `${name}/*`]);
// The MCP SDK's server imports ajv at its top for checking elicitation answers alone, which this
// server never asks for: the bundle takes electron/mcp/noSchemaValidator.ts in its place, so the
// handshake does not wait for ajv to load.
const withoutAjv = {
  name: 'mcp-without-ajv',
  setup(builder) {
    builder.onResolve({ filter: /validation\/ajv-provider\.js$/ }, (args) =>
      /@modelcontextprotocol[\\/]sdk[\\/]/.test(args.importer) ? { path: path.resolve('electron/mcp/noSchemaValidator.ts') } : undefined,
    );
  },
};
const common = { bundle: true, platform: 'node', target: 'node20', format: 'esm', external, logLevel: 'warning', sourcemap: true, metafile: true, plugins: [withoutAjv] };

const results = await Promise.all([
  // Split at the CLI's dynamic imports: `--help` and a hook with nothing new load neither the store
  // (LanceDB) nor the importers, which load in chunks of their own when a command needs them.
  build({ ...common, entryPoints: { cli: 'electron/cli/main.ts' }, outdir: 'dist-cli', splitting: true, chunkNames: '[name]-[hash]', outExtension: { '.js': '.mjs' } }),
  // Named like the source entry, so the embedder finds it beside the bundle by the same relative URL.
  build({ ...common, entryPoints: ['electron/embedding/embedWorker.ts'], outfile: 'dist-cli/embedWorker.entry.mjs' }),
  build({ ...common, entryPoints: ['electron/sources/databaseWorker.ts'], outfile: 'dist-cli/databaseWorker.entry.mjs' }),
]);

// The project's own files the bundle was built from: bin/session-memory.mjs checks only these for a
// change (a new file matters only once one of them imports it), instead of walking the source folders
// at every start.
const inputs = [...new Set(results.flatMap((result) => Object.keys(result.metafile.inputs)))].filter((file) => /^(electron|shared)\//.test(file)).sort();
writeFileSync('dist-cli/inputs.json', `${JSON.stringify(inputs)}\n`);
