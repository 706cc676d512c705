/**
 * The peer system of `npm run bench:peer`: LangChain.js's indexing API (`index()` of
 * `@langchain/core/indexing`) with `@langchain/community`'s `SQLiteRecordManager` and a LanceDB
 * vector store, embedding with the same offline model as the engine.
 *
 * `@langchain/community` is not a dependency of this project: it declares some 150 optional peer
 * dependencies, which npm cannot resolve beside this project's zod 4. The benchmark installs the
 * published package by itself into `.cache/peer` (`--legacy-peer-deps`, so no peer is installed);
 * from there it finds better-sqlite3 and `@langchain/core` in this project's node_modules.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { connect, type Table } from '@lancedb/lancedb';
import { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { index, type RecordManagerInterface } from '@langchain/core/indexing';
import { VectorStore } from '@langchain/core/vectorstores';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import type { Embedder } from '../electron/embedding/embedder.js';

/**
 * Texts per call to the model: the engine's request of 32 (save/chunkWriter.ts), each request in one
 * call of the plain pipeline (bench-peer.ts starts the peer's worker with groupTokens 0), as
 * LangChain's HuggingFaceTransformersEmbeddings calls it with its batchSize. Its default of 512 would
 * cost the peer more: one call pads all 512 texts to the longest of them.
 */
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

/**
 * A LanceDB vector store that `index()` can clean up: it adds rows with the ids `index()` gives and
 * deletes by them. (`@langchain/community`'s LanceDB store drops those ids and has no `delete`, so
 * every cleanup of `index()` would throw "Not implemented" with it.)
 */
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

/** The published package the peer's record manager comes from (installed on first use). */
export const PEER_COMMUNITY = '@langchain/community@1.1.29';

interface RecordManager extends RecordManagerInterface {
  createSchema(): Promise<void>;
  db: { close(): void };
}
type RecordManagerClass = new (namespace: string, config: { localPath: string }) => RecordManager;

/** `SQLiteRecordManager` of the published `@langchain/community`, installed into `cacheDir` when absent. */
export async function communityRecordManager(cacheDir = path.resolve('.cache/peer')): Promise<RecordManagerClass> {
  const entry = path.join(cacheDir, 'node_modules', '@langchain', 'community', 'dist', 'indexes', 'sqlite.js');
  if (!existsSync(entry)) {
    console.error(`installing ${PEER_COMMUNITY} into ${cacheDir} (once)`);
    execFileSync('npm', ['install', '--prefix', cacheDir, '--no-save', '--no-audit', '--no-fund', '--legacy-peer-deps', '--ignore-scripts', PEER_COMMUNITY], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const module = (await import(pathToFileURL(entry).href)) as { SQLiteRecordManager: RecordManagerClass };
  return module.SQLiteRecordManager;
}

export class PeerIndex {
  private constructor(
    readonly embeddings: ModelEmbeddings,
    private readonly records: RecordManager,
    readonly store: LanceDBStore,
    private readonly splitter: RecursiveCharacterTextSplitter,
  ) {}

  static async open(dir: string, embedder: Embedder, options: PeerOptions): Promise<PeerIndex> {
    mkdirSync(dir, { recursive: true });
    const embeddings = new ModelEmbeddings(embedder);
    const SQLiteRecordManager = await communityRecordManager();
    const records = new SQLiteRecordManager('lancedb/langchain', { localPath: path.join(dir, 'records.sqlite') });
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
    this.records.db.close();
  }
}
