/**
 * Creating a store's tables so that a process killed at any moment leaves a store the next run can
 * open. LanceDB makes a table's folder first and commits its first version (a manifest under
 * `_versions/`) last, so a kill in between leaves a folder that `tableNames()` lists but that
 * cannot be opened. Such a folder never held data: it is an unfinished creation, removed and made
 * again, not damage. A table with a committed version is never touched here.
 */
import * as lancedb from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { crashPoint } from './crashPoints.js';

/** True when the table's folder holds at least one committed version. */
export async function isTableCommitted(uri: string, name: string): Promise<boolean> {
  try {
    const versions = await fs.readdir(path.join(uri, `${name}.lance`, '_versions'));
    return versions.some((file) => file.endsWith('.manifest'));
  } catch {
    return false;
  }
}

/** The tables of `names` that are committed, i.e. can be opened. */
export async function committedTables(uri: string, names: readonly string[]): Promise<Set<string>> {
  const committed = await Promise.all(names.map((name) => isTableCommitted(uri, name)));
  return new Set(names.filter((_, i) => committed[i]));
}

/**
 * Opens a committed table, or creates it, first clearing what an interrupted creation left.
 * Callers that may race another process creating the same store hold the write lock.
 */
export async function openOrCreateTable(db: lancedb.Connection, uri: string, name: string, schema: arrow.Schema): Promise<lancedb.Table> {
  if (await isTableCommitted(uri, name)) return db.openTable(name);
  await db.dropTable(name).catch(() => {});
  await fs.rm(path.join(uri, `${name}.lance`), { recursive: true, force: true });
  crashPoint(`create/${name}`);
  const table = await db.createEmptyTable(name, schema, { existOk: true });
  crashPoint(`created/${name}`);
  return table;
}
