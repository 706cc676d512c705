/**
 * `npx tsx scripts/bench-shared-saves.ts [--sizes 10000,50000]`
 *
 * The requests of a new session's save on a shared store, by store size: at each size a machine with
 * an empty read cache saves a new 40-message session (real passages and the real model, as
 * bench-shared.ts), searches 3 times (the read ahead fills its cache), then saves two more new
 * sessions. `s3+ddb://` on the tests' S3 and DynamoDB servers through counting proxies with no added
 * latency: request counts depend on neither latency nor load. Prints each save's requests, its reads
 * of data and index files, and the process's CPU time. A save's requests with the cache filled must
 * not grow with the store.
 */
import './quietLance.js';
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { ensureUseLiteEn } from '../electron/embedding/useLiteEn.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import { startObjectStoreServers } from '../test/helpers/objectStore.js';
import { startLatencyProxy } from './latencyProxy.js';
import { drawQueries, embeddedPassages, fillStoreTo, freshMessages } from './benchCorpus.js';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,50000' } } });
const SIZES = values.sizes.split(',').map((raw) => {
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--sizes must be positive integers, not "${raw}"`);
  return n;
}).sort((a, b) => a - b);
const modelsDir = path.resolve('.cache/models');
await ensureUseLiteEn(modelsDir);
const embedder = await WorkerEmbedder.start('use-lite-en', { modelsDir });
const servers = await startObjectStoreServers();
const port = (e: string) => Number(new URL(e).port);
const s3 = await startLatencyProxy(port(servers.env.AWS_ENDPOINT_URL_S3!), 0);
const ddb = await startLatencyProxy(port(servers.env.AWS_ENDPOINT_URL_DYNAMODB!), 0);
Object.assign(process.env, servers.env);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sm-saves-'));
const passages = await embeddedPassages(embedder, 10000, path.resolve('.cache/bench'), () => {});
const { sharedUri } = await servers.newStore('saves');
let filled = 0;
for (const [s, size] of SIZES.entries()) {
  Object.assign(process.env, servers.env);
  filled = await fillStoreTo(sharedUri, filled, size, passages, { model: embedder.model, dim: embedder.dim });
  {
    const e = await MemoryEngine.open({ dataDir: path.join(tmp, `m0-${size}`), storeUri: sharedUri, embedder, lockWaitMs: 120_000 });
    await e.maintain();
    await e.close();
  }
  Object.assign(process.env, { AWS_ENDPOINT_URL_S3: s3.endpoint, AWS_ENDPOINT_URL_DYNAMODB: ddb.endpoint });
  // A machine of its own at each size: its read cache starts empty.
  const engine = await MemoryEngine.open({ dataDir: path.join(tmp, `m-${size}`), storeUri: sharedUri, embedder, lockWaitMs: 120_000, readCacheBytes: 1 << 30 });
  try {
    await engine.save({ sessionId: `warm-${size}`, messages: [{ role: 'user', content: `warm-up ${size}` }] });
    const measure = async (label: string, id: string, seed: number) => {
      s3.trace = [];
      ddb.trace = [];
      const cpu = process.cpuUsage();
      const report = await engine.save({ sessionId: id, title: id, source: 'json', messages: freshMessages(id, 40, seed, passages) });
      const c = process.cpuUsage(cpu);
      const sent = s3.trace;
      const ddbSent = ddb.trace;
      s3.trace = null;
      ddb.trace = null;
      const immutable = sent.filter((l) => / (GET|HEAD) /.test(l) && /\.lance\/(data\/|_indices\/|_deletions\/)/.test(l));
      console.log(`${size} rows (${await engine.store.countChunks()} chunks), ${label}: ${sent.length + ddbSent.length} requests (S3 ${sent.length}, DynamoDB ${ddbSent.length}); reads of data/index files ${immutable.length} (_indices ${immutable.filter((l) => l.includes('/_indices/')).length}); ${report.new} chunks written, ${report.embeddingsComputed} embedded; CPU ${((c.user + c.system) / 1000).toFixed(0)} ms`);
    };
    await measure('new session, read cache empty', `first-${size}`, 500 + s);
    const queries = drawQueries(3);
    for (const q of queries) await engine.search(q, { limit: 10 });
    await (await engine.store.readCache())?.readAheadIdle();
    await measure('new session after 3 searches (read cache filled)', `later-${size}`, 600 + s);
    await measure('another new session', `later2-${size}`, 700 + s);
  } finally {
    await engine.close();
  }
}
await s3.close();
await ddb.close();
await servers.close();
await embedder.close();
rmSync(tmp, { recursive: true, force: true });
process.exit(0);
