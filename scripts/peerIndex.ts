/**
 * The peer system of `npm run bench:peer`: LangChain.js's indexing API (`index()` of
 * `@langchain/core/indexing`) with a SQLite record manager and a LanceDB vector store, embedding with
 * the same offline model as the engine.
 *
 * The record manager and the vector store follow `@langchain/community`'s `SQLiteRecordManager`
 * (indexes/sqlite) and `LanceDB` (vectorstores/lancedb) at 1.1.29 line by line. That package is not a
 * dependency: it declares some 150 optional peer dependencies, and npm cannot resolve them beside this
 * project's zod 4 without `--legacy-peer-deps`, which would drop peers the app needs. Two changes to
 * its LanceDB store, without which `index()` cannot work at all: it keeps the ids `index()` gives
 * (`addDocuments(docs, { ids })`) and it deletes by them (community's store has no `delete`, so
 * every cleanup `index()` makes would throw "Not implemented").
 */
import Database from 'better-sqlite3';
import { connect, type Table } from '@lancedb/lancedb';
import { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { index, type RecordManagerInterface, type UpdateOptions, type ListKeyOptions } from '@langchain/core/indexing';
import { VectorStore } from '@langchain/core/vectorstores';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import type { Embedder } from '../electron/embedding/embedder.js';

/** Texts per call to the model: the engine's batch (save/chunkWriter.ts). */
const EMBED_BATCH = 32;

/** The engine's model, as LangChain embeddings; counts the texts it embeds. */
export class ModelEmbeddings extends Embeddings {
  embedded = 0;

  constructor(private readonly embedder: Embedder) {
    super({});
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let i = 0; i < texts.length; i += EMBED_BATCH) {
      for (const v of await this.embedder.embed(texts.slice(i, i + EMBED_BATCH))) vectors.push(Array.from(v));
    }
    this.embedded += texts.length;
    return vectors;
  }

  async embedQuery(text: string): Promise<number[]> {
    return (await this.embedDocuments([text]))[0]!;
  }
}

/** `@langchain/community/indexes/sqlite` SQLiteRecordManager, over better-sqlite3 as there. */
export class SQLiteRecordManager implements RecordManagerInterface {
  lc_namespace = ['langchain', 'recordmanagers', 'sqlite'];
  private readonly db: Database.Database;

  constructor(
    private readonly namespace: string,
    localPath: string,
    private readonly tableName = 'upsertion_records',
  ) {
    this.db = new Database(localPath);
  }

  async createSchema(): Promise<void> {
    this.db.exec(`
CREATE TABLE IF NOT EXISTS "${this.tableName}" (
  uuid TEXT PRIMARY KEY DEFAULT (lower(hex(randomblob(16)))),
  key TEXT NOT NULL,
  namespace TEXT NOT NULL,
  updated_at REAL NOT NULL,
  group_id TEXT,
  UNIQUE (key, namespace)
);
CREATE INDEX IF NOT EXISTS updated_at_index ON "${this.tableName}" (updated_at);
CREATE INDEX IF NOT EXISTS key_index ON "${this.tableName}" (key);
CREATE INDEX IF NOT EXISTS namespace_index ON "${this.tableName}" (namespace);
CREATE INDEX IF NOT EXISTS group_id_index ON "${this.tableName}" (group_id);`);
  }

  async getTime(): Promise<number> {
    const { epoch } = this.db.prepare("SELECT strftime('%s', 'now') AS epoch").get() as { epoch: string };
    return Number(epoch);
  }

  async update(keys: string[], updateOptions?: UpdateOptions): Promise<void> {
    if (keys.length === 0) return;
    const updatedAt = await this.getTime();
    const { timeAtLeast, groupIds: given } = updateOptions ?? {};
    if (timeAtLeast && updatedAt < timeAtLeast) throw new Error(`Time sync issue with database ${updatedAt} < ${timeAtLeast}`);
    const groupIds = given ?? keys.map(() => null);
    if (groupIds.length !== keys.length) throw new Error(`Number of keys (${keys.length}) does not match number of group_ids (${groupIds.length})`);
    const rows = keys.map((key, i) => [key, this.namespace, updatedAt, groupIds[i] ?? null]);
    this.db.transaction(() => {
      for (const row of rows) {
        this.db
          .prepare(`
INSERT INTO "${this.tableName}" (key, namespace, updated_at, group_id)
VALUES (?, ?, ?, ?)
ON CONFLICT (key, namespace) DO UPDATE SET updated_at = excluded.updated_at`)
          .run(...row);
      }
    })();
  }

  async exists(keys: string[]): Promise<boolean[]> {
    if (keys.length === 0) return [];
    const rows = this.db.prepare(`SELECT key FROM "${this.tableName}" WHERE namespace = ? AND key IN (${keys.map(() => '?').join(', ')})`).all(this.namespace, ...keys) as Array<{ key: string }>;
    const existing = new Set(rows.map((row) => row.key));
    return keys.map((key) => existing.has(key));
  }

  async listKeys(options?: ListKeyOptions): Promise<string[]> {
    const { before, after, limit, groupIds } = options ?? {};
    let query = `SELECT key FROM "${this.tableName}" WHERE namespace = ?`;
    const values: Array<string | number> = [this.namespace];
    if (before) {
      query += ' AND updated_at < ?';
      values.push(before);
    }
    if (after) {
      query += ' AND updated_at > ?';
      values.push(after);
    }
    if (limit) {
      query += ' LIMIT ?';
      values.push(limit);
    }
    if (groupIds && Array.isArray(groupIds)) {
      const given = groupIds.filter((gid): gid is string => gid !== null);
      query += ` AND group_id IN (${given.map(() => '?').join(', ')})`;
      values.push(...given);
    }
    return (this.db.prepare(`${query};`).all(...values) as Array<{ key: string }>).map((row) => row.key);
  }

  async deleteKeys(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    this.db.prepare(`DELETE FROM "${this.tableName}" WHERE namespace = ? AND key IN (${keys.map(() => '?').join(', ')});`).run(this.namespace, ...keys);
  }

  close(): void {
    this.db.close();
  }
}

/** `@langchain/community/vectorstores/lancedb` LanceDB, keeping `index()`'s ids and deleting by them. */
export class LanceDBStore extends VectorStore {
  declare FilterType: string;
  private table: Table | undefined;

  constructor(
    embeddings: Embeddings,
    private readonly uri: string,
    private readonly tableName = 'langchain',
  ) {
    super(embeddings, {});
  }

  _vectorstoreType(): string {
    return 'lancedb';
  }

  async addDocuments(documents: Document[], options?: { ids?: string[] }): Promise<void> {
    const vectors = await this.embeddings.embedDocuments(documents.map(({ pageContent }) => pageContent));
    await this.addVectors(vectors, documents, options);
  }

  async addVectors(vectors: number[][], documents: Document[], options?: { ids?: string[] }): Promise<void> {
    if (vectors.length === 0) return;
    if (vectors.length !== documents.length) throw new Error('Vectors and documents must have the same length');
    const data = documents.map((doc, i) => ({ id: options?.ids?.[i] ?? '', vector: vectors[i]!, text: doc.pageContent, ...doc.metadata }));
    if (!this.table) {
      this.table = await (await connect(this.uri)).createTable(this.tableName, data, { mode: 'overwrite' });
      return;
    }
    await this.table.add(data);
  }

  override async delete(params: { ids: string[] }): Promise<void> {
    if (!this.table || params.ids.length === 0) return;
    await this.table.delete(`id IN (${params.ids.map((id) => `'${id.replace(/'/g, "''")}'`).join(', ')})`);
  }

  async similaritySearchVectorWithScore(query: number[], k: number): Promise<[Document, number][]> {
    if (!this.table) throw new Error('Table not found. Please add vectors to the table first.');
    const results = (await this.table.query().nearestTo(query).limit(k).toArray()) as Array<Record<string, unknown>>;
    return results.map((item) => {
      const metadata: Record<string, unknown> = {};
      for (const key of Object.keys(item)) if (key !== 'vector' && key !== 'score' && key !== 'text') metadata[key] = item[key];
      return [new Document({ pageContent: String(item.text), metadata }), Number(item._distance)];
    });
  }

  /** Rows in the table (to check that cleanup left exactly the current chunks). */
  async count(): Promise<number> {
    return this.table ? this.table.countRows() : 0;
  }
}

/**
 * A conversation as a LangChain user indexes it: its transcript ("role: content" per message, a
 * blank line between) as one document whose source is the session, split to fit the model's window.
 */
export interface PeerOptions {
  /** Characters per chunk (RecursiveCharacterTextSplitter). */
  chunkSize: number;
  chunkOverlap: number;
}

export class PeerIndex {
  private constructor(
    readonly embeddings: ModelEmbeddings,
    private readonly records: SQLiteRecordManager,
    readonly store: LanceDBStore,
    private readonly splitter: RecursiveCharacterTextSplitter,
  ) {}

  static async open(dir: string, embedder: Embedder, options: PeerOptions): Promise<PeerIndex> {
    mkdirSync(dir, { recursive: true });
    const embeddings = new ModelEmbeddings(embedder);
    const records = new SQLiteRecordManager('lancedb/langchain', path.join(dir, 'records.sqlite'));
    await records.createSchema();
    const store = new LanceDBStore(embeddings, path.join(dir, 'lancedb'));
    return new PeerIndex(embeddings, records, store, new RecursiveCharacterTextSplitter({ chunkSize: options.chunkSize, chunkOverlap: options.chunkOverlap }));
  }

  /**
   * Indexes the session: split, then `index()` with incremental cleanup by source. One batch holds
   * the whole session: with `index()`'s default of 100 documents, each batch's cleanup deletes the
   * session's chunks that later batches have not reached yet, and every save would embed them all again.
   */
  async save(session: SessionInput): Promise<Awaited<ReturnType<typeof index>> & { embeddings: number; documents: number }> {
    const transcript = session.messages.map((m) => `${m.role}: ${m.content}`).join('\n\n');
    const docs = await this.splitter.splitDocuments([new Document({ pageContent: transcript, metadata: { source: session.sessionId } })]);
    const before = this.embeddings.embedded;
    const result = await index({
      docsSource: docs,
      recordManager: this.records,
      vectorStore: this.store,
      options: { cleanup: 'incremental', sourceIdKey: 'source', batchSize: Math.max(100, docs.length) },
    });
    return { ...result, embeddings: this.embeddings.embedded - before, documents: docs.length };
  }

  close(): void {
    this.records.close();
  }
}
