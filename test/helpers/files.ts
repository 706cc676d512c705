import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every file under `dir` whose bytes contain `text` (UTF-8), as paths relative to `dir`. */
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
