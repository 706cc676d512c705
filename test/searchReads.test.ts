/**
 * What a search reads of a store on S3 (search.ts, store/storeSearch.ts), against real servers
 * (s3rver and dynalite on 127.0.0.1) with a counting proxy in front of S3 and no read cache, so that
 * every ranged read LanceDB makes reaches the proxy: the candidates of the vector and full-text
 * searches are read without their texts and vectors, which are read for the few a search keeps.
 */
import { describe, expect, it } from 'vitest';
import type { SessionInput } from '../shared/domain.js';
import type { Embedder } from '../electron/embedding/embedder.js';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { openEngine, scratchDirs } from './helpers/engine.js';
import { serversBehindProxy } from './helpers/serversBehindProxy.js';

/**
 * The hashing stand-in, with a window wide enough for a long message to be one chunk: the texts
 * are then most of what a store holds, as with a real model's longer chunks.
 */
const hashing = new HashEmbedder();
const embedder: Embedder = { model: hashing.model, dim: hashing.dim, maxTokens: 4_000, embed: (texts) => hashing.embed(texts), close: () => hashing.close() };
// The servers, and the engine reaching S3 through the counting proxy.
const net = serversBehindProxy();
const dir = scratchDirs('sm-search-reads-');

/** Words of their own for message `n`: every chunk of the store has a different text. */
function wordsOf(n: number, count: number): string {
  const words: string[] = [];
  let x = n * 7919 + 17;
  for (let i = 0; i < count; i++) {
    x = (x * 48271) % 2147483647;
    words.push(x.toString(36).slice(0, 7));
  }
  return words.join(' ');
}

/** Words of a message: about 8 KB of text, one chunk (`embedder`), two too many for one. */
const TEXT_WORDS = 1_000;

/** A session of `count` long messages, each a chunk of its own, all of which hold the word "storm". */
function session(index: number, count: number): SessionInput {
  return {
    sessionId: `s-${index}`,
    title: `Log ${index}`,
    messages: Array.from({ length: count }, (_, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `The storm log ${index * count + i}: ${wordsOf(index * count + i, TEXT_WORDS)}`,
    })),
  };
}

/** The bytes of data files of the chunks table that a job reads from the store (ranged GETs). */
async function dataBytesRead(job: () => Promise<unknown>): Promise<number> {
  net.proxy.trace = [];
  try {
    await job();
    let bytes = 0;
    for (const line of net.proxy.trace) {
      if (!/ GET /.test(line) || !/chunks\.lance\/data\//.test(line)) continue;
      const range = /bytes=(\d+)-(\d+)/.exec(line);
      if (range) bytes += Number(range[2]) - Number(range[1]) + 1;
    }
    return bytes;
  } finally {
    net.proxy.trace = null;
  }
}

describe('a search of a store on S3', () => {
  it('reads the texts and vectors of the candidates it keeps, not of every candidate of its two searches', async () => {
    const { sharedUri } = await net.servers.newStore('search-reads');
    const sessions = Array.from({ length: 6 }, (_, i) => session(i, 100));
    const textBytes = sessions.reduce((sum, s) => sum + s.messages.reduce((n, m) => n + m.content.length, 0), 0);
    const writer = await openEngine(dir(), embedder, { storeUri: sharedUri });
    try {
      for (const s of sessions) await writer.save(s);
      await writer.maintain();
    } finally {
      await writer.close();
    }
    // No read cache: every read LanceDB makes reaches the store.
    const searcher = await openEngine(dir(), embedder, { storeUri: sharedUri, readCacheBytes: 0 });
    try {
      const chunks = await searcher.store.countChunks();
      // A chunk per message, more than a search's pools (160 candidates each), every one found by the word searched.
      expect(chunks).toBe(600);
      // The first search reads the index files and the tables' metadata, and every vector (2 KB each):
      // the store has no vector index. From the second on the view holds the vectors in memory
      // (heldVectors.ts), read once beside it; a search after that reads no vector but its results'.
      await searcher.search('what was in the storm log', { limit: 3 });
      await searcher.search('what was in the storm log', { limit: 3 });
      for (let i = 0; i < 200 && (await searcher.store.searching(async (reads) => reads.heldVectors)) !== chunks; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await searcher.store.searching(async (reads) => reads.heldVectors)).toBe(chunks);
      let hits = 0;
      const read = await dataBytesRead(async () => (hits = (await searcher.search('what was in the storm log', { limit: 3 })).length));
      expect(hits).toBe(3);
      // Of the texts it reads those of the candidates kept (12 of each search's 160 for 3 results), the
      // turns next to the results and the messages around them: well under three quarters of the
      // store's texts. Read with every candidate of both searches, they came to more than all of them
      // (6.8 MB here). Each search read every vector besides (1.2 MB here) before the view held them.
      expect(read).toBeLessThan(0.75 * textBytes);
    } finally {
      await searcher.close();
    }
  }, 300_000);
});
