#!/usr/bin/env node
// Runs the bundled CLI (dist-cli/, built by `npm ci` through the prepare script) while it is up to
// date with the sources, and the TypeScript sources through tsx otherwise.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// LanceDB logs warnings of its own to stderr (one per connection to an s3+ddb:// store, about a
// catalogue this product does not use); errors still show. Read when its native module loads.
process.env.LANCEDB_LOG ??= 'error';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist-cli', 'cli.mjs');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (/\.(ts|mjs)$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  if (!existsSync(bundle)) return false;
  const built = statSync(bundle).mtimeMs;
  return ['electron', 'shared'].every((dir) => !existsSync(path.join(root, dir)) || newestSource(path.join(root, dir)) <= built);
}

let main;
if (bundleIsFresh()) {
  ({ main } = await import(bundle));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../electron/cli/main.ts'));
}
process.exitCode = await main(process.argv);
