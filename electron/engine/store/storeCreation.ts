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
import { crashPoint } from '../files/crashPoints.js';
import { EngineError } from '../errors.js';
import { FTS_LAYOUT, FTS_LAYOUT_KEY } from './fullTextLayout.js';
import { readRows, type StoreModelInfo } from './storeRows.js';
import { connectStore, isRemoteStore } from './connect.js';
import { isTransientStoreError } from './transient.js';
import { CHUNKS_TABLE, chunkSchema, META_TABLE, metaSchema, readModelInfo, SESSIONS_TABLE, sessionSchema } from './storeSchema.js';

const STORE_TABLES = [META_TABLE, CHUNKS_TABLE, SESSIONS_TABLE];

/**
 * True when the table's folder holds at least one committed version. On object storage, where a
 * listing costs round trips and a creation is one conditional commit, it is whether the table opens.
 */
export async function isTableCommitted(uri: string, name: string, db?: lancedb.Connection): Promise<boolean> {
  if (isRemoteStore(uri)) return tableOpens(uri, name, db);
  try {
    const versions = await fs.readdir(path.join(uri, `${name}.lance`, '_versions'));
    return versions.some((file) => file.endsWith('.manifest'));
  } catch {
    return false;
  }
}

async function tableOpens(uri: string, name: string, given?: lancedb.Connection): Promise<boolean> {
  const db = given ?? (await connectStore(uri));
  try {
    (await db.openTable(name)).close();
    return true;
  } catch (error) {
    // A version that cannot be read yet is a commit of another machine in progress, not a missing table.
    if (isTransientStoreError(error)) throw error;
    return false;
  } finally {
    if (!given) db.close();
  }
}

/** The tables of `names` that are committed, i.e. can be opened. */
export async function committedTables(uri: string, names: readonly string[], db?: lancedb.Connection): Promise<Set<string>> {
  const committed = await Promise.all(names.map((name) => isTableCommitted(uri, name, db)));
  return new Set(names.filter((_, i) => committed[i]));
}

/**
 * Opens a committed table, or creates it, first clearing what an interrupted creation left.
 * Callers that may race another process creating the same store hold the write lock.
 */
export async function openOrCreateTable(db: lancedb.Connection, uri: string, name: string, schema: arrow.Schema): Promise<lancedb.Table> {
  if (await isTableCommitted(uri, name, db)) return db.openTable(name);
  // On object storage nothing is cleared: a creation is one conditional commit (a kill before it
  // leaves unreferenced files only), and another machine may be creating the same table right now.
  if (isRemoteStore(uri)) {
    crashPoint(`create/${name}`);
    const table = await db.createEmptyTable(name, schema, { existOk: true });
    crashPoint(`created/${name}`);
    return table;
  }
  await db.dropTable(name).catch(() => {});
  await fs.rm(path.join(uri, `${name}.lance`), { recursive: true, force: true });
  crashPoint(`create/${name}`);
  const table = await db.createEmptyTable(name, schema, { existOk: true });
  crashPoint(`created/${name}`);
  return table;
}

/**
 * Opens (or creates, or finishes creating) the store's tables at a LanceDB URI, and checks the model
 * the store records against the one wanted (a function of the stored one, when it decides).
 */
export async function openStoreTables(
  uri: string,
  wanted: StoreModelInfo | ((stored: StoreModelInfo | null) => Promise<StoreModelInfo>),
  lockForCreation?: () => Promise<() => Promise<void>>,
): Promise<{ db: lancedb.Connection; meta: lancedb.Table; chunks: lancedb.Table; sessions: lancedb.Table; model: StoreModelInfo; ftsLayout: string | null }> {
  // readConsistencyInterval 0: every read sees writes made by other processes (the CLI and the app share a store).
  const db = await connectStore(uri, { readConsistencyInterval: 0 });
  let names = await committedTables(uri, STORE_TABLES, db);
  // Creating (or finishing an interrupted creation) is a write: one process at a time.
  const release = names.size < STORE_TABLES.length ? await lockForCreation?.() : undefined;
  try {
    if (release) names = await committedTables(uri, STORE_TABLES, db);
    const meta = await openOrCreateTable(db, uri, META_TABLE, metaSchema);
    const metaRows = await readRows(meta.query());
    const stored = readModelInfo(metaRows);
    const model = typeof wanted === 'function' ? await wanted(stored) : wanted;
    if (stored && (stored.model !== model.model || stored.dim !== model.dim)) {
      throw new EngineError(
        'model_mismatch',
        `this store was built with the embedding model "${stored.model}" (${stored.dim} dimensions), not "${model.model}" (${model.dim}); ` +
          `open it with --model ${stored.model}, or choose another data directory for a store of the new model`,
      );
    }
    let ftsLayout = metaRows.find((r) => r.key === FTS_LAYOUT_KEY)?.value as string | undefined;
    if (!stored) {
      await meta.add([
        { key: 'model', value: model.model },
        { key: 'dim', value: String(model.dim) },
        { key: 'created_at', value: new Date().toISOString() },
        // A new chunks table is created with the current layout below.
        ...(names.has(CHUNKS_TABLE) ? [] : [{ key: FTS_LAYOUT_KEY, value: FTS_LAYOUT }]),
      ]);
      if (!names.has(CHUNKS_TABLE)) ftsLayout = FTS_LAYOUT;
    }
    const chunks = await openOrCreateTable(db, uri, CHUNKS_TABLE, chunkSchema(model.dim));
    const sessions = await openOrCreateTable(db, uri, SESSIONS_TABLE, sessionSchema);
    return { db, meta, chunks, sessions, model, ftsLayout: ftsLayout ?? null };
  } finally {
    await release?.();
  }
}


/** The model recorded in a store, or null when its creation has not finished (the next open finishes it). */
export async function readStoreModel(uri: string): Promise<StoreModelInfo | null> {
  const db = await connectStore(uri);
  try {
    if (!(await isTableCommitted(uri, META_TABLE, db))) return null;
    const meta = await db.openTable(META_TABLE);
    try {
      return readModelInfo(await readRows(meta.query()));
    } finally {
      meta.close();
    }
  } finally {
    db.close();
  }
}
