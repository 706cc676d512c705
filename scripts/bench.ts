/**
 * `npm run bench [-- --json] [-- --messages N] [-- --others N]`
 *
 * Measures the engine on a realistic 2,000-message session with the real offline model:
 * first save, unchanged re-save, a 10% append, a one-message edit in the middle, the raw embedding
 * time of the same chunk texts (batches of 32, nothing else: the floor no save can beat), and the
 * re-save and append again with 500 other sessions (100k+ chunks of real passages embedded by the
 * model, see benchCorpus.ts, with the vector index that maintenance gives a store that size) in the
 * store; the appended messages are new text, every fifth a paraphrase of a stored passage; the share of each save taken by its
 * near-duplicate check (`nearDupOverhead`); and the MCP server on a store of about 10k chunks: time
 * to its first answer, and search p95; and the CLI's start-up as a hook after each turn meets it
 * (`cliHelpMs`, `hookResaveMs`, `hookAppendMs`, cold and warm: scripts/benchCli.ts), and the
 * database sync of an OpenClaw history of 1,000 sessions after one session got a turn (`dbSyncMs`:
 * scripts/benchDatabase.ts). `--cli-only` measures only these last two.
 *
 * Where the time of the re-save, the append and the edit goes, phase by phase, in the empty store and
 * in the large one (`phases`: the save pipeline's own timings, save/saveTimings.ts).
 * `--rounds N` runs N first-save rounds (default 3); `--skip turn-by-turn,fork,mcp,cli,no-check`
 * leaves those parts out (no-check: the appends without the near-duplicate check), for a quicker run
 * on a busy machine.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { NEAR_DUPLICATE_FLOOR, type SaveReport, type SessionInput } from '../shared/domain.js';
import { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { ensureUseLiteEn } from '../electron/embedding/useLiteEn.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import { chunkIdFor, contentHash, SAVE_PHASES, sha256, type SaveTimings } from '../electron/engine/save/index.js';
import { ChunkStore, type ChunkRecord } from '../electron/engine/store/index.js';
import { measureCli } from './benchCli.js';
import { measureDatabaseSync } from './benchDatabase.js';
import { embeddedPassages, freshMessages, paraphraseSimilarity, passageText, type Passage } from './benchCorpus.js';
import { realisticConversation } from './transcriptGenerator.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    messages: { type: 'string', default: '2000' },
    others: { type: 'string', default: '500' },
    'chunks-per-other': { type: 'string', default: '210' },
    // Distinct embedded passages the other sessions draw from (cached under .cache/bench).
    distinct: { type: 'string', default: '20000' },
    models: { type: 'string', default: path.resolve('.cache/models') },
    'cli-only': { type: 'boolean', default: false },
    'cli-runs': { type: 'string', default: '9' },
    rounds: { type: 'string', default: '3' },
    skip: { type: 'string', default: '' },
  },
});
const ROUNDS = Math.max(1, Number(values.rounds));
const SKIP = new Set(values.skip.split(',').map((s) => s.trim()).filter(Boolean));
for (const part of SKIP) if (!['turn-by-turn', 'fork', 'mcp', 'cli', 'no-check'].includes(part)) throw new Error(`--skip: unknown part "${part}" (turn-by-turn, fork, mcp, cli, no-check)`);
const MESSAGES = Number(values.messages);
const OTHERS = Number(values.others);
const CHUNKS_PER_OTHER = Number(values['chunks-per-other']);
const DISTINCT = Number(values.distinct);
const log = (line: string) => {
  if (!values.json) console.log(line);
  else console.error(line);
};

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * The session with `extra` more messages of its own conversation, every fifth of them a paraphrase
 * of a passage the other sessions hold (so the near-duplicate check has copies to find).
 */
function withAppended(session: SessionInput, extra: number, passages: readonly Passage[]): SessionInput {
  return { ...session, messages: [...session.messages, ...freshMessages(session.sessionId, extra, 7, passages, session.messages.length)] };
}

/** The timings of the save whose total is the median of these (one real save, not a mix of phases). */
function medianSave(saves: readonly SaveTimings[]): SaveTimings {
  return [...saves].sort((a, b) => a.totalMs - b.totalMs)[Math.floor(saves.length / 2)]!;
}

/** Phase rows: milliseconds and share of each save, for the phases any of them ran. */
function phaseTable(columns: Record<string, SaveTimings>): string {
  const names = Object.keys(columns);
  const cell = (t: SaveTimings, ms: number | undefined) => (ms === undefined ? '' : `${ms.toFixed(1)} (${((ms / t.totalMs) * 100).toFixed(0)}%)`);
  const rows = [...SAVE_PHASES.filter((p) => names.some((n) => columns[n]!.phases[p] !== undefined)).map((p) => [p, ...names.map((n) => cell(columns[n]!, columns[n]!.phases[p]))])];
  rows.push(['other', ...names.map((n) => cell(columns[n]!, columns[n]!.otherMs))]);
  rows.push(['total', ...names.map((n) => columns[n]!.totalMs.toFixed(1))]);
  const header = ['phase (ms, share)', ...names];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}

/** Rounded for the JSON summary. */
function roundedTimings(t: SaveTimings): { totalMs: number; otherMs: number; phases: Record<string, number> } {
  const r = (ms: number) => Math.round(ms * 10) / 10;
  return { totalMs: r(t.totalMs), otherMs: r(t.otherMs), phases: Object.fromEntries(Object.entries(t.phases).map(([p, ms]) => [p, r(ms)])) };
}

async function timed<T>(job: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await job();
  return [result, performance.now() - started];
}

/**
 * The job's wall time and the CPU time of this whole process while it ran (every thread: the model's
 * worker and LanceDB's), in ms. On a machine others share, the CPU time moves far less than the wall
 * time, so ratios of CPU times compare two saves made minutes apart.
 */
async function timedWithCpu<T>(job: () => Promise<T>): Promise<[T, number, number]> {
  const cpu = process.cpuUsage();
  const [result, ms] = await timed(job);
  const used = process.cpuUsage(cpu);
  return [result, ms, (used.user + used.system) / 1000];
}

function flushDisk(): void {
  try {
    execFileSync('sync');
  } catch {
    // No sync command (Windows): the figures then include the backlog.
  }
}

/**
 * Fills a store with other sessions of real passages and the model's own vectors (benchCorpus.ts),
 * so that the near-duplicate check and the vector index work on what a real store holds. Sessions
 * take consecutive runs of the passages; with more chunks than passages a passage sits in several
 * sessions (text a person saved more than once), which gives the check more to find than a
 * typical store: its cost here bounds the real one from above.
 */
async function fillOtherSessions(uri: string, dim: number, model: string, passages: readonly Passage[], sessions = OTHERS): Promise<number> {
  const store = await ChunkStore.open(uri, { model, dim });
  let total = 0;
  let batch: ChunkRecord[] = [];
  for (let s = 0; s < sessions; s++) {
    const sessionId = `other-${s}`;
    for (let c = 0; c < CHUNKS_PER_OTHER; c++) {
      const passage = passages[(s * CHUNKS_PER_OTHER + c) % passages.length]!;
      const msgId = `${sessionId}-m${c}`;
      const text = passageText(passage);
      batch.push({
        chunkId: chunkIdFor(sessionId, [msgId]),
        sessionId,
        seq: c,
        part: 0,
        text,
        textHash: sha256(text),
        vector: passage.vector,
        msgIds: [msgId],
        owned: [{ msgId, role: passage.role, content: passage.content, contentHash: contentHash(passage.role, passage.content), seq: c }],
        createdAt: Date.now(),
      });
    }
    if (batch.length >= 10_000 || s === sessions - 1) {
      await store.commit(batch, { sessionId });
      total += batch.length;
      batch = [];
      log(`  filled ${total} chunks`);
    }
  }
  await store.optimize();
  store.close();
  return total;
}

/**
 * `session-memory mcp` as an assistant runs it: a new process on a store of about 10k chunks (the
 * real session plus synthetic ones), driven over stdio by the SDK's client. First answer: from the
 * process start to the first search_memory result, model load included; then the p95 of 50 searches.
 */
async function measureMcp(tmp: string, modelsDir: string, embedder: WorkerEmbedder, session: SessionInput, sessionChunks: number, passages: readonly Passage[]): Promise<{ firstSearchMs: number; searchP95Ms: number; searches: number; chunks: number }> {
  const dataDir = path.join(tmp, 'mcp');
  const others = Math.max(1, Math.round((10_000 - sessionChunks) / CHUNKS_PER_OTHER));
  await fillOtherSessions(path.join(dataDir, 'lancedb'), embedder.dim, embedder.model, passages, others);
  const engine = await MemoryEngine.open({ dataDir, embedder });
  await engine.save(session);
  await engine.maintain();
  const chunks = (await engine.store.stats()).chunks;
  await engine.close();

  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const bin = path.resolve('bin', 'session-memory.mjs');
  const started = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, '--data', dataDir, '--model', 'use-lite-en', 'mcp', '--read-only'],
    env: { ...(process.env as Record<string, string>), SESSION_MEMORY_MODELS_DIR: modelsDir },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const queries = ['how do I keep the sourdough starter alive', 'train tickets to Lisbon', 'marathon training plan', 'database index compaction', 'tomato seedlings and compost'];
  try {
    await client.callTool({ name: 'search_memory', arguments: { query: queries[0], limit: 8 } });
    const firstSearchMs = performance.now() - started;
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await client.callTool({ name: 'search_memory', arguments: { query: `${queries[i % queries.length]} ${i}`, limit: 8 } });
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return { firstSearchMs, searchP95Ms: times[Math.ceil(times.length * 0.95) - 1]!, searches: times.length, chunks };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const modelsDir = path.resolve(values.models);
  await ensureUseLiteEn(modelsDir);
  if (values['cli-only']) {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'sm-bench-cli-'));
    try {
      const cli = await measureCli(tmp, modelsDir, Number(values['cli-runs']), log);
      // The database sync of an OpenClaw history of 1,000 sessions (scripts/benchDatabase.ts).
      const databaseSync = await measureDatabaseSync(tmp, modelsDir, Number(values['cli-runs']), log);
      if (values.json) console.log(JSON.stringify({ ...cli, databaseSync }));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    return;
  }
  const embedder = await WorkerEmbedder.start('use-lite-en', { modelsDir });
  const session = realisticConversation('bench-session', MESSAGES, 7);
  // Real passages for the other sessions of the large and the MCP store (embedded once, then cached).
  const passages = await embeddedPassages(embedder, DISTINCT, path.resolve('.cache/bench'), log);
  const similar = paraphraseSimilarity(passages, NEAR_DUPLICATE_FLOOR);
  log(`other sessions' passages: ${passages.length} distinct, ${similar.pairs} paraphrases of which ${similar.atOrAboveFloor} at or above the near-duplicate floor ${NEAR_DUPLICATE_FLOOR} (median similarity ${similar.median.toFixed(3)})`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'sm-bench-'));
  try {
    log(`Session Memory benchmark: ${MESSAGES} messages, model use-lite-en, ${os.cpus().length} cores, Node ${process.version}`);
    // A warm-up save in a scratch store: the model's first batches are slower (JIT, allocations),
    // and it gives the chunk texts that the raw pass embeds.
    const scratch = await MemoryEngine.open({ dataDir: path.join(tmp, 'warm-up'), embedder });
    const warm = await scratch.save(session);
    const texts = (await scratch.showSession(session.sessionId)).chunks.filter((c) => warm.chunkIds.includes(c.chunkId)).map((c) => c.text);
    await scratch.close();
    const rawPass = () =>
      timed(async () => {
        for (let i = 0; i < texts.length; i += 32) await embedder.embed(texts.slice(i, i + 32));
      });

    // Three rounds, each a first save into an empty store and the raw embedding of the same chunk
    // texts, in alternating order so that neither always runs on a warmer machine.
    const rounds: Array<{ firstSaveMs: number; rawEmbedMs: number; checkMs: number }> = [];
    // Time spent in each save's near-duplicate check (nearDuplicates.ts), for `nearDupOverhead`: after
    // the commit, and comparing codes while later chunks were still being embedded (both counted).
    let checkMs = 0;
    let overlappedMs = 0;
    const onNearDuplicateCheck = (ms: number, duringEmbeddingMs: number) => {
      checkMs += ms + duringEmbeddingMs;
      overlappedMs += duringEmbeddingMs;
    };
    // The phases of the last save that finished (save/saveTimings.ts).
    let lastTimings: SaveTimings | null = null;
    const onSaveTimings = (t: SaveTimings) => (lastTimings = t);
    const timingsOfLast = (): SaveTimings => {
      if (!lastTimings) throw new Error('no save timings were reported');
      return lastTimings;
    };
    let engine!: MemoryEngine;
    let first!: SaveReport;
    let stallMaxMs = 0;
    let stallP99Ms = 0;
    for (let round = 0; round < ROUNDS; round++) {
      if (engine) await engine.close();
      engine = await MemoryEngine.open({ dataDir: path.join(tmp, `empty-${round}`), embedder, onNearDuplicateCheck, onSaveTimings });
      const rawFirst = round % 2 === 1;
      const rawBefore = rawFirst ? (await rawPass())[1] : 0;
      // The thread that runs the engine serves the UI in the desktop app: watch how long it ever stalls.
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      checkMs = 0;
      const [saved, ms] = await timed(() => engine.save(session));
      const roundCheckMs = checkMs;
      loop.disable();
      stallMaxMs = Math.max(stallMaxMs, loop.max / 1e6);
      stallP99Ms = Math.max(stallP99Ms, loop.percentile(99) / 1e6);
      const rawMs = rawFirst ? rawBefore : (await rawPass())[1];
      first = saved;
      rounds.push({ firstSaveMs: ms, rawEmbedMs: rawMs, checkMs: roundCheckMs });
      log(`first save, round ${round + 1} ${ms.toFixed(0).padStart(8)} ms  ${saved.chunksWritten} chunks, ${saved.embeddingsComputed} embeddings; raw embedding of the same ${texts.length} texts ${rawMs.toFixed(0)} ms (${rawFirst ? 'before' : 'after'} it): ${(ms / rawMs).toFixed(3)}x raw`);
    }
    const firstSaveMs = median(rounds.map((r) => r.firstSaveMs));
    const rawEmbedMs = median(rounds.map((r) => r.rawEmbedMs));
    const firstOverRawRuns = rounds.map((r) => r.firstSaveMs / r.rawEmbedMs);
    log(`first save        ${firstSaveMs.toFixed(0).padStart(8)} ms  median of ${ROUNDS}; raw ${rawEmbedMs.toFixed(0)} ms; first save / raw per round: ${firstOverRawRuns.map((x) => x.toFixed(3)).join(', ')}`);
    const firstCheckOverheads = rounds.map((r) => r.checkMs / (r.firstSaveMs - r.checkMs));
    log(`near-dup check    first save: ${rounds.map((r) => `${r.checkMs.toFixed(1)} ms`).join(', ')} = ${firstCheckOverheads.map((x) => `${(x * 100).toFixed(2)}%`).join(', ')} of the rest of the save (target <= 10%)`);
    log(`main thread       event-loop delay during the first saves: max ${stallMaxMs.toFixed(1)} ms, p99 ${stallP99Ms.toFixed(1)} ms`);

    // The same 2,000 messages saved two at a time (as `watch` saves a live session, turn by turn):
    // what it costs in embeddings, and whether it ends with exactly the chunks of one save.
    const onceChunkIds = (await engine.showSession(session.sessionId)).chunks.map((c) => c.chunkId);
    let turnByTurnEmbeddings = 0;
    let turnByTurnMs = NaN;
    let turnByTurnMatches: boolean | null = null;
    if (!SKIP.has('turn-by-turn')) {
      const turnEngine = await MemoryEngine.open({ dataDir: path.join(tmp, 'turn-by-turn'), embedder });
      [, turnByTurnMs] = await timed(async () => {
        for (let n = 2; n <= MESSAGES; n += 2) turnByTurnEmbeddings += (await turnEngine.save({ ...session, messages: session.messages.slice(0, n) })).embeddingsComputed;
      });
      const turnChunkIds = (await turnEngine.showSession(session.sessionId)).chunks.map((c) => c.chunkId);
      await turnEngine.close();
      turnByTurnMatches = turnChunkIds.length === onceChunkIds.length && turnChunkIds.every((id, i) => id === onceChunkIds[i]);
      log(`turn by turn      ${turnByTurnMs.toFixed(0).padStart(8)} ms  ${MESSAGES / 2} saves of 2 messages: ${turnByTurnEmbeddings} embeddings (${(turnByTurnEmbeddings / first.embeddingsComputed).toFixed(2)}x one save, target <= 2x); same chunks as one save: ${turnByTurnMatches}`);
    }

    // A fork: the whole session under another id, with 200 new messages after it (a branched chat).
    // Only chunks whose text is new are embedded.
    let fork: SaveReport | null = null;
    let forkNewTextChunks = NaN;
    if (!SKIP.has('fork')) {
      const forked = withAppended({ ...session, sessionId: 'bench-fork' }, 200, passages);
      fork = await engine.save(forked);
      const onceTexts = new Set((await engine.showSession(session.sessionId)).chunks.map((c) => c.text));
      forkNewTextChunks = (await engine.showSession('bench-fork')).chunks.filter((c) => !onceTexts.has(c.text)).length;
      log(`fork              ${fork.durationMs.toFixed(0).padStart(8)} ms  ${forked.messages.length} messages (${fork.sharedMessages} shared): ${fork.embeddingsComputed} embeddings for ${forkNewTextChunks} chunks with new text (target <= new + 1)`);
      await engine.forget(['bench-fork']);
    }

    const resaves: Array<[SaveReport, number]> = [];
    const resaveTimings: SaveTimings[] = [];
    for (let i = 0; i < 5; i++) {
      resaves.push(await timed(() => engine.save(session)));
      resaveTimings.push(timingsOfLast());
    }
    const resaveMs = median(resaves.map(([, ms]) => ms));
    log(`re-save unchanged ${resaveMs.toFixed(1).padStart(8)} ms  (${((resaveMs / firstSaveMs) * 100).toFixed(3)}% of first save), ${resaves[0]![0].embeddingsComputed} embeddings`);

    const appended = withAppended(session, Math.round(MESSAGES / 10), passages);
    checkMs = 0;
    const [append, appendMs, appendCpuMs] = await timedWithCpu(() => engine.save(appended));
    const appendTimings = timingsOfLast();
    const appendCheckMs = checkMs;
    log(`append 10%        ${appendMs.toFixed(0).padStart(8)} ms  (${((appendMs / firstSaveMs) * 100).toFixed(2)}% of first save), ${append.new} new messages, ${append.chunksWritten} chunks, ${append.embeddingsComputed} embeddings`);

    const edited: SessionInput = { ...appended, messages: appended.messages.map((m, i) => (i === Math.floor(MESSAGES / 2) ? { ...m, content: `${m.content} (edited: one more remark)` } : m)) };
    const [edit, editMs] = await timed(() => engine.save(edited));
    const editTimings = timingsOfLast();
    log(`edit one message  ${editMs.toFixed(1).padStart(8)} ms  (${((editMs / firstSaveMs) * 100).toFixed(3)}% of first save), ${edit.updated} updated, ${edit.chunksWritten} chunk rewritten, ${edit.embeddingsComputed} embeddings`);

    await engine.close();

    log(`filling a second store with ${OTHERS} other sessions x ${CHUNKS_PER_OTHER} chunks (${passages.length} distinct embedded passages)...`);
    const largeDir = path.join(tmp, 'large');
    const otherChunks = await fillOtherSessions(path.join(largeDir, 'lancedb'), embedder.dim, embedder.model, passages);
    // The store was filled without the engine: its first save rebuilds the archive record, and its
    // near-duplicate check builds the vector sketch from every stored vector (once per store).
    let sketchBuild = '';
    const large = await MemoryEngine.open({ dataDir: largeDir, embedder, onNearDuplicateCheck, onSaveTimings, logger: { warn: () => {}, info: (m) => (sketchBuild = m.startsWith('vector sketch') ? m : sketchBuild) } });
    await large.save({ sessionId: 'warm-up', messages: [{ role: 'user', content: 'warm-up' }] });
    const sketchBuildMs = Number(/in (\d+) ms/.exec(sketchBuild)?.[1] ?? NaN);
    log(`  ${sketchBuild}`);
    // A store this size has its vector index in the app (maintenance builds it from 10k chunks).
    const indexed = await timed(() => large.maintain());
    log(`  maintained: vector index ${indexed[0].vectorIndexBuilt ? 'built' : 'not due'} (${(indexed[1] / 1000).toFixed(1)} s)`);
    await large.save(session);
    const largeResaves: number[] = [];
    const largeResaveTimings: SaveTimings[] = [];
    for (let i = 0; i < 5; i++) {
      largeResaves.push((await timed(() => large.save(session)))[1]);
      largeResaveTimings.push(timingsOfLast());
    }
    const resaveLargeStoreMs = median(largeResaves);
    const totalChunks = (await large.store.stats()).chunks;
    await large.close();

    // The append into the large store, with and without the near-duplicate check, each time on a
    // fresh copy of the same store, in alternating order (3 rounds): what the check adds to the time
    // a person waits. Each engine first makes one small save, as a running app has (the sketch is
    // read once per process).
    const snapshot = path.join(tmp, 'large-snapshot');
    cpSync(largeDir, snapshot, { recursive: true });
    const appendRuns: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const appendCpuRuns: number[] = [];
    const appendWork: Array<{ checkMs: number; overlappedMs: number; found: number }> = [];
    const largeAppendEmbeddings: number[] = [];
    const largeAppendTimings: SaveTimings[] = [];
    const largeEditTimings: SaveTimings[] = [];
    const variants = SKIP.has('no-check') ? { even: ['on'] as const, odd: ['on'] as const } : { even: ['on', 'off'] as const, odd: ['off', 'on'] as const };
    for (let round = 0; round < 3; round++) {
      for (const variant of round % 2 === 0 ? variants.even : variants.odd) {
        rmSync(largeDir, { recursive: true, force: true });
        cpSync(snapshot, largeDir, { recursive: true });
        flushDisk(); // the copy's write-back would otherwise land inside the timed append
        const copy = await MemoryEngine.open({ dataDir: largeDir, embedder, onNearDuplicateCheck, onSaveTimings, nearDuplicates: variant === 'on' });
        await copy.save({ sessionId: `small-${round}`, messages: [{ role: 'user', content: `one more small thing ${round}` }] });
        checkMs = 0;
        overlappedMs = 0;
        const [report, ms, cpuMs] = await timedWithCpu(() => copy.save(appended));
        if (variant === 'on') {
          appendCpuRuns.push(cpuMs);
          largeAppendTimings.push(timingsOfLast());
          largeAppendEmbeddings.push(report.embeddingsComputed);
          // The one-message edit there too (after the append, as in the empty store).
          await copy.save(edited);
          largeEditTimings.push(timingsOfLast());
        }
        await copy.close();
        appendRuns[variant].push(ms);
        if (variant === 'on') appendWork.push({ checkMs, overlappedMs, found: report.nearDuplicates });
      }
    }
    const appendLargeStoreMs = median(appendRuns.on);
    const appendLargeStoreNoCheckMs = appendRuns.off.length > 0 ? median(appendRuns.off) : NaN;
    const appendLargeCheckMs = median(appendWork.map((w) => w.checkMs));
    const appendLargeOverlappedMs = median(appendWork.map((w) => w.overlappedMs));
    log(`near-dup check    append ${appendCheckMs.toFixed(1)} ms of work (${((appendCheckMs / (appendMs - appendCheckMs)) * 100).toFixed(2)}% of the rest)`);
    log(`                  append into the large store: ${appendRuns.on.map((x) => x.toFixed(0)).join(', ')} ms with the check, ${appendRuns.off.map((x) => x.toFixed(0)).join(', ')} ms without: ` +
      `adds ${(((appendLargeStoreMs - appendLargeStoreNoCheckMs) / appendLargeStoreNoCheckMs) * 100).toFixed(2)}% (medians; target <= 10%); its work ${appendLargeCheckMs.toFixed(1)} ms, of which ${appendLargeOverlappedMs.toFixed(1)} ms while chunks were being embedded; ` +
      `${appendWork[0]?.found ?? 0} of the append's chunks found held by other sessions`);
    const appendLargeStoreCpuMs = median(appendCpuRuns);
    log(`large store (${totalChunks} chunks): re-save ${resaveLargeStoreMs.toFixed(1)} ms (${(resaveLargeStoreMs / resaveMs).toFixed(2)}x empty), append ${appendLargeStoreMs.toFixed(0)} ms (${(appendLargeStoreMs / appendMs).toFixed(2)}x empty; ${largeAppendEmbeddings.join(', ')} embeddings, against ${append.embeddingsComputed})`);
    log(`                  append CPU time: ${appendCpuMs.toFixed(0)} ms into the empty store, ${appendCpuRuns.map((x) => x.toFixed(0)).join(', ')} ms into the large one (median ${(appendLargeStoreCpuMs / appendCpuMs).toFixed(2)}x empty)`);

    // Where each save's time went (the median save of those repeated).
    const phases = {
      resave: medianSave(resaveTimings),
      append: appendTimings,
      edit: editTimings,
      resaveLargeStore: medianSave(largeResaveTimings),
      appendLargeStore: medianSave(largeAppendTimings),
      editLargeStore: medianSave(largeEditTimings),
    };
    log(`phases of the warm saves (empty store; large store of ${totalChunks} chunks):`);
    log(phaseTable({ 're-save': phases.resave, append: phases.append, edit: phases.edit, 're-save large': phases.resaveLargeStore, 'append large': phases.appendLargeStore, 'edit large': phases.editLargeStore }));

    const mcp = SKIP.has('mcp') ? null : await measureMcp(tmp, modelsDir, embedder, session, first.chunksWritten, passages);
    if (mcp) log(`MCP server (${mcp.chunks} chunks): first answer ${mcp.firstSearchMs.toFixed(0)} ms after start (model load included), search p95 ${mcp.searchP95Ms.toFixed(1)} ms over ${mcp.searches} queries`);
    const cli = SKIP.has('cli') ? null : await measureCli(tmp, modelsDir, Number(values['cli-runs']), log);

    const summary = {
      messages: MESSAGES,
      chunks: first.chunksWritten,
      firstSaveMs: Math.round(firstSaveMs),
      resaveMs: Math.round(resaveMs * 10) / 10,
      appendMs: Math.round(appendMs),
      editMs: Math.round(editMs * 10) / 10,
      rawEmbedMs: Math.round(rawEmbedMs),
      resaveLargeStoreMs: Math.round(resaveLargeStoreMs * 10) / 10,
      appendLargeStoreMs: Math.round(appendLargeStoreMs),
      appendLargeStoreNoCheckMs: Math.round(appendLargeStoreNoCheckMs),
      resaveEmbeddings: resaves[0]![0].embeddingsComputed,
      appendEmbeddings: append.embeddingsComputed,
      editEmbeddings: edit.embeddingsComputed,
      appendChunks: append.chunksWritten,
      mainThreadMaxStallMs: Math.round(stallMaxMs * 10) / 10,
      mainThreadP99StallMs: Math.round(stallP99Ms * 10) / 10,
      largeStoreChunks: totalChunks,
      forkEmbeddings: fork?.embeddingsComputed ?? null,
      forkNewTextChunks,
      forkSharedMessages: fork?.sharedMessages ?? null,
      turnByTurnEmbeddings,
      turnByTurnMatches,
      turnByTurnMs: Math.round(turnByTurnMs),
      // The near-duplicate check's share. First save and append into a small store: its work over the
      // rest of the save (first saves: each round). Append into the large store: what it adds to the
      // append's time (with against without, medians of 3 on copies of one store), and its work.
      nearDupOverhead: {
        firstSave: median(firstCheckOverheads),
        firstSaveRuns: firstCheckOverheads,
        append: appendCheckMs / (appendMs - appendCheckMs),
        appendLargeStore: (appendLargeStoreMs - appendLargeStoreNoCheckMs) / appendLargeStoreNoCheckMs,
        appendLargeStoreRuns: appendRuns,
        appendCpuMs: Math.round(appendCpuMs),
        appendLargeStoreCpuRuns: appendCpuRuns.map(Math.round),
        appendLargeStoreWork: appendLargeCheckMs / (appendLargeStoreMs - appendLargeCheckMs),
        appendLargeStoreCheckMs: Math.round(appendLargeCheckMs * 10) / 10,
        appendLargeStoreOverlappedMs: Math.round(appendLargeOverlappedMs * 10) / 10,
        // Chunks of that append the check found in other sessions (it must have had work to do).
        appendLargeStoreFound: appendWork[0]?.found ?? 0,
        // Once per store: the sketch of every stored vector, built by the first check.
        sketchBuildMs,
      },
      phases: Object.fromEntries(Object.entries(phases).map(([k, t]) => [k, roundedTimings(t)])),
      skipped: [...SKIP],
      mcpFirstSearchMs: mcp ? Math.round(mcp.firstSearchMs) : null,
      mcpSearchP95Ms: mcp ? Math.round(mcp.searchP95Ms * 10) / 10 : null,
      mcpStoreChunks: mcp?.chunks ?? null,
      nodeStartMs: cli?.nodeMs ?? null,
      cliHelpMs: cli?.cliHelpMs ?? null,
      syncNothingNewMs: cli?.syncNothingNewMs ?? null,
      hookResaveMs: cli?.hookResaveMs ?? null,
      hookAppendMs: cli?.hookAppendMs ?? null,
      hookNothingNewGrownMs: cli?.hookNothingNewGrownMs ?? null,
      mcpHandshakeMs: cli?.mcpHandshakeMs ?? null,
      cliOverNode: cli?.overNode ?? null,
      otherChunks,
      ratios: {
        resaveOfFirst: resaveMs / firstSaveMs,
        appendOfFirst: appendMs / firstSaveMs,
        editOfFirst: editMs / firstSaveMs,
        firstOverRaw: median(firstOverRawRuns),
        firstOverRawRuns,
        turnByTurnEmbeddingsOverOneSave: turnByTurnMatches === null ? null : turnByTurnEmbeddings / first.embeddingsComputed,
        resaveLargeOverEmpty: resaveLargeStoreMs / resaveMs,
        appendLargeOverEmpty: appendLargeStoreMs / appendMs,
        appendLargeOverEmptyCpu: appendLargeStoreCpuMs / appendCpuMs,
      },
    };
    if (values.json) console.log(JSON.stringify(summary));
  } finally {
    await embedder.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
