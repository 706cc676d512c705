/**
 * The searches' read cache for a store on S3 (store/objectCache.ts, store/objectCacheEndpoint.ts),
 * against real servers (s3rver and dynalite on 127.0.0.1) with a counting proxy in front of S3: after
 * the first search, the data and index files are read from this machine's disk; the cache is
 * bounded, least recently used first; a damaged block is read again; and a forget, here or on
 * another machine, leaves none of the forgotten text in it.
 */
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import type { SaveTimings } from '../electron/engine/save/index.js';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ObjectCache, type CachedObjectMeta } from '../electron/engine/store/objectCache.js';
import { ObjectCacheEndpoint } from '../electron/engine/store/objectCacheEndpoint.js';
import { READ_AHEAD_BYTES, ReadAheadGate } from '../electron/engine/store/objectCacheReadAhead.js';
import { hashEngineTestBed, scratchDirs } from './helpers/engine.js';
import { filesContaining } from './helpers/files.js';
import { serversBehindProxy } from './helpers/serversBehindProxy.js';

// The read cache is the subject, not embedding: the engines embed with the hashing stand-in.
const bed = hashEngineTestBed();
// The servers, and the engine reaching S3 through the counting proxy.
const net = serversBehindProxy();
const dir = scratchDirs('sm-read-cache-');

/** Four sessions saved and maintained by a machine of their own, as another machine left them. */
async function saveFourSessions(sharedUri: string): Promise<void> {
  const writer = await bed.open(dir(), { storeUri: sharedUri });
  try {
    for (const [i, marker] of ['lighthouse', 'orchard', 'glacier', 'harbour'].entries()) await writer.save(session(`s-${i}`, marker));
    await writer.maintain();
  } finally {
    await writer.close();
  }
}

/** A session of `count` messages whose text names `marker`. */
function session(sessionId: string, marker: string, count = 12): SessionInput {
  return {
    sessionId,
    title: `About ${marker}`,
    messages: Array.from({ length: count }, (_, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: i % 2 === 0 ? `Question ${i} about ${marker}: how does the ${marker} fare in winter storms?` : `Answer ${i}: the ${marker} keeps its lamp lit, and the keeper logs every storm in the ${marker} journal.`,
    })),
  };
}

/** The S3 reads of data, index and deletion files a job sends to the store. */
async function immutableReads(job: () => Promise<unknown>): Promise<number> {
  net.proxy.trace = [];
  try {
    await job();
    return net.proxy.trace.filter((line) => / (GET|HEAD) /.test(line) && /\.lance\/(data\/|_indices\/|_deletions\/)/.test(line)).length;
  } finally {
    net.proxy.trace = null;
  }
}

describe('the read cache of a store on S3', () => {
  it('serves every search after the first from disk: no data or index file is read from the store again, and the hits are the same', async () => {
    const { sharedUri } = await net.servers.newStore('read-cache');
    const writer = await bed.open(dir(), { storeUri: sharedUri });
    try {
      for (let i = 0; i < 4; i++) await writer.save(session(`s-${i}`, ['lighthouse', 'orchard', 'glacier', 'harbour'][i]!));
      await writer.maintain();
    } finally {
      await writer.close();
    }
    const uncached = await bed.open(dir(), { storeUri: sharedUri, readCacheBytes: 0 });
    const cachedDir = dir();
    const cached = await bed.open(cachedDir, { storeUri: sharedUri });
    try {
      const query = 'how does the lighthouse fare in winter storms';
      const expected = (await uncached.search(query, { limit: 5 })).map((h) => [h.chunkId, h.score]);
      // Without the cache, every search reads the files again.
      expect(await immutableReads(() => uncached.search(query, { limit: 5 }))).toBeGreaterThan(0);

      expect(await immutableReads(() => cached.search(query, { limit: 5 }))).toBeGreaterThan(0);
      let hits: Array<[string, number]> = [];
      expect(await immutableReads(async () => (hits = (await cached.search(query, { limit: 5 })).map((h) => [h.chunkId, h.score])))).toBe(0);
      expect(hits).toEqual(expected);
      // Another question reads the same files: from disk too.
      expect(await immutableReads(() => cached.search('the orchard journal', { limit: 5 }))).toBe(0);
      expect(filesContaining(path.join(cachedDir, 'object-cache'), 'lighthouse').length).toBeGreaterThan(0);
    } finally {
      await uncached.close();
      await cached.close();
    }
  }, 240_000);

  it('reads ahead the rest of the files a search read: a different question after it reads no data or index file from the store', async () => {
    const { sharedUri } = await net.servers.newStore('read-ahead');
    // A vector index, as a large store has: a search reads only some rows of the data files.
    const writer = await bed.open(dir(), { storeUri: sharedUri, vectorIndexMinRows: 256 });
    const markers = ['lighthouse', 'orchard', 'glacier', 'harbour', 'volcano', 'meadow', 'canyon', 'reef', 'tundra', 'marsh', 'quarry', 'vineyard',
      'lagoon', 'prairie', 'fjord', 'dune', 'atoll', 'delta', 'estuary', 'geyser', 'moor', 'oasis', 'steppe', 'summit'];
    try {
      for (const [i, marker] of markers.entries()) await writer.save(session(`s-${i}`, marker, 24));
      expect((await writer.maintain()).vectorIndexBuilt).toBe(true);
    } finally {
      await writer.close();
    }
    // Blocks of 1 KiB: the store spans hundreds of them.
    process.env.SESSION_MEMORY_TEST_READ_CACHE_BLOCK_BYTES = '1024';
    const uncached = await bed.open(dir(), { storeUri: sharedUri, readCacheBytes: 0 });
    const cached = await bed.open(dir(), { storeUri: sharedUri });
    try {
      expect(await immutableReads(() => cached.search('how does the lighthouse fare in winter storms', { limit: 5 }))).toBeGreaterThan(0);
      await (await cached.store.readCache())!.readAheadIdle();
      for (const query of ['the canyon journal', 'reef keeper storms', 'geyser lamp in the steppe']) {
        let hits: Array<[string, number]> = [];
        expect(await immutableReads(async () => (hits = (await cached.search(query, { limit: 5 })).map((h) => [h.chunkId, h.score])))).toBe(0);
        expect(hits).toEqual((await uncached.search(query, { limit: 5 })).map((h) => [h.chunkId, h.score]));
      }
    } finally {
      delete process.env.SESSION_MEMORY_TEST_READ_CACHE_BLOCK_BYTES;
      await uncached.close();
      await cached.close();
    }
  }, 240_000);

  it('finds the vectors a save reuses through the cache: a later save reads no data or index file of the store for them', async () => {
    const { sharedUri } = await net.servers.newStore('reuse-reads');
    await saveFourSessions(sharedUri);
    let timings: SaveTimings[] = [];
    const laptop = await bed.open(dir(), { storeUri: sharedUri, onSaveTimings: (t) => timings.push(t) });
    try {
      // Copies of stored conversations: every text is in the store, none is embedded again.
      net.proxy.trace = [];
      for (const [i, marker] of ['lighthouse', 'orchard', 'glacier', 'harbour'].entries()) expect((await laptop.save(session(`copy-${i}`, marker))).embeddingsComputed).toBe(0);
      await (await laptop.store.readCache())!.readAheadIdle();
      timings = [];
      const report = await laptop.save(session('again-1', 'orchard'));
      const sent = net.proxy.trace;
      net.proxy.trace = null;
      expect(report.embeddingsComputed).toBe(0);
      const [, start, end] = timings[0]!.spans.find(([phase]) => phase === 'vectorReuse')!;
      // The files this machine wrote since it opened the store (the lookup reads their rows, which no
      // index holds yet; the near-duplicate checks of the saves before may have read them through the cache already).
      const written = new Set(sent.filter((line) => / PUT /.test(line) && Number(line.split(' ')[0]) < start).map((line) => line.split(' ')[2]));
      const reads = sent.filter((line) => Number(line.split(' ')[0]) >= start - 1 && Number(line.split(' ')[0]) <= end + 1 && / (GET|HEAD) /.test(line) && /\.lance\/(data\/|_indices\/|_deletions\/)/.test(line));
      // None of a file the store held before: those come from this machine's disk.
      expect(reads.filter((line) => !written.has(line.split(' ')[2]))).toEqual([]);
      // Each reused vector is the one stored for the same text.
      const byText = new Map<string, Map<string, number[]>>();
      const rows: Array<{ chunkId: string; sessionId: string; vector: Float32Array }> = [];
      for await (const row of laptop.store.sessionVectors(['s-1', 'again-1'])) rows.push(row);
      const texts = await laptop.store.chunkTexts(rows.map((r) => r.chunkId));
      for (const row of rows) {
        const text = texts.get(row.chunkId)!.text;
        if (!byText.has(row.sessionId)) byText.set(row.sessionId, new Map());
        byText.get(row.sessionId)!.set(text, [...row.vector]);
      }
      const copies = [...byText.get('again-1')!];
      expect(copies.length).toBeGreaterThan(0);
      for (const [text, vector] of copies) expect(vector).toEqual(byText.get('s-1')!.get(text));
    } finally {
      await laptop.close();
    }
  }, 240_000);

  it('finds the stored rows a save\'s near-duplicate check compares (vectors by chunk id, copies by text hash) through the cache: a later process reads no data or index file of the store for them', async () => {
    const { sharedUri } = await net.servers.newStore('near-reads');
    await saveFourSessions(sharedUri);
    const machine = dir();
    const first = await bed.open(machine, { storeUri: sharedUri });
    const stored: Array<{ chunkId: string; sessionId: string; vector: Float32Array }> = [];
    let hashes: string[];
    try {
      for await (const row of first.store.sessionVectors(null)) stored.push(row);
      hashes = [...new Set((await first.store.sessionChunks('s-1')).map((c) => c.textHash))];
      // This machine's first lookups read the files, and the rest of them is read ahead.
      await first.store.vectorsByChunkId(stored.map((r) => r.chunkId));
      await first.store.chunksWithTextHashes(hashes, 'another');
      await (await first.store.readCache())!.readAheadIdle();
    } finally {
      await first.close();
    }
    // A later process on the same machine (a CLI save each time a hook runs): its lookups come from disk.
    const later = await bed.open(machine, { storeUri: sharedUri });
    try {
      await later.store.readCache();
      let vectors = new Map<string, Float32Array>();
      let copies: Awaited<ReturnType<typeof later.store.chunksWithTextHashes>> = [];
      expect(await immutableReads(async () => {
        vectors = await later.store.vectorsByChunkId(stored.map((r) => r.chunkId));
        copies = await later.store.chunksWithTextHashes(hashes, 'another');
      })).toBe(0);
      expect(vectors.size).toBe(stored.length);
      for (const row of stored) expect([...vectors.get(row.chunkId)!]).toEqual([...row.vector]);
      expect(new Set(copies.map((c) => c.sessionId))).toEqual(new Set(['s-1']));
      expect(new Set(copies.map((c) => c.textHash))).toEqual(new Set(hashes));
    } finally {
      await later.close();
    }
  }, 240_000);

  it('serves an s3:// store (versions found by listing, passed to the store) the same way', async () => {
    const { plainUri } = await net.servers.newStore('read-cache-plain');
    const engine = await bed.open(dir(), { storeUri: plainUri, singleWriter: true });
    try {
      await engine.save(session('plain', 'lighthouse'));
      net.proxy.trace = [];
      expect((await engine.search('lighthouse storms', { limit: 3 }))[0]?.sessionId).toBe('plain');
      expect(net.proxy.trace.some((line) => / LIST /.test(line))).toBe(true);
      net.proxy.trace = null;
      let top: string | undefined;
      expect(await immutableReads(async () => (top = (await engine.search('lighthouse storms', { limit: 3 }))[0]?.sessionId))).toBe(0);
      expect(top).toBe('plain');
      await engine.save(session('later', 'glacier crevasse'));
      expect((await engine.search('glacier crevasse', { limit: 3 }))[0]?.sessionId).toBe('later');
    } finally {
      await engine.close();
    }
  }, 240_000);

  it('sees another machine\'s save at the next search (only the immutable files are cached)', async () => {
    const { sharedUri } = await net.servers.newStore('read-cache-fresh');
    const writer = await bed.open(dir(), { storeUri: sharedUri });
    const reader = await bed.open(dir(), { storeUri: sharedUri });
    try {
      await writer.save(session('first', 'lighthouse'));
      expect((await reader.search('glacier crevasse', { limit: 3 })).some((h) => h.sessionId === 'second')).toBe(false);
      await writer.save(session('second', 'glacier crevasse'));
      expect((await reader.search('glacier crevasse', { limit: 3 }))[0]?.sessionId).toBe('second');
    } finally {
      await writer.close();
      await reader.close();
    }
  }, 240_000);

  it('leaves no forgotten text on the disk of the machine that forgets, nor on another machine at its next open', async () => {
    const { sharedUri } = await net.servers.newStore('read-cache-forget');
    const laptopDir = dir();
    const desktopDir = dir();
    const laptop = await bed.open(laptopDir, { storeUri: sharedUri });
    let desktop = await bed.open(desktopDir, { storeUri: sharedUri });
    try {
      await laptop.save(session('secret', 'marmalade submarine'));
      await laptop.save(session('kept', 'orchard fence'));
      for (const engine of [laptop, desktop]) await engine.search('marmalade submarine', { limit: 5 });
      for (const d of [laptopDir, desktopDir]) expect(filesContaining(path.join(d, 'object-cache'), 'marmalade submarine').length).toBeGreaterThan(0);

      await laptop.forget(['secret']);
      expect(filesContaining(path.join(laptopDir, 'object-cache'), 'marmalade submarine')).toEqual([]);
      // The kept session is still found, from the store's new files.
      expect((await laptop.search('orchard fence', { limit: 3 }))[0]?.sessionId).toBe('kept');

      await desktop.close();
      desktop = await bed.open(desktopDir, { storeUri: sharedUri });
      expect(filesContaining(path.join(desktopDir, 'object-cache'), 'marmalade submarine')).toEqual([]);
      expect((await desktop.search('orchard fence', { limit: 3 }))[0]?.sessionId).toBe('kept');
    } finally {
      await laptop.close();
      await desktop.close();
    }
  }, 240_000);
});

describe('reading ahead', () => {
  it('waits while a save holds it back, then reads the rest of the object in ranges of at most 4 MiB', async () => {
    const { bucket } = await net.servers.newStore('read-ahead-gate');
    const key = 'memory/chunks.lance/data/0101.lance';
    const body = Buffer.from(Array.from({ length: 9 * 1024 * 1024 }, (_, i) => (i * 7) % 251));
    const s3 = new S3Client({ region: 'us-east-1', endpoint: net.proxy.endpoint, forcePathStyle: true });
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    s3.destroy();
    const gate = new ReadAheadGate();
    const cache = new ObjectCache(dir(), 64 * 1024 * 1024);
    const endpoint = await ObjectCacheEndpoint.start(cache, { endpoint: net.proxy.endpoint, region: 'us-east-1' }, gate);
    try {
      const release = gate.hold();
      // A search's read of its first KB: one block from the store, the rest left for later.
      const answer = await fetch(`${endpoint.url}/${bucket}/${key}`, { headers: { range: 'bytes=0-1023' } });
      expect(Buffer.from(await answer.arrayBuffer())).toEqual(body.subarray(0, 1024));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(endpoint.counts.readAhead).toBe(0);
      net.proxy.trace = [];
      release();
      await endpoint.readAheadIdle();
      const ranges = net.proxy.trace.filter((line) => / GET /.test(line)).map((line) => /bytes=(\d+)-(\d+)/.exec(line)!.slice(1).map(Number) as [number, number]);
      net.proxy.trace = null;
      expect(ranges.length).toBe(endpoint.counts.readAhead);
      expect(ranges.every(([start, end]) => end - start + 1 <= READ_AHEAD_BYTES)).toBe(true);
      // The whole object is on disk now: a read anywhere goes to no store.
      net.proxy.trace = [];
      const later = await fetch(`${endpoint.url}/${bucket}/${key}`, { headers: { range: 'bytes=8000000-8100000' } });
      expect(Buffer.from(await later.arrayBuffer())).toEqual(body.subarray(8_000_000, 8_100_001));
      expect(net.proxy.trace).toEqual([]);
      net.proxy.trace = null;
    } finally {
      endpoint.close();
    }
  }, 60_000);
});

describe('the cache on disk', () => {
  const meta = (name: string, size: number): CachedObjectMeta => ({ path: `bucket/memory/chunks.lance/data/${name}.lance`, size, lastModified: new Date(0).toUTCString(), etag: null });
  const block = (fill: number, size = 1024) => Buffer.alloc(size, fill);

  it('keeps within its bound, dropping the blocks used least recently first', async () => {
    const cache = new ObjectCache(dir(), 3 * 1024, 1024);
    const objects = ['a', 'b', 'c'].map((name) => meta(name, 1024));
    for (const [i, m] of objects.entries()) {
      await cache.remember(m);
      await cache.store(m, 0, block(i));
    }
    // Written in that order, long ago; then `a` is read: it is the most recently used.
    const files = await blockFilesOf(cache.dir);
    const old = Date.now() / 1000 - 3600;
    for (const [name, file] of files) await fs.utimes(file, old + 'abc'.indexOf(name), old + 'abc'.indexOf(name));
    expect(await cache.block(objects[0]!, 0)).toEqual(block(0));
    const d = meta('d', 1024);
    await cache.remember(d);
    await cache.store(d, 0, block(3));
    expect(await cache.countedBytes()).toBeLessThanOrEqual(3 * 1024);
    expect(await cache.block(objects[0]!, 0)).toEqual(block(0));
    expect(await cache.block(objects[1]!, 0)).toBeNull();
    expect(await cache.block(d, 0)).toEqual(block(3));
  });

  it('reads a block again from the store when its file is not whole', async () => {
    const cache = new ObjectCache(dir(), 1024 * 1024, 1024);
    const m = meta('e', 1500);
    await cache.remember(m);
    await cache.store(m, 0, Buffer.concat([block(1), block(2, 476)]));
    expect(await cache.block(m, 1)).toEqual(block(2, 476));
    const files = await blockFilesOf(cache.dir);
    await fs.truncate(files.find(([, f]) => f.endsWith(`${path.sep}1`))![1], 100);
    // This process still holds the whole block in memory; another process reads the damaged file.
    expect(await cache.block(m, 1)).toEqual(block(2, 476));
    expect(await new ObjectCache(cache.dir, 1024 * 1024, 1024).block(m, 1)).toBeNull();
  });

  it('serves the blocks this process read lately from memory, and drops them from memory as from disk', async () => {
    const cache = new ObjectCache(dir(), 1024 * 1024, 1024);
    const kept = meta('f', 2048);
    const gone = meta('g', 1024);
    for (const [m, data] of [[kept, Buffer.concat([block(5), block(6)])], [gone, block(7)]] as const) {
      await cache.remember(m);
      await cache.store(m, 0, data);
    }
    // Read once from its file by a fresh instance, the block is then served without it.
    const reader = new ObjectCache(cache.dir, 1024 * 1024, 1024);
    expect(await reader.block(kept, 1)).toEqual(block(6));
    for (const [letter, file] of await blockFilesOf(cache.dir)) if (letter === 'f') await fs.rm(file);
    expect(await reader.block(kept, 1)).toEqual(block(6));
    expect(await reader.block(kept, 0)).toBeNull();
    // A prune (after a forget) leaves the pruned object's bytes nowhere, in memory either.
    expect(await cache.block(gone, 0)).toEqual(block(7));
    await cache.prune((objectPath) => objectPath !== gone.path);
    expect(await cache.block(gone, 0)).toBeNull();
  });

  it('keeps blocks read ahead on disk only, so they push no block a search read out of memory', async () => {
    const cache = new ObjectCache(dir(), 1024 * 1024, 1024);
    const searched = meta('h', 1024);
    const ahead = meta('i', 1024);
    await cache.remember(searched);
    await cache.store(searched, 0, block(8));
    await cache.remember(ahead);
    await cache.store(ahead, 0, block(9), false);
    for (const [, file] of await blockFilesOf(cache.dir)) await fs.rm(file);
    expect(await cache.block(searched, 0)).toEqual(block(8));
    expect(await cache.block(ahead, 0)).toBeNull();
  });

  /** [object letter, block file] for every block file, the letter read from its object's record. */
  async function blockFilesOf(root: string): Promise<Array<[string, string]>> {
    const found: Array<[string, string]> = [];
    for (const name of await fs.readdir(root)) {
      const record = JSON.parse(await fs.readFile(path.join(root, name, 'meta.json'), 'utf8')) as CachedObjectMeta;
      const letter = /data\/(\w)\.lance$/.exec(record.path)![1]!;
      for (const entry of await fs.readdir(path.join(root, name))) if (/^\d+$/.test(entry)) found.push([letter, path.join(root, name, entry)]);
    }
    return found;
  }
});
