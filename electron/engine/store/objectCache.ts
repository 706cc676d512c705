/**
 * This machine's copy on disk of the store's objects that never change once written (data files,
 * index files, deletion files of LanceDB tables: each is written once under a new name, a version is
 * a new manifest that names them), so that the searches on a store on object storage read them from
 * the local disk after their first read, and only the version check goes to the network.
 *
 * Objects are kept in blocks of BLOCK_BYTES, keyed by the object's path and size (a `meta.json` per
 * object, next to its blocks): only the parts a search read are kept. The cache is bounded: past its
 * size, the blocks used least recently (their files' modification times: a read touches them) go
 * first. Several processes of this machine (the app, the CLI, an MCP server) share it: each file is
 * written under a name of its own and renamed into place, so a reader sees a whole block or none; a
 * block removed under a reader is read again from the store.
 *
 * The blocks this process read or stored last are held in memory too (MEMORY_BLOCK_BYTES at most), so
 * that a warm search, which reads hundreds of ranges, reads no file for most of them.
 *
 * The cache holds text. After a forget or a redact, `prune` drops every object the store no longer
 * has (LanceDB's cleanup removed it), from disk and from memory, so a forgotten text stays on no local
 * disk either.
 *
 * LanceDB 0.31 keeps index and metadata caches in memory only (its Session); a data cache on disk is
 * proposed upstream (lance-format/lance#6483, #6487) but not released: hence this one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { LRUCache } from 'lru-cache';

/** The size of a cached block: a search's reads (a page of a column, a vector, an index part) are a few KB to a few hundred KB. */
export const BLOCK_BYTES = 64 * 1024;

/** The bound when the user sets none. */
export const DEFAULT_OBJECT_CACHE_BYTES = 1024 * 1024 * 1024;

/** Files that never change once written: a table's data files, index files and deletion files. */
const IMMUTABLE = /\.lance\/(data\/[^/]+\.lance|_indices\/[^/]+\/[^/]+|_deletions\/[^/]+)$/;

/** Whether the object at this path (bucket and key) may be cached: never a manifest, a version pointer or anything else that changes. */
export function isImmutableObject(objectPath: string): boolean {
  return IMMUTABLE.test(objectPath);
}

/** What a cached object's responses need besides its bytes. */
export interface CachedObjectMeta {
  /** Bucket and key. */
  path: string;
  size: number;
  lastModified: string;
  etag: string | null;
}

/**
 * The most bytes of blocks held in memory as well, the used last (a warm search at 50k chunks reads
 * about 420 ranges of the files; from memory each costs no read of a file).
 */
export const MEMORY_BLOCK_BYTES = 64 * 1024 * 1024;

/** A touch of a block's file (its time of last use) at most this often per block. */
const TOUCH_EVERY_MS = 10_000;

export class ObjectCache {
  /** Bytes of blocks in the cache, as last counted plus what this process added since; null until counted. */
  private bytes: number | null = null;
  private evicting: Promise<void> | null = null;
  private readonly touched = new Map<string, number>();
  private readonly metas = new Map<string, CachedObjectMeta>();
  /** Blocks read or stored by this process, by block file: the same bytes as on disk (an object's blocks never change). */
  private readonly memory: LRUCache<string, Buffer>;

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
    readonly blockBytes: number = BLOCK_BYTES,
  ) {
    this.memory = new LRUCache<string, Buffer>({ maxSize: Math.max(1, Math.min(MEMORY_BLOCK_BYTES, maxBytes)), sizeCalculation: (block) => Math.max(1, block.length) });
  }

  private objectDir(objectPath: string): string {
    return path.join(this.dir, createHash('sha256').update(objectPath).digest('hex').slice(0, 40));
  }

  /** The object's size and headers when it is cached; null when not. */
  async meta(objectPath: string): Promise<CachedObjectMeta | null> {
    const known = this.metas.get(objectPath);
    if (known) return known;
    try {
      const meta = JSON.parse(await fs.readFile(path.join(this.objectDir(objectPath), 'meta.json'), 'utf8')) as CachedObjectMeta;
      if (meta.path !== objectPath) return null;
      this.metas.set(objectPath, meta);
      return meta;
    } catch {
      return null;
    }
  }

  /** Records an object (path and size are its key): an entry of the same path with another size is dropped first. */
  async remember(meta: CachedObjectMeta): Promise<void> {
    const known = await this.meta(meta.path);
    if (known && known.size === meta.size) return;
    const dir = this.objectDir(meta.path);
    if (known) await this.dropDir(dir);
    this.metas.delete(meta.path);
    await fs.mkdir(dir, { recursive: true });
    await this.writeAtomically(path.join(dir, 'meta.json'), Buffer.from(JSON.stringify(meta)));
    this.metas.set(meta.path, meta);
  }

  /**
   * Block `index` of a cached object, or null when it is not (or no longer) on disk: from memory when
   * this process read or stored it lately, else from its file.
   */
  async block(meta: CachedObjectMeta, index: number): Promise<Buffer | null> {
    const file = path.join(this.objectDir(meta.path), String(index));
    let data = this.memory.get(file);
    if (!data) {
      try {
        data = await fs.readFile(file);
      } catch {
        return null;
      }
      if (data.length !== this.blockLength(meta, index)) return null;
      this.memory.set(file, data);
    }
    const now = Date.now();
    if (now - (this.touched.get(file) ?? 0) > TOUCH_EVERY_MS) {
      this.touched.set(file, now);
      const at = new Date(now);
      void fs.utimes(file, at, at).catch(() => {});
    }
    return data;
  }

  /** The indexes of the object's blocks on disk (whole or not: `block` checks each when read). */
  async presentBlocks(meta: CachedObjectMeta): Promise<Set<number>> {
    try {
      return new Set((await fs.readdir(this.objectDir(meta.path))).filter((e) => /^\d+$/.test(e)).map(Number));
    } catch {
      return new Set();
    }
  }

  /** How many blocks the object has. */
  blockCount(meta: CachedObjectMeta): number {
    return Math.ceil(meta.size / this.blockBytes);
  }

  /** The length block `index` of an object has (the last one is shorter). */
  blockLength(meta: CachedObjectMeta, index: number): number {
    return Math.max(0, Math.min(this.blockBytes, meta.size - index * this.blockBytes));
  }

  /**
   * Stores whole blocks from `firstIndex` on, read from the store; then evicts past the bound. Never
   * creates the object's folder (`remember` does): blocks of an object pruned meanwhile are not kept.
   * `inMemory: false` (blocks read ahead, which no search asked for yet) keeps them on disk only, so
   * that reading ahead does not push the blocks searches use out of memory.
   */
  async store(meta: CachedObjectMeta, firstIndex: number, data: Buffer, inMemory = true): Promise<void> {
    const dir = this.objectDir(meta.path);
    let added = 0;
    for (let index = firstIndex, offset = 0; offset < data.length; index++, offset += this.blockBytes) {
      const block = data.subarray(offset, offset + this.blockBytes);
      if (block.length !== this.blockLength(meta, index)) break;
      try {
        const file = path.join(dir, String(index));
        await this.writeAtomically(file, block);
        if (inMemory) this.memory.set(file, Buffer.from(block));
        added += block.length;
      } catch {
        // Its folder went (another process evicted or pruned the object): the block is read from the store next time.
        return;
      }
    }
    if (this.bytes !== null) this.bytes += added;
    if ((await this.countedBytes()) > this.maxBytes) await this.evict();
  }

  /** The bytes of blocks the cache holds (counted once, then kept up to date by this process). */
  async countedBytes(): Promise<number> {
    if (this.bytes === null) this.bytes = (await this.blockFiles()).reduce((sum, f) => sum + f.size, 0);
    return this.bytes;
  }

  /** Removes the blocks used least recently until the cache is under 90% of its bound (all processes' blocks). */
  evict(): Promise<void> {
    this.evicting ??= (async () => {
      const files = (await this.blockFiles()).sort((a, b) => a.mtimeMs - b.mtimeMs);
      let total = files.reduce((sum, f) => sum + f.size, 0);
      const target = this.maxBytes * 0.9;
      for (const file of files) {
        if (total <= target) break;
        await fs.rm(file.path, { force: true });
        this.memory.delete(file.path);
        this.touched.delete(file.path);
        total -= file.size;
      }
      this.bytes = total;
    })().finally(() => (this.evicting = null));
    return this.evicting;
  }

  /**
   * Drops every cached object that `exists` says the store no longer has (after a forget or a redact,
   * whose cleanup removed the files that held the text). Returns how many objects went.
   */
  async prune(exists: (objectPath: string) => boolean): Promise<number> {
    let dropped = 0;
    for (const name of await this.objectDirs()) {
      const dir = path.join(this.dir, name);
      let objectPath: string | null = null;
      try {
        objectPath = (JSON.parse(await fs.readFile(path.join(dir, 'meta.json'), 'utf8')) as CachedObjectMeta).path;
      } catch {
        // No record of what it holds: it cannot be shown to be kept.
      }
      if (objectPath !== null && exists(objectPath)) continue;
      if (objectPath !== null) this.metas.delete(objectPath);
      await this.dropDir(dir);
      dropped++;
    }
    this.bytes = null;
    return dropped;
  }

  /** Whether the cache holds any object. */
  async holdsAny(): Promise<boolean> {
    return (await this.objectDirs()).length > 0;
  }

  /** Every block file with its size and time of last use. */
  private async blockFiles(): Promise<Array<{ path: string; size: number; mtimeMs: number }>> {
    const files: Array<{ path: string; size: number; mtimeMs: number }> = [];
    for (const name of await this.objectDirs()) {
      const dir = path.join(this.dir, name);
      let entries: string[];
      try {
        entries = await fs.readdir(dir);
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (!/^\d+$/.test(entry)) continue;
        const file = path.join(dir, entry);
        try {
          const stat = await fs.stat(file);
          files.push({ path: file, size: stat.size, mtimeMs: stat.mtimeMs });
        } catch {
          // Removed meanwhile by another process.
        }
      }
    }
    return files;
  }

  private async objectDirs(): Promise<string[]> {
    try {
      return (await fs.readdir(this.dir)).filter((name) => /^[0-9a-f]{40}$/.test(name));
    } catch {
      return [];
    }
  }

  private async dropDir(dir: string): Promise<void> {
    const inside = dir + path.sep;
    for (const file of [...this.memory.keys()]) if (file.startsWith(inside)) this.memory.delete(file);
    await fs.rm(dir, { recursive: true, force: true });
  }

  private async writeAtomically(file: string, data: Buffer): Promise<void> {
    const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temp, data);
      await fs.rename(temp, file);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }
}
