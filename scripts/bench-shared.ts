/**
 * `npm run bench:shared [-- --sizes 2000,10000,20000] [-- --distinct N] [-- --queries N] [-- --latency-ms 20] [-- --read-cache-mb 1024] [-- --json]`
 *
 * A memory on object storage against one in a local folder: the same store, filled with real
 * passages embedded by the real offline model (benchCorpus.ts: `--distinct` passages, 20k by default,
 * embedded once and cached under `.cache/bench/`; a store larger than that holds them more than
 * once), written straight through the store layer, measured at each size of `--sizes` in three
 * places:
 *   - a local folder;
 *   - an `s3+ddb://` store on the local S3 and DynamoDB servers the tests use (s3rver, dynalite);
 *   - the same store through a TCP proxy of this benchmark (latencyProxy.ts) in front of both
 *     servers, holding every byte `--latency-ms` (20) in each direction, as a bucket in another
 *     building would; the proxy counts the connections and the requests (by kind) that reach them.
 * At each size the store is maintained as the app does it (the vector index once it is due, then a
 * compaction), then in each place, with an engine whose record and sketch are caught up (one small
 * save first):
 *   - save: a new 40-message session (its text is the generator's, new to the store: the time includes
 *     embedding it);
 *   - re-save: the same session again, nothing new (median of 5);
 *   - append: 4 new messages at its end (median of 2);
 *   - a save of another new session after the searches (the read cache filled by them);
 *   - search: `engine.search` (embedding the query, vector and full-text search, merged; limit 10),
 *     the first one alone with the searches' read cache on disk empty (store/objectCache.ts; its size
 *     after the searches is reported; `--read-cache-mb 0` measures without it), then p50 and p95 of
 *     `--queries` questions after 3 untimed ones, once the read ahead those started in the background is
 *     done (its time and requests are printed); and its parts on their own (vector
 *     search and full-text search of the store, 40 candidates each as a search asks).
 * Each save's phases (saveTimings.ts) are printed, the save's, the median re-save's and the median
 * append's; in the third place its requests are also told by the phase that sent them and what they
 * touched (table and kind of file, or the DynamoDB operation).
 * Requests are counted per operation in the third place; `--trace` prints those of one search there
 * in the order they were sent, grouped into the rounds a search waits for one after the other. Those of a search must not grow with the
 * store: compare the sizes that both have the vector index (VECTOR_INDEX_MIN_ROWS and more; below
 * it a search reads every vector, in a few large reads).
 */
import './quietLance.js';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { SaveReport, SessionInput } from '../shared/domain.js';
import { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { ensureUseLiteEn } from '../electron/embedding/useLiteEn.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import { SAVE_PHASES, type SaveTimings } from '../electron/engine/save/index.js';
import { VECTOR_INDEX_MIN_ROWS } from '../electron/engine/store/index.js';
import { OBJECT_CACHE_FOLDER } from '../electron/engine/files/index.js';
import { startObjectStoreServers } from '../test/helpers/objectStore.js';
import { drawQueries, embeddedPassages, fillStoreTo, freshMessages, type Passage } from './benchCorpus.js';
import { countsSince, startLatencyProxy, type LatencyProxy, type ProxyCounts } from './latencyProxy.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    sizes: { type: 'string', default: '2000,10000,20000' },
    // As bench:large, whose cache of embedded passages it shares.
    distinct: { type: 'string', default: '20000' },
    queries: { type: 'string', default: '30' },
    'latency-ms': { type: 'string', default: '20' },
    // Prints the requests of one search with latency at each size, in rounds (see traceSearch).
    trace: { type: 'boolean', default: false },
    // The searches' read cache on this machine's disk (store/objectCache.ts), in MB; 0: none.
    'read-cache-mb': { type: 'string', default: '1024' },
    models: { type: 'string', default: path.resolve('.cache/models') },
  },
});

function positiveInt(name: string, raw: string | undefined): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, not "${raw}"`);
  return n;
}

const SIZES = values.sizes.split(',').map((s) => positiveInt('sizes', s.trim())).sort((a, b) => a - b);
const QUERIES = positiveInt('queries', values.queries);
const DISTINCT = positiveInt('distinct', values.distinct);
const LATENCY_MS = positiveInt('latency-ms', values['latency-ms']);
const READ_CACHE_BYTES = values['read-cache-mb'] === '0' ? 0 : positiveInt('read-cache-mb', values['read-cache-mb']) * 1024 * 1024;
const CHUNKS_PER_SESSION = 50;
const FILL_COMMIT_ROWS = 2_000;
const PROBE_MESSAGES = 40;
const APPEND_MESSAGES = 4;
const APPENDS = 2;
const RESAVES = 5;
const SEARCH_WARMUP = 3;
/** Candidates a search asks each side for (engine.search: limit 10, four per result when folding copies). */
const CANDIDATES = 40;
const TARGET_SEARCH_P95_MS = 250;

const log = (line: string) => (values.json ? console.error(line) : console.log(line));

function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  // Nearest rank: p95 of 30 samples is the 29th smallest.
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

async function timed<T>(job: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await job();
  return [result, performance.now() - started];
}

/** The bytes of the files under a folder (0 when there is none). */
function folderBytes(dir: string): number {
  let bytes = 0;
  try {
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      const stat = statSync(path.join(dir, name));
      if (stat.isFile()) bytes += stat.size;
    }
  } catch {
    // No cache.
  }
  return bytes;
}

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

// ---------------------------------------------------------------------------------------------
// Places and their requests

interface Place {
  name: 'folder' | 's3+ddb' | 's3+ddb+latency';
  label: string;
  dataDir: string;
  storeUri?: string;
  /** The endpoints this place reaches the servers by (none for a folder). */
  env: Record<string, string>;
}

/** The requests counted by both proxies (S3 and DynamoDB) since `before`. */
interface Requests {
  s3: ProxyCounts;
  ddb: ProxyCounts;
}

class Counter {
  constructor(readonly proxies: { s3: LatencyProxy; ddb: LatencyProxy }) {}

  snapshot(): Requests {
    return { s3: this.proxies.s3.counts(), ddb: this.proxies.ddb.counts() };
  }

  since(before: Requests): Requests {
    const now = this.snapshot();
    return { s3: countsSince(now.s3, before.s3), ddb: countsSince(now.ddb, before.ddb) };
  }
}

/** Requests per operation, averaged over `n` operations. */
function perOp(r: Requests, n: number): { requests: number; s3: Record<string, number>; ddb: Record<string, number>; connections: number; kbDown: number } {
  const per = (byKind: Record<string, number>) => Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, Math.round((v / n) * 10) / 10]));
  return {
    requests: Math.round(((r.s3.requests + r.ddb.requests) / n) * 10) / 10,
    s3: per(r.s3.byKind),
    ddb: per(r.ddb.byKind),
    connections: Math.round(((r.s3.connections + r.ddb.connections) / n) * 10) / 10,
    kbDown: Math.round((r.s3.bytesDown + r.ddb.bytesDown) / n / 1024),
  };
}

function describeRequests(p: ReturnType<typeof perOp>): string {
  const kinds = [...Object.entries(p.s3).map(([k, v]) => `S3 ${k} ${v}`), ...Object.entries(p.ddb).map(([k, v]) => `DynamoDB ${k} ${v}`)];
  return `${p.requests} requests (${kinds.join(', ') || 'none'}; ${p.connections} new connections; ${p.kbDown} KB down)`;
}

/**
 * One search's requests in the order they were sent, in rounds: requests sent within 10 ms of the one
 * before are one round (sent together, answered before the next round starts). Each round says how
 * many reads of which files it made: data files (ranged, or whole when small), index files by name.
 */
async function traceSearch(engine: MemoryEngine, query: string, counter: Counter): Promise<string[]> {
  const { s3, ddb } = counter.proxies;
  s3.trace = [];
  ddb.trace = [];
  const started = performance.now();
  await engine.search(query, { limit: 10 });
  const took = performance.now() - started;
  const sent = [...s3.trace, ...ddb.trace.map((line) => line.replace(/ \S*$/, ' DynamoDB'))]
    .map((line) => {
      const [at, kind, target, range] = line.split(' ');
      const file = (target ?? '').replace(/^.*?\.lance\//, '').replace(/^data\/.*/, range ? 'data file' : 'data file (whole)').replace(/^_indices\/[^/]+\//, 'index ');
      return { at: Number(at) - started, what: target === 'DynamoDB' || range === 'DynamoDB' ? `DynamoDB ${kind}` : `${kind} ${file}` };
    })
    .sort((a, b) => a.at - b.at);
  s3.trace = null;
  ddb.trace = null;
  const lines = [`    one search traced ("${query}", ${ms(took)} ms, ${sent.length} requests), in rounds:`];
  let round: typeof sent = [];
  const flush = () => {
    if (round.length === 0) return;
    const kinds = new Map<string, number>();
    for (const r of round) kinds.set(r.what, (kinds.get(r.what) ?? 0) + 1);
    lines.push(`      +${round[0]!.at.toFixed(0).padStart(4)} ms: ${[...kinds].map(([what, n]) => `${n} ${what}`).join(', ')}`);
    round = [];
  };
  for (const r of sent) {
    if (round.length > 0 && r.at - round[round.length - 1]!.at > 10) flush();
    round.push(r);
  }
  flush();
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Filling a store with real passages


/** Writes fill sessions into a store until it holds `target` fill chunks. */
function fillTo(uri: string, from: number, target: number, passages: readonly Passage[], model: { model: string; dim: number }): Promise<number> {
  return fillStoreTo(uri, from, target, passages, model, CHUNKS_PER_SESSION, FILL_COMMIT_ROWS);
}

// ---------------------------------------------------------------------------------------------
// Measuring one place

interface Measured {
  place: Place['name'];
  chunks: number;
  saveMs: number;
  /** Another new session saved after the searches, with the read cache filled. */
  laterSaveMs: number;
  resaveMs: number;
  appendMs: number;
  searchP50Ms: number;
  searchP95Ms: number;
  vectorP50Ms: number;
  vectorP95Ms: number;
  textP50Ms: number;
  textP95Ms: number;
  /** The first search, with the read cache empty: its time and requests. */
  coldSearchMs: number;
  /** CPU time of the benchmark's process per search (all its threads, the servers included). */
  searchCpuMs: number;
  /** How long the warm-up searches' read ahead went on after them (waited for before the timed searches). */
  readAheadMs: number;
  /** Requests the read cache sent reading ahead in the background during the save, the appends (both), the first search and the timed searches (all): counted in theirs too. */
  readAheadDuring: Record<string, number>;
  /** Reads the read cache served from disk per timed search (each a request to its endpoint on the loopback). */
  readsFromDisk: number;
  /** Bytes in the read cache after the searches. */
  readCacheBytes: number;
  /** With --trace: one search's requests in rounds, as printed. */
  trace: string[];
  /** With --trace: the reads the read cache's endpoint served per timed search, by file (most first). */
  endpointReads: string[];
  /** Milliseconds per phase (saveTimings.ts) of the save, the median re-save and the median append. */
  phases: { save: SaveTimings['phases']; resave: SaveTimings['phases']; append: SaveTimings['phases'] };
  /** With latency: requests per operation by what they touch (table and file kind, or the DynamoDB operation). */
  targets?: { save: Record<string, number>; laterSave: Record<string, number>; resave: Record<string, number>; append: Record<string, number> };
  requests?: {
    save: ReturnType<typeof perOp>;
    laterSave: ReturnType<typeof perOp>;
    resave: ReturnType<typeof perOp>;
    append: ReturnType<typeof perOp>;
    search: ReturnType<typeof perOp>;
    coldSearch: ReturnType<typeof perOp>;
    readAhead: ReturnType<typeof perOp>;
    vectorSearch: ReturnType<typeof perOp>;
    textSearch: ReturnType<typeof perOp>;
  };
}

function useEnv(env: Record<string, string>): void {
  Object.assign(process.env, env);
}

/**
 * The reads a read cache's endpoint served (its readLog), per search, by file: the table, the kind
 * of file and its name, with the bytes asked on average.
 */
function readsByFile(log: ReadonlyArray<{ path: string; range: string | undefined; method: string }>, n: number): string[] {
  const byFile = new Map<string, { reads: number; bytes: number }>();
  for (const read of log) {
    const name = read.path.replace(/^.*?([^/]+\.lance\/)/, '$1');
    const m = /^bytes=(\d+)-(\d+)$/.exec(read.range ?? '');
    const entry = byFile.get(name) ?? { reads: 0, bytes: 0 };
    entry.reads++;
    entry.bytes += m ? Number(m[2]) - Number(m[1]) + 1 : 0;
    byFile.set(name, entry);
  }
  return [...byFile].sort((a, b) => b[1].reads - a[1].reads).map(([name, { reads, bytes }]) => `${(reads / n).toFixed(1)} reads, ${Math.round(bytes / reads)} bytes each: ${name}`);
}

/** What a traced request touched: a table's data, manifest, index or transaction files, or a DynamoDB operation. */
function targetOf(line: string): string {
  const [, kind, target] = line.split(' ');
  if (!target || target === 'DynamoDB') return `DynamoDB ${kind}`;
  const table = /([^/]+)\.lance\//.exec(target)?.[1] ?? 'other';
  const file = /\.lance\/(data|_versions|_indices|_transactions|_deletions)\//.exec(target)?.[1] ?? 'other';
  return `${kind} ${table} ${file}`;
}

/**
 * Requests per operation by the save phase that sent them (the phase whose step was running when the
 * request reached the proxy; `between` outside every timed step) and what they touched.
 */
function byTarget(lines: readonly string[], timings: readonly SaveTimings[], n: number): Record<string, number> {
  const spans = timings.flatMap((t) => t.spans);
  const counts: Record<string, number> = {};
  for (const line of lines) {
    const at = Number(line.split(' ')[0]);
    // The innermost step: the latest to start among those holding the moment.
    const phase = spans.filter(([, start, end]) => start <= at && at <= end).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'between';
    const key = `${phase}: ${targetOf(line.includes(' DynamoDB') || !line.includes('/') ? line.replace(/^(\S+ \S+).*$/, '$1 DynamoDB') : line)}`;
    counts[key] = (counts[key] ?? 0) + 1 / n;
  }
  return Object.fromEntries(Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round(v * 10) / 10]));
}

/** The median save's phases by total time. */
function medianPhases(timings: readonly SaveTimings[]): SaveTimings['phases'] {
  const sorted = [...timings].sort((a, b) => a.totalMs - b.totalMs);
  return sorted[Math.floor((sorted.length - 1) / 2)]?.phases ?? {};
}

function describePhases(phases: SaveTimings['phases']): string {
  return SAVE_PHASES.filter((p) => (phases[p] ?? 0) >= 0.5).map((p) => `${p} ${ms(phases[p]!)}`).join(', ') || 'none';
}

async function measurePlace(place: Place, size: number, seed: number, embedder: WorkerEmbedder, passages: readonly Passage[], counter: Counter | null): Promise<Measured> {
  useEnv(place.env);
  // Each place starts with an empty read cache: its first search is a cold one.
  const cacheDir = path.join(place.dataDir, OBJECT_CACHE_FOLDER);
  rmSync(cacheDir, { recursive: true, force: true });
  let timings: SaveTimings[] = [];
  const engine = await MemoryEngine.open({
    dataDir: place.dataDir,
    ...(place.storeUri ? { storeUri: place.storeUri } : {}),
    embedder,
    lockWaitMs: 60_000,
    readCacheBytes: READ_CACHE_BYTES,
    onSaveTimings: (t) => timings.push(t),
  });
  try {
    // Caught up: the record and the sketch read what the fill and the other places wrote.
    await engine.save({ sessionId: `warm-${place.name}-${size}`, messages: [{ role: 'user', content: `warm-up ${place.name} ${size}` }] });
    const id = `probe-${place.name}-${size}`;
    const messages = freshMessages(id, PROBE_MESSAGES + APPENDS * APPEND_MESSAGES, seed, passages);
    const session = (count: number): SessionInput => ({ sessionId: id, title: `Probe ${id}`, source: 'json', messages: messages.slice(0, count) });
    // The read cache's endpoint, to tell the requests it sent reading ahead in the background from the rest.
    const endpoint = counter ? await engine.store.readCache() : null;
    const readAheadDuring: Record<string, number> = {};
    const count = async <T>(job: () => Promise<T>, label?: string): Promise<[T, number, Requests | null]> => {
      const before = counter?.snapshot();
      const aheadBefore = endpoint?.counts.readAhead ?? 0;
      const [result, took] = await timed(job);
      if (label) readAheadDuring[label] = (endpoint?.counts.readAhead ?? 0) - aheadBefore;
      return [result, took, counter && before ? counter.since(before) : null];
    };
    // Requests of the saves by what they touch (the proxies' traces, read per operation).
    const traced = async <T>(job: () => Promise<T>): Promise<[T, string[]]> => {
      if (!counter) return [await job(), []];
      counter.proxies.s3.trace = [];
      counter.proxies.ddb.trace = [];
      try {
        const result = await job();
        return [result, [...counter.proxies.s3.trace, ...counter.proxies.ddb.trace.map((line) => `${line.split(' ').slice(0, 2).join(' ')} DynamoDB`)]];
      } finally {
        counter.proxies.s3.trace = null;
        counter.proxies.ddb.trace = null;
      }
    };
    timings = [];

    const [[first, saveMs, saveRequests], saveTrace] = await traced(() => count(() => engine.save(session(PROBE_MESSAGES)), 'save'));
    const saveTimings = timings;
    timings = [];
    if (first.new !== PROBE_MESSAGES) throw new Error(`${id}: the first save added ${first.new} messages, not ${PROBE_MESSAGES}`);
    const resaves: number[] = [];
    const [[, , resaveRequests], resaveTrace] = await traced(() => count(async () => {
      for (let i = 0; i < RESAVES; i++) {
        const [report, took] = await timed(() => engine.save(session(PROBE_MESSAGES)));
        if (report.new !== 0) throw new Error(`${id}: a re-save added ${report.new} messages`);
        resaves.push(took);
      }
    }));
    const resaveTimings = timings;
    timings = [];
    const appends: number[] = [];
    const [[, , appendRequests], appendTrace] = await traced(() => count(async () => {
      for (let k = 1; k <= APPENDS; k++) {
        const [report, took] = (await timed(() => engine.save(session(PROBE_MESSAGES + k * APPEND_MESSAGES)))) as [SaveReport, number];
        if (report.new !== APPEND_MESSAGES) throw new Error(`${id}: append ${k} added ${report.new} messages, not ${APPEND_MESSAGES}`);
        appends.push(took);
      }
    }, 'appends'));
    const appendTimings = timings;

    const queries = drawQueries(QUERIES + SEARCH_WARMUP);
    const [, coldSearchMs, coldRequests] = await count(() => engine.search(queries[0]!, { limit: 10 }), 'first search');
    for (const q of queries.slice(1, SEARCH_WARMUP)) await engine.search(q, { limit: 10 });
    // The rest of the files those searches read, read ahead in the background (objectCacheEndpoint.ts): waited for here.
    const [, readAheadMs, readAheadRequests] = await count(async () => (await engine.store.readCache())?.readAheadIdle());
    const searches: number[] = [];
    const cpuBefore = process.cpuUsage();
    const fromDiskBefore = endpoint?.counts.fromDisk ?? 0;
    if (endpoint && values.trace) endpoint.readLog = [];
    const [, , searchRequests] = await count(async () => {
      for (const q of queries.slice(SEARCH_WARMUP)) searches.push((await timed(() => engine.search(q, { limit: 10 })))[1]);
    }, 'searches');
    const readsFromDisk = ((endpoint?.counts.fromDisk ?? 0) - fromDiskBefore) / QUERIES;
    const endpointReads = endpoint?.readLog ? readsByFile(endpoint.readLog, QUERIES) : [];
    if (endpoint) endpoint.readLog = null;
    const cpu = process.cpuUsage(cpuBefore);
    // The whole process's: the engine, LanceDB's threads, the model's worker, and the test servers and proxies this benchmark runs.
    const searchCpuMs = (cpu.user + cpu.system) / 1000 / QUERIES;
    // The parts on their own, with the queries' vectors computed beforehand.
    const vectors = await embedder.embed(queries.slice(SEARCH_WARMUP));
    const vectorTimes: number[] = [];
    const [, , vectorRequests] = await count(async () => {
      for (const v of vectors) vectorTimes.push((await timed(() => engine.store.searching((reads) => reads.vectorSearch(v, CANDIDATES))))[1]);
    });
    const trace = counter && values.trace ? await traceSearch(engine, queries[SEARCH_WARMUP]!, counter) : [];
    const textTimes: number[] = [];
    const [, , textRequests] = await count(async () => {
      for (const q of queries.slice(SEARCH_WARMUP)) textTimes.push((await timed(() => engine.store.searching((reads) => reads.textSearch(q, CANDIDATES))))[1]);
    });
    // Another new session, saved once the searches have filled the read cache: what a machine that
    // has searched the store before pays for a save (the lookups of stored rows read through the cache).
    const laterId = `later-${place.name}-${size}`;
    const later = freshMessages(laterId, PROBE_MESSAGES, seed + 1, passages);
    timings = [];
    const [[, laterSaveMs, laterSaveRequests], laterSaveTrace] = await traced(() => count(() => engine.save({ sessionId: laterId, title: `Probe ${laterId}`, source: 'json', messages: later }), 'later save'));
    const laterSaveTimings = timings;
    return {
      place: place.name,
      chunks: await engine.store.countChunks(),
      coldSearchMs,
      readAheadMs,
      readAheadDuring,
      readsFromDisk,
      searchCpuMs,
      readCacheBytes: folderBytes(cacheDir),
      saveMs,
      laterSaveMs,
      resaveMs: percentile(resaves, 50),
      appendMs: percentile(appends, 50),
      searchP50Ms: percentile(searches, 50),
      searchP95Ms: percentile(searches, 95),
      vectorP50Ms: percentile(vectorTimes, 50),
      vectorP95Ms: percentile(vectorTimes, 95),
      textP50Ms: percentile(textTimes, 50),
      textP95Ms: percentile(textTimes, 95),
      trace,
      endpointReads,
      phases: { save: medianPhases(saveTimings), resave: medianPhases(resaveTimings), append: medianPhases(appendTimings) },
      ...(counter ? { targets: { save: byTarget(saveTrace, saveTimings, 1), laterSave: byTarget(laterSaveTrace, laterSaveTimings, 1), resave: byTarget(resaveTrace, resaveTimings, RESAVES), append: byTarget(appendTrace, appendTimings, APPENDS) } } : {}),
      ...(saveRequests && laterSaveRequests && resaveRequests && appendRequests && searchRequests && coldRequests && readAheadRequests && vectorRequests && textRequests
        ? {
            requests: {
              save: perOp(saveRequests, 1),
              laterSave: perOp(laterSaveRequests, 1),
              resave: perOp(resaveRequests, RESAVES),
              append: perOp(appendRequests, APPENDS),
              search: perOp(searchRequests, QUERIES),
              coldSearch: perOp(coldRequests, 1),
              readAhead: perOp(readAheadRequests, 1),
              vectorSearch: perOp(vectorRequests, QUERIES),
              textSearch: perOp(textRequests, QUERIES),
            },
          }
        : {}),
    };
  } finally {
    await engine.close();
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const modelsDir = path.resolve(values.models);
  await ensureUseLiteEn(modelsDir);
  const embedder = await WorkerEmbedder.start('use-lite-en', { modelsDir });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'sm-bench-shared-'));
  const servers = await startObjectStoreServers();
  const port = (endpoint: string) => Number(new URL(endpoint).port);
  const proxies = {
    s3: await startLatencyProxy(port(servers.env.AWS_ENDPOINT_URL_S3!), LATENCY_MS),
    ddb: await startLatencyProxy(port(servers.env.AWS_ENDPOINT_URL_DYNAMODB!), LATENCY_MS),
  };
  const counter = new Counter(proxies);
  try {
    const passages = await embeddedPassages(embedder, DISTINCT, path.resolve('.cache/bench'), log);
    const { sharedUri } = await servers.newStore('bench');
    const direct = servers.env;
    const proxied = { ...servers.env, AWS_ENDPOINT_URL_S3: proxies.s3.endpoint, AWS_ENDPOINT_URL_DYNAMODB: proxies.ddb.endpoint };
    const places: Place[] = [
      { name: 'folder', label: 'local folder', dataDir: path.join(tmp, 'folder'), env: {} },
      { name: 's3+ddb', label: 's3+ddb:// on the local S3 and DynamoDB servers, direct', dataDir: path.join(tmp, 'machine'), storeUri: sharedUri, env: direct },
      { name: 's3+ddb+latency', label: `the same s3+ddb:// store through the proxy, ${LATENCY_MS} ms each way`, dataDir: path.join(tmp, 'machine'), storeUri: sharedUri, env: proxied },
    ];
    const model = { model: embedder.model, dim: embedder.dim };
    log(`Session Memory shared-store benchmark: sizes ${SIZES.join(', ')} fill chunks of real passages (${passages.length} distinct, model ${embedder.model}, ${embedder.dim} dims); ` +
      `${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)}`);
    log(`per place and size: a new ${PROBE_MESSAGES}-message session saved, re-saved x${RESAVES} (median), ${APPENDS} appends of ${APPEND_MESSAGES} messages (median); ${QUERIES} searches (limit 10) after ${SEARCH_WARMUP} untimed ones`);

    const results: Measured[] = [];
    let filled = 0;
    for (const [s, size] of SIZES.entries()) {
      log(`\n-- ${size} fill chunks`);
      useEnv(direct);
      const [, fillMs] = await timed(async () => {
        await fillTo(path.join(places[0]!.dataDir, 'lancedb'), filled, size, passages, model);
        filled = await fillTo(sharedUri, filled, size, passages, model);
      });
      for (const place of places.slice(0, 2)) {
        useEnv(place.env);
        const engine = await MemoryEngine.open({ dataDir: place.dataDir, ...(place.storeUri ? { storeUri: place.storeUri } : {}), embedder, lockWaitMs: 60_000 });
        try {
          const [report, took] = await timed(() => engine.maintain());
          log(`  ${place.name}: filled, then maintained in ${(took / 1000).toFixed(1)} s (${report.chunks} chunks; vector index ${report.vectorIndexBuilt ? 'built' : report.chunks >= VECTOR_INDEX_MIN_ROWS ? 'present' : `none below ${VECTOR_INDEX_MIN_ROWS} chunks: flat scan`})`);
        } finally {
          await engine.close();
        }
      }
      log(`  fill of both stores: ${(fillMs / 1000).toFixed(1)} s`);
      for (const [p, place] of places.entries()) {
        const measured = await measurePlace(place, size, 500 + s * 10 + p, embedder, passages, place.name === 's3+ddb+latency' ? counter : null);
        results.push(measured);
        log(`  ${place.label} (${measured.chunks} chunks):`);
        log(`    save of a new ${PROBE_MESSAGES}-message session ${ms(measured.saveMs)} ms; re-save (nothing new) ${ms(measured.resaveMs)} ms; append of ${APPEND_MESSAGES} messages ${ms(measured.appendMs)} ms`);
        log(`    phases (ms) of the save: ${describePhases(measured.phases.save)}`);
        log(`    of the median re-save: ${describePhases(measured.phases.resave)}`);
        log(`    of the median append: ${describePhases(measured.phases.append)}`);
        if (measured.targets) {
          const top = (t: Record<string, number>) => Object.entries(t).map(([k, v]) => `${k} ${v}`).join(', ');
          log(`    requests by target per save: ${top(measured.targets.save)}`);
          log(`    per save of another new session after the searches: ${top(measured.targets.laterSave)}`);
          log(`    per re-save: ${top(measured.targets.resave)}`);
          log(`    per append: ${top(measured.targets.append)}`);
        }
        log(`    first search (read cache empty) ${ms(measured.coldSearchMs)} ms; the read ahead after the warm-up searches went on ${ms(measured.readAheadMs)} ms; read cache ${(measured.readCacheBytes / 1024 / 1024).toFixed(1)} MB (${(measured.readCacheBytes / 1024 / 1024 / (measured.chunks / 10_000)).toFixed(1)} MB per 10k chunks)`);
        log(`    search p50 ${ms(measured.searchP50Ms)} ms, p95 ${ms(measured.searchP95Ms)} ms, CPU ${ms(measured.searchCpuMs)} ms per search (the process's, servers included) (its parts: vector search p50/p95 ${ms(measured.vectorP50Ms)}/${ms(measured.vectorP95Ms)} ms, full-text search ${ms(measured.textP50Ms)}/${ms(measured.textP95Ms)} ms)`);
        if (measured.requests) {
          const r = measured.requests;
          log(`    requests per save ${describeRequests(r.save)}`);
          log(`    requests of another new session's save after the searches (read cache filled; ${ms(measured.laterSaveMs)} ms) ${describeRequests(r.laterSave)}`);
          log(`    requests per re-save ${describeRequests(r.resave)}`);
          log(`    requests per append ${describeRequests(r.append)}`);
          log(`    requests of the first search (read cache empty) ${describeRequests(r.coldSearch)}`);
          log(`    requests of the read ahead after the warm-up searches ${describeRequests(r.readAhead)}`);
          log(`    of the requests above, sent reading ahead in the background: ${Object.entries(measured.readAheadDuring).map(([k, v]) => `${k} ${v}`).join(', ')}`);
          log(`    requests per search ${describeRequests(r.search)}; reads served from the read cache on disk per search ${measured.readsFromDisk.toFixed(1)}`);
          log(`    requests per vector search ${describeRequests(r.vectorSearch)}; per full-text search ${describeRequests(r.textSearch)}`);
        }
        measured.trace.forEach((line) => log(line));
        if (measured.endpointReads.length > 0) log(`    reads through the read cache's endpoint per search, by file (${measured.endpointReads.length} files):`);
        measured.endpointReads.slice(0, 25).forEach((line) => log(`      ${line}`));
      }
    }

    const latency = results.filter((r) => r.place === 's3+ddb+latency');
    // The target is set at 10k chunks; another choice of sizes is held to it at its largest.
    const atTarget = latency.find((r) => r.chunks >= 10_000 && r.chunks < 15_000) ?? latency[latency.length - 1]!;
    const reads = (p: ReturnType<typeof perOp>) => Math.round(((p.s3.GET ?? 0) + (p.s3.HEAD ?? 0) + (p.s3.LIST ?? 0)) * 10) / 10;
    log(`\nper operation on s3+ddb:// with ${LATENCY_MS} ms latency, by store size (requests in all / object reads: S3 GET, HEAD and LIST):`);
    for (const r of latency) {
      const q = r.requests!;
      log(`  ${r.chunks} chunks${r.chunks >= VECTOR_INDEX_MIN_ROWS ? ' (vector index)' : ' (no vector index: flat scan)'}: first search ${q.coldSearch.requests} / ${reads(q.coldSearch)} (${ms(r.coldSearchMs)} ms), search ${q.search.requests} / ${reads(q.search)}, ` +
        `save ${q.save.requests} / ${reads(q.save)}, save after the searches ${q.laterSave.requests} / ${reads(q.laterSave)}, re-save ${q.resave.requests} / ${reads(q.resave)}, append ${q.append.requests} / ${reads(q.append)}; search p50/p95 ${ms(r.searchP50Ms)}/${ms(r.searchP95Ms)} ms`);
    }
    // The target holds at 10k and at 50k chunks: each size measured is held to it.
    for (const r of latency.includes(atTarget) ? latency : [atTarget]) {
      log(`target: search p95 with ${LATENCY_MS} ms latency each way at ${r.chunks} chunks <= ${TARGET_SEARCH_P95_MS} ms: ${ms(r.searchP95Ms)} ms, ${r.searchP95Ms <= TARGET_SEARCH_P95_MS ? 'met' : 'MISSED'}`);
    }
    if (values.json) console.log(JSON.stringify({ sizes: SIZES, distinct: DISTINCT, latencyMs: LATENCY_MS, queries: QUERIES, results }));
  } finally {
    await proxies.s3.close();
    await proxies.ddb.close();
    await servers.close();
    await embedder.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
