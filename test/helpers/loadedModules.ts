/**
 * What a CLI process loaded: run it with `loadedModulesEnv(file)` and read `loadedModules(file)`.
 * The CLI bundle (dist-cli/) is read for the modules esbuild put in each of its files (a `// path`
 * comment heads each one), so the list names source files and packages whether the process ran the
 * bundle or the TypeScript sources.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO } from './cli.js';

const REGISTER = path.join(REPO, 'test', 'fixtures', 'loaded', 'register.mjs');

export function loadedModulesEnv(file: string): Record<string, string> {
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${REGISTER}`.trim(), LOADED_MODULES_FILE: file };
}

/**
 * The modules loaded, as paths (`electron/cli/main.ts`, `node_modules/zod/v4/core/core.js`) or
 * `require:<package>`; with `beforeWrite`, only those loaded before the process's `beforeWrite`-th
 * write to stdout (1 for the first).
 */
export async function loadedModules(file: string, beforeWrite?: number): Promise<string[]> {
  let lines = (await fs.readFile(file, 'utf8')).split('\n').filter(Boolean);
  if (beforeWrite !== undefined) {
    let writes = 0;
    const end = lines.findIndex((line) => line === 'stdout' && ++writes === beforeWrite);
    if (end < 0) throw new Error(`${file}: the process wrote to stdout ${writes} times, not ${beforeWrite}`);
    lines = lines.slice(0, end);
  }
  const entries = [...new Set(lines.filter((line) => line !== 'stdout'))];
  const found = new Set<string>();
  for (const entry of entries) {
    if (!entry.startsWith('file:')) {
      found.add(entry);
      continue;
    }
    const file = fileURLToPath(entry);
    found.add(normalized(path.relative(REPO, file)));
    if (file.startsWith(path.join(REPO, 'dist-cli') + path.sep)) {
      const text = await fs.readFile(file, 'utf8');
      for (const match of text.matchAll(/^\/\/ (\S+\.[cm]?[jt]s)$/gm)) found.add(normalized(match[1]!));
    }
  }
  return [...found];
}

/** A path from the repository (or the bundle) as `node_modules/<package>/...` or the source's own path. */
function normalized(relative: string): string {
  const packages = relative.lastIndexOf('node_modules/');
  return packages >= 0 ? relative.slice(packages) : relative.replace(/^(\.\.\/)+/, '');
}

/** The entries of `loaded` that name any of `names` (a package or a source path). */
export function loadedOf(loaded: readonly string[], names: readonly string[]): string[] {
  return loaded.filter((entry) => names.some((name) => entry.includes(`node_modules/${name}/`) || entry === `require:${name}` || entry.startsWith(name)));
}
