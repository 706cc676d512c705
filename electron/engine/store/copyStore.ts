/**
 * Copying a memory to another place, as it is: a folder to a bucket, a bucket to a folder, one
 * bucket to another. Through LanceDB, so every kind of store is read and written the same way.
 *
 * Each table of the memory that exists (files/layout.ts: the model's meta, sessions, chunks, the
 * save history, the state) is read at one version, in batches (a store of 200k chunks is never held
 * in memory), and written at the target with the same schema; then the target gets the indexes the
 * engine builds, and this machine's archive record for it. The source's writers are held off
 * meanwhile (its write guard), so the copy is one state of the memory, never half a save; the
 * target's are too (its write guard, held from the check that it is empty to the end). A target that
 * already holds a memory is refused and left untouched. The write lease table is not copied: each
 * store has its own writers.
 */
import type * as lancedb from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import { existsSync, promises as fs, readdirSync } from 'node:fs';
import { EngineError } from '../errors.js';
import { resolveStoreLocation, type StoreLocation } from '../files/location.js';
import { CHUNKS_TABLE, HISTORY_TABLE, STORE_TABLES } from '../files/layout.js';
import { defaultDataDir } from '../files/paths.js';
import { silentLogger } from '../files/logger.js';
import { RecordCache } from '../record/recordCache.js';
import { StoreState } from '../record/storeState.js';
import { connectStore } from './connect.js';
import { ChunkStore } from './store.js';
import { committedTables } from './storeCreation.js';
import type { StoreModelInfo } from './storeRows.js';
import { buildVectorIndexAt } from './storeUpkeep.js';
import { WriteGuard } from './writeGuard.js';

/** Rows per commit at the target: few commits, and a bounded amount held in memory at once. */
const ROWS_PER_COMMIT = 4_096;

export interface CopyStoreOptions {
  /** This machine's folder, under which stores on object storage keep their local files. Default: SESSION_MEMORY_HOME, else the app's folder. */
  home?: string;
  /** How long to wait for a save under way at the source (or target). Default 60 s. */
  waitMs?: number;
  /** Only this machine writes to the stores: an `s3://` store whose server lacks conditional writes is used all the same. */
  singleWriter?: boolean;
  /** Told after every commit at the target. */
  onProgress?: (progress: { table: string; rows: number; total: number }) => void;
}

export interface CopyStoreReport {
  /** The source and target as a person is shown them (a folder, or a URI without its query). */
  from: string;
  to: string;
  sessions: number;
  messages: number;
  chunks: number;
  historyEvents: number;
  /** Rows copied per table, and the source version each was read at. */
  tables: Record<string, { rows: number; version: number }>;
  /** The columns of the chunks table the target has indexes on. */
  indexes: string[];
  durationMs: number;
}

/**
 * Copies the memory at `from` to `to`. Both are what `--data` takes: a folder, or a store URI
 * (`s3://`, `s3+ddb://…?ddbTableName=T`, `gs://`, `az://`); endpoints and credentials come from the
 * environment. Refuses (code `invalid_input`) a source without a memory, a target that holds one,
 * and a target that is the source.
 */
export async function copyStore(from: string, to: string, options: CopyStoreOptions = {}): Promise<CopyStoreReport> {
  const started = Date.now();
  const home = options.home ?? defaultDataDir();
  const source = resolveStoreLocation(from, home);
  const target = resolveStoreLocation(to, home);
  if (source.uri === target.uri) throw new EngineError('invalid_input', `${target.display} is the memory being copied; name another folder or store`);
  const model = await ChunkStore.readModel(source.uri);
  if (!model) throw new EngineError('invalid_input', `${source.display} holds no memory to copy`);
  await refuseOccupied(target);

  const guard = (location: StoreLocation) => new WriteGuard({ dataDir: location.localDir, storeUri: location.uri, waitMs: options.waitMs ?? 60_000, ...(options.singleWriter ? { singleWriter: true } : {}) });
  const sourceGuard = guard(source);
  const targetGuard = guard(target);
  await fs.mkdir(target.localDir, { recursive: true });
  const releaseSource = await sourceGuard.acquire();
  try {
    const releaseTarget = await targetGuard.acquire();
    try {
      // Checked again with the target's guard held: another copy may have been quicker.
      await refuseOccupied(target);
      try {
        const copied = await copyTables(source.uri, target.uri, options.onProgress);
        const finished = await finishTarget(target, model, copied.vectorIndex);
        return {
          from: source.display,
          to: target.display,
          ...finished,
          chunks: copied.tables[CHUNKS_TABLE]?.rows ?? 0,
          historyEvents: copied.tables[HISTORY_TABLE]?.rows ?? 0,
          tables: copied.tables,
          durationMs: Date.now() - started,
        };
      } catch (error) {
        // A copy cut short leaves no half memory at the target: a new attempt finds it empty.
        await dropCopied(target.uri);
        throw error;
      }
    } finally {
      await releaseTarget();
    }
  } finally {
    await releaseSource();
    sourceGuard.close();
    targetGuard.close();
  }
}

/** The target's indexes (those its store builds, and a vector index when the source had one), compaction, and this machine's record of it. */
async function finishTarget(target: StoreLocation, model: StoreModelInfo, vectorIndex: boolean): Promise<{ sessions: number; messages: number; indexes: string[] }> {
  const store = await ChunkStore.open(target.uri, model);
  // Forks are rows of the state table: the record written here keeps them.
  const state = new StoreState(store);
  try {
    await store.ensureIndexes();
    if (vectorIndex) await buildVectorIndexAt(target.uri, model.dim);
    // The copy's many commits folded into a few files.
    await store.optimize();
    // Written last, at the store's final version: the target opens as a memory already verified.
    const record = await new RecordCache(target.localDir, store, silentLogger, () => state.all('fork')).load([], { locked: true });
    return {
      sessions: Object.keys(record.sessions).length,
      messages: Object.values(record.sessions).reduce((n, entry) => n + entry.message_count, 0),
      indexes: [...new Set(await indexedColumns(store.db))].sort(),
    };
  } finally {
    state.close();
    store.close();
  }
}

/** Drops what a failed copy wrote at the target (only the memory's tables; nothing else was there). */
async function dropCopied(uri: string): Promise<void> {
  const db = await connectStore(uri).catch(() => null);
  if (!db) return;
  try {
    for (const name of STORE_TABLES) await db.dropTable(name).catch(() => {});
  } finally {
    db.close();
  }
}

/** Refuses a target that holds a memory (or any of its tables). */
async function refuseOccupied(target: StoreLocation): Promise<void> {
  const present = await committedTables(target.uri, STORE_TABLES);
  const folderUsed = target.kind === 'folder' && existsSync(target.uri) && readdirSync(target.uri).some((name) => name.endsWith('.lance'));
  if (present.size > 0 || folderUsed) {
    throw new EngineError('invalid_input', `${target.display} already holds a memory${present.size > 0 ? ` (${[...present].join(', ')})` : ''}; copy writes only to an empty folder or store, and left it as it was`);
  }
}

async function indexedColumns(db: lancedb.Connection): Promise<string[]> {
  const chunks = await db.openTable(CHUNKS_TABLE);
  try {
    return (await chunks.listIndices()).flatMap((i) => i.columns);
  } finally {
    chunks.close();
  }
}

/** Copies each table from its current version, batch by batch. */
async function copyTables(fromUri: string, toUri: string, onProgress: CopyStoreOptions['onProgress']): Promise<{ tables: Record<string, { rows: number; version: number }>; vectorIndex: boolean }> {
  const from = await connectStore(fromUri);
  const to = await connectStore(toUri);
  const tables: Record<string, { rows: number; version: number }> = {};
  let vectorIndex = false;
  try {
    const present = await committedTables(fromUri, STORE_TABLES, from);
    for (const name of STORE_TABLES) {
      if (!present.has(name)) continue;
      const table = await from.openTable(name);
      try {
        // One version, read whole: the guard holds writers off, and the pin holds off compaction's view changes too.
        const version = await table.version();
        await table.checkout(version);
        if (name === CHUNKS_TABLE) vectorIndex = (await table.listIndices()).some((i) => i.columns.includes('vector'));
        const total = await table.countRows();
        const copy = await to.createEmptyTable(name, await table.schema());
        try {
          let rows = 0;
          let pending: arrow.RecordBatch[] = [];
          let pendingRows = 0;
          const flush = async () => {
            if (pendingRows === 0) return;
            // A table-like value, not an arrow Table: LanceDB's batches may come from another copy of
            // apache-arrow (its CommonJS build) than this module's, and it takes table-likes of either.
            await copy.add({ schema: pending[0]!.schema, batches: pending } as unknown as lancedb.Data);
            rows += pendingRows;
            pending = [];
            pendingRows = 0;
            onProgress?.({ table: name, rows, total });
          };
          for await (const batch of table.query()) {
            pending.push(batch);
            pendingRows += batch.numRows;
            if (pendingRows >= ROWS_PER_COMMIT) await flush();
          }
          await flush();
          tables[name] = { rows, version };
        } finally {
          copy.close();
        }
      } finally {
        table.close();
      }
    }
  } finally {
    from.close();
    to.close();
  }
  return { tables, vectorIndex };
}
