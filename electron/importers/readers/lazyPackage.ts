/**
 * A package that a synchronous importer needs only for some formats (html-to-text for Gemini's
 * Takeout), loaded on first use rather than with the importers: a hook after every turn reads a
 * Claude Code or Codex log and should not pay for what reads other tools' exports.
 */
import { createRequire } from 'node:module';

export function loadPackage<T>(name: string): T {
  // ES modules (the sources, the CLI bundle) make a `require`; the packaged app's CommonJS bundles,
  // where `import.meta` is empty, have their own (as readers/sqlite.ts does for better-sqlite3).
  const url = (import.meta as { url?: string }).url;
  const load = typeof url === 'string' ? createRequire(url) : require;
  return load(name) as T;
}
