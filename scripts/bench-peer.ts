/**
 * `npm run bench:peer [-- --json] [-- --messages N] [-- --resaves N] [-- --first-saves N] [-- --no-load] [-- --peer-int8]`
 *
 * Session Memory side by side with a peer system on the same data, in one run on the same cores.
 * Ours is the warm host of web mode and the desktop app (electron/host/memoryHost.ts: its engine,
 * saving as a source or a hook does, secrets redacted); the peer is LangChain.js's `index()` with a
 * SQLite record manager and LanceDB (scripts/peerIndex.ts), on the same offline model, each side with
 * its own embedding worker, both warmed by indexing another conversation first. The peer's worker calls
 * the model as a plain transformers.js caller does, a request in one call, on the float32 graph (the
 * default of transformers.js); ours runs the int8 graph, one text a call (embedding/useLiteEn.ts).
 * `--peer-int8` gives the peer the int8 graph too (transformers.js's dtype "q8", a request in one call).
 *
 * A 2,000-message conversation: first save, unchanged re-save, a 10% append (new text), a
 * one-message edit in the middle (the re-save and the edit each the median of --resaves, 5: one more
 * message edited each time; the first save and the append the median of --first-saves, 3:
 * conversations of other seeds first, each then given its own 10% of new text, then the one the other
 * steps work on). Each step runs on both sides back to back, the side
 * that goes first alternating from step to step. Ratio: ours / peer, by wall time and by CPU time
 * (this process and its threads: each side's embedding worker runs in it).
 *
 * Then the same again, each side in a new store, with a load the benchmark makes itself: a child
 * process busy-looping on one core from before the warm-up to the end (the same in every run), so
 * that the figures under load do not depend on what else the machine is doing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { SessionInput } from '../shared/domain.js';
import { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { ensureUseLiteEn } from '../electron/embedding/useLiteEn.js';
import type { MemoryEngine } from '../electron/engine/engine.js';
import { MemoryHost } from '../electron/host/memoryHost.js';
import { freshMessages } from './benchCorpus.js';
import { PeerIndex } from './peerIndex.js';
import { realisticConversation } from './transcriptGenerator.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    messages: { type: 'string', default: '2000' },
    // The unchanged re-save and the one-message edit: each repeated this many times, the median kept.
    resaves: { type: 'string', default: '5' },
    models: { type: 'string', default: path.resolve('.cache/models') },
    // The peer's splitter: characters per chunk and overlap. 500 characters is about the model's
    // window of 128 tokens (LangChain's default of 1,000 would be cut off by the model).
    'peer-chunk-size': { type: 'string', default: '500' },
    'peer-chunk-overlap': { type: 'string', default: '50' },
    // First saves: this many conversations of 2,000 messages (other seeds), the median kept.
    'first-saves': { type: 'string', default: '3' },
    'no-load': { type: 'boolean', default: false },
    'peer-int8': { type: 'boolean', default: false },
  },
});
const MESSAGES = Number(values.messages);
const REPEATS = Math.max(1, Number(values.resaves));
const FIRSTS = Math.max(1, Number(values['first-saves']));
const log = (line: string) => (values.json ? console.error(line) : console.log(line));

const STEPS = ['firstSave', 'resave', 'append', 'edit'] as const;
type Step = (typeof STEPS)[number];

interface Side {
  /** Untimed, before each save. */
  before?(): Promise<void>;
  save(session: SessionInput): Promise<{ embeddings: number }>;
  /** Chunks (ours) or rows (the peer) the store holds for the session. */
  count(): Promise<number>;
  close(): Promise<void>;
}

interface Measure {
  ms: number;
  cpuMs: number;
  embeddings: number;
}

interface StepFigures {
  ours: Measure;
  peer: Measure;
  ratio: number;
  cpuRatio: number;
}

async function measure(side: Side, session: SessionInput): Promise<Measure> {
  await side.before?.();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { embeddings } = await side.save(session);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, embeddings };
}

/** The record manager keeps time in whole seconds: each peer save starts in a second of its own, as saves minutes apart do. */
async function nextSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
}

async function ours(dir: string, modelsDir: string): Promise<Side & { engine: MemoryEngine }> {
  const host = new MemoryHost({ dataDir: dir, model: 'use-lite-en', modelsDir, fileLog: true, logger: { warn: (m) => log(`  warning: ${m}`), info: () => {} } });
  const engine = await host.engine();
  return {
    engine,
    save: async (session) => ({ embeddings: (await engine.save(session, { redact: true })).embeddingsComputed }),
    count: async () => (await engine.showSession('bench-session')).chunks.length,
    close: () => host.close(),
  };
}

async function peer(dir: string, embedder: WorkerEmbedder): Promise<Side> {
  const index = await PeerIndex.open(dir, embedder, { chunkSize: Number(values['peer-chunk-size']), chunkOverlap: Number(values['peer-chunk-overlap']) });
  return {
    before: nextSecond,
    save: (session) => index.save(session),
    count: () => index.store.count(),
    close: async () => index.close(),
  };
}

/** One core kept busy by a child process, until stopped. */
function startLoad(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  process.once('exit', () => child.kill('SIGKILL'));
  return child;
}

async function stopLoad(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function runCondition(tmp: string, name: string, modelsDir: string, session: SessionInput): Promise<Record<Step, StepFigures> & { oursChunks: number; peerRows: number; peerWarmRows: number }> {
  // The peer calls the model as LangChain's embeddings classes do: its own batches, each in one call
  // of the plain pipeline (groupTokens 0), not in the engine's groups of like lengths, with ONNX
  // Runtime's default threads, which spin between calls (ours sleep: embeddingThreads.ts).
  const peerEmbedder = await WorkerEmbedder.start('use-lite-en', { modelsDir, groupTokens: 0, spinning: true, workers: 1, precision: values['peer-int8'] ? 'int8' : 'fp32' });
  const sides = { ours: await ours(path.join(tmp, name, 'ours'), modelsDir), peer: await peer(path.join(tmp, name, 'peer'), peerEmbedder) };
  try {
    // Warm-up: another conversation saved on each side (model loaded and run, stores open).
    const warmUp = realisticConversation('warm-up', 200, 11);
    await sides.ours.save(warmUp);
    await sides.peer.save(warmUp);
    const peerWarmRows = await sides.peer.count();

    // First saves of conversations of other seeds, then the one the later steps work on; each then
    // gets 10% more messages of new text (the append, measured on each: a median, as the first save).
    const firsts = [...Array.from({ length: FIRSTS - 1 }, (_, r) => realisticConversation(`bench-first-${r + 2}`, MESSAGES, 8 + r)), session];
    const appends = firsts.map((first, r): SessionInput => ({ ...first, messages: [...first.messages, ...freshMessages(first.sessionId, Math.round(MESSAGES / 10), r === FIRSTS - 1 ? 7 : 20 + r, [], first.messages.length)] }));
    const appended = appends[FIRSTS - 1]!;
    // Each edit changes one more message, 37 messages on from the last: a one-message edit each time.
    const edits: SessionInput[] = [];
    for (let r = 0, last = appended; r < REPEATS; r++) {
      const at = Math.floor(MESSAGES / 2) + 37 * r;
      last = { ...last, messages: last.messages.map((m, i) => (i === at ? { ...m, content: `${m.content} (edited: one more remark)` } : m)) };
      edits.push(last);
    }
    const inputs: Record<Step, (r: number) => SessionInput> = { firstSave: (r) => firsts[r]!, resave: () => session, append: (r) => appends[r]!, edit: (r) => edits[r]! };
    let peerRowsBefore = peerWarmRows;
    // Rows the peer wrote for the other conversations' appends, not the session's.
    let otherRows = 0;
    const figures = {} as Record<Step, StepFigures>;
    for (const [k, step] of STEPS.entries()) {
      const order = (k % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours']) as Array<'ours' | 'peer'>;
      const runs: Record<'ours' | 'peer', Measure[]> = { ours: [], peer: [] };
      const repeats = step === 'firstSave' || step === 'append' ? FIRSTS : REPEATS;
      for (let r = 0; r < repeats; r++) {
        if (step === 'firstSave' && r === FIRSTS - 1) peerRowsBefore = await sides.peer.count();
        const other = step === 'append' && r < FIRSTS - 1 ? await sides.peer.count() : undefined;
        for (const who of r % 2 === 0 ? order : [...order].reverse()) runs[who].push(await measure(sides[who], inputs[step](r)));
        if (other !== undefined) otherRows += (await sides.peer.count()) - other;
      }
      const pick = (xs: Measure[]): Measure => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)]!;
      const o = pick(runs.ours);
      const p = pick(runs.peer);
      figures[step] = { ours: o, peer: p, ratio: o.ms / p.ms, cpuRatio: o.cpuMs / p.cpuMs };
      log(`  ${step.padEnd(10)} ours ${o.ms.toFixed(1).padStart(8)} ms (cpu ${o.cpuMs.toFixed(0).padStart(6)}, ${String(o.embeddings).padStart(4)} emb)   peer ${p.ms.toFixed(1).padStart(8)} ms (cpu ${p.cpuMs.toFixed(0).padStart(6)}, ${String(p.embeddings).padStart(4)} emb)   ratio ${figures[step].ratio.toFixed(3)} (cpu ${figures[step].cpuRatio.toFixed(3)})${runs.ours.length > 1 ? `, medians of ${runs.ours.length}` : ''}`);
    }
    const oursChunks = await sides.ours.count();
    const peerRows = (await sides.peer.count()) - peerRowsBefore - otherRows;
    log(`  after the edit: ours ${oursChunks} chunks; peer ${peerRows} rows for the session`);
    return { ...figures, oursChunks, peerRows, peerWarmRows };
  } finally {
    await sides.ours.close();
    await sides.peer.close();
    await peerEmbedder.close();
  }
}

async function main(): Promise<void> {
  const modelsDir = path.resolve(values.models);
  await ensureUseLiteEn(modelsDir);
  const session = realisticConversation('bench-session', MESSAGES, 7);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'sm-bench-peer-'));
  const load1 = os.loadavg()[0]!;
  log(`Session Memory against LangChain.js index() + SQLite record manager + LanceDB: ${MESSAGES} messages, model use-lite-en, ${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  try {
    log('quiet (no load of the benchmark\'s own):');
    const quiet = await runCondition(tmp, 'quiet', modelsDir, session);
    let loaded: Awaited<ReturnType<typeof runCondition>> | null = null;
    if (!values['no-load']) {
      log('with a child process busy-looping on one core:');
      const child = startLoad();
      try {
        loaded = await runCondition(tmp, 'loaded', modelsDir, session);
      } finally {
        await stopLoad(child);
      }
      log('under load / quiet, ratio by ratio:');
      for (const step of STEPS) log(`  ${step.padEnd(10)} ${quiet[step].ratio.toFixed(3)} -> ${loaded[step].ratio.toFixed(3)}: ${(loaded[step].ratio / quiet[step].ratio).toFixed(2)}x`);
    }
    log(`load average at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    if (values.json) console.log(JSON.stringify({ messages: MESSAGES, cores: os.cpus().length, loadAverageAtStart: load1, loadAverageAtEnd: os.loadavg()[0], quiet, loaded }));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
