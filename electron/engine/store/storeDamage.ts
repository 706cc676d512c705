/** Finding damaged data files of a local store by reading its files directly (LanceDB would only fail on them). */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { CHUNKS_TABLE } from './storeSchema.js';

/**
 * Data files of the chunks table that are truncated (no Lance footer) or referenced by the current
 * version but missing. Local stores only; a remote URI reports nothing here.
 */
export async function damagedDataFiles(uri: string): Promise<string[]> {
  const table = path.join(uri, `${CHUNKS_TABLE}.lance`);
  if (uri.includes('://') || !existsSync(table)) return [];
  const problems: string[] = [];
  const dataDir = path.join(table, 'data');
  const present = new Set(existsSync(dataDir) ? await fs.readdir(dataDir) : []);
  const versions = path.join(table, '_versions');
  const manifests = existsSync(versions) ? (await fs.readdir(versions)).filter((n) => n.endsWith('.manifest')) : [];
  const latest = manifests.sort((a, b) => manifestNumber(b) - manifestNumber(a))[0];
  // The manifest is protobuf; the data file names it references are plain strings inside it.
  const text = latest ? (await fs.readFile(path.join(versions, latest))).toString('latin1') : '';
  const referenced = new Set(text.match(/(?:[01]{24}[0-9a-f]{26}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.lance/g) ?? []);
  for (const name of referenced) {
    if (!present.has(name)) {
      problems.push(`data file ${name} is missing`);
      continue;
    }
    const handle = await fs.open(path.join(dataDir, name), 'r');
    try {
      const { size } = await handle.stat();
      const tail = Buffer.alloc(4);
      if (size >= 4) await handle.read(tail, 0, 4, size - 4);
      // Every Lance data file ends with the magic bytes "LANC"; a truncated one does not.
      if (tail.toString('latin1') !== 'LANC') problems.push(`data file ${name} is truncated (${size} bytes, no Lance footer)`);
    } finally {
      await handle.close();
    }
  }
  return problems;
}

function manifestNumber(name: string): number {
  return Number(name.replace(/\.manifest$/, '')) || 0;
}
