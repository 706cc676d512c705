#!/usr/bin/env node
// Runs the bundled CLI (dist-cli/, built by `npm ci` through the prepare script) while it is up to
// date with the sources, and the TypeScript sources through tsx otherwise.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// LanceDB logs warnings of its own to stderr (one per connection to an s3+ddb:// store, about a
// catalogue this product does not use); errors still show. Read when its native module loads.
process.env.LANCEDB_LOG ??= 'error';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist-cli', 'cli.mjs');

// The bundle is fresh while none of the files it was built from (dist-cli/inputs.json, written by the
// build) changed since: a few hundred stats, no walk of the source folders. A file the build did not
// see matters only once one of these imports it, and that one changes then.
function bundleIsFresh() {
  let built;
  let inputs;
  try {
    built = statSync(bundle).mtimeMs;
    inputs = JSON.parse(readFileSync(path.join(root, 'dist-cli', 'inputs.json'), 'utf8'));
  } catch {
    return false;
  }
  // Joined by hand: path.join's normalising, run cold on a couple of hundred paths, took longer than
  // the stats themselves (about 12 ms of a hook's start). The inputs are plain relative paths with
  // forward slashes, which every system's file calls take.
  const prefix = `${root}/`;
  for (const input of inputs) {
    const stats = statSync(prefix + input, { throwIfNoEntry: false });
    // A file gone (moved, renamed) changed the sources too; without the sources at all (a package of the bundle alone), the bundle is all there is.
    if (stats ? stats.mtimeMs > built : existsSync(path.join(root, 'electron'))) return false;
  }
  return true;
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
