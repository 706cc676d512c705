/**
 * Removing the files of a local store's table that no version references: data files and index
 * folders that a commit killed mid-write left behind. LanceDB's own cleanup leaves such files for a
 * week (`deleteUnverified: false`), since it cannot tell them from a commit still under way in
 * another process; they can hold text, so forgetting and purging remove them, under the write lock,
 * which every commit of rows and of text indexes holds. A vector index is built outside the lock
 * (maintenance.ts), possibly by another process right now, so a folder holding a vector index (its
 * files end in `.idx`; codes of vectors, no text) is left to LanceDB's cleanup.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';

/** Removes what no version of the table in `tableDir` references; returns the paths removed (relative to it). */
export async function sweepUnreferencedFiles(tableDir: string): Promise<string[]> {
  const versions = path.join(tableDir, '_versions');
  if (!existsSync(versions)) return [];
  const manifests = (await fs.readdir(versions)).filter((name) => name.endsWith('.manifest'));
  // No manifest: nothing can be told apart; leave the table as it is.
  if (manifests.length === 0) return [];
  // Manifests are protobuf: data file names are plain strings inside, index ids their 16 bytes.
  const referenced = Buffer.concat(await Promise.all(manifests.map((name) => fs.readFile(path.join(versions, name)))));
  const removed: string[] = [];
  const dataDir = path.join(tableDir, 'data');
  for (const name of existsSync(dataDir) ? await fs.readdir(dataDir) : []) {
    if (referenced.includes(Buffer.from(name, 'utf8'))) continue;
    await fs.rm(path.join(dataDir, name), { force: true });
    removed.push(path.join('data', name));
  }
  const indexDir = path.join(tableDir, '_indices');
  for (const name of existsSync(indexDir) ? await fs.readdir(indexDir) : []) {
    const id = Buffer.from(name.replace(/-/g, ''), 'hex');
    if (id.length !== 16 || referenced.includes(id)) continue;
    const files = await fs.readdir(path.join(indexDir, name)).catch(() => [] as string[]);
    if (files.some((file) => file.endsWith('.idx'))) continue;
    await fs.rm(path.join(indexDir, name), { recursive: true, force: true });
    removed.push(path.join('_indices', name));
  }
  return removed;
}
