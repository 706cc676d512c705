import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Every file under `dir` (hidden ones and binary ones included) whose bytes contain `text` (UTF-8), as paths relative to `dir`. */
export function filesContaining(dir: string, text: string): string[] {
  const needle = Buffer.from(text, 'utf8');
  const found: string[] = [];
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dir, name);
    if (statSync(file).isFile() && readFileSync(file).includes(needle)) found.push(name);
  }
  return found;
}

/** Size and modification time of every file under `dir` (recursively), and every folder, by relative path. */
export function folderSnapshot(dir: string): Record<string, string> {
  const snapshot: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const stats = statSync(path.join(dir, name));
    snapshot[name] = stats.isFile() ? `${stats.size} bytes, modified ${stats.mtimeMs}` : 'folder';
  }
  return snapshot;
}

const stemmer = (createRequire(import.meta.url)('snowball-stemmers') as { newStemmer(language: string): { stem(word: string): string } }).newStemmer('english');

/**
 * The forms in which a marker's text can sit in a file: as written, in lower case, and each of its
 * words (of 5 letters or more, so that a test's marker words are rare) as written, in lower case and
 * as the English Snowball stem the full-text word index stores (fullTextLayout.ts: lower-cased,
 * ASCII-folded, stemmed).
 */
export function markerForms(marker: string): string[] {
  const words = marker.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 5);
  return [...new Set([marker, marker.toLowerCase(), ...words.flatMap((w) => [w, w.toLowerCase(), stemmer.stem(w.toLowerCase())])])];
}

/** Every file under `dir` that holds the marker in any of its forms (markerForms), with the form found. */
export function filesWithTrace(dir: string, marker: string): string[] {
  return markerForms(marker).flatMap((form) => filesContaining(dir, form).map((file) => `${file} (${form})`));
}
