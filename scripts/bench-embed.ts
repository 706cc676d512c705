/**
 * `npm run bench:embed [-- --messages N] [-- --texts N] [-- --rounds N] [-- --group-tokens 0,1024] [-- --request 32] [-- --spinning] [-- --json]`
 *
 * The embedding model alone, on the texts a save embeds: the chunks of the benchmark's generated
 * conversation (the one of `npm run bench:peer`), in the order and batches the save hands them to the
 * embedder (save/chunkWriter.ts: windows sorted by length, requests of 32, 3 in flight), each through
 * the embedding worker as the engine runs it. One worker per `--group-tokens` value: 0 runs each
 * request in one model call (transformers.js pads it to its longest text), n > 0 runs it in groups of
 * like token lengths of at most n padded tokens (lengthGroups.ts).
 *
 * The variants take turns, round after round (the machine is shared: alternate, never one block after
 * the other), and each prints texts/s by wall time beside the CPU time of the process (its worker
 * threads included), and the padded tokens the model ran over the texts' own. The vectors of every
 * variant are compared with the first's: the largest difference is printed, and the run fails above 1e-6.
 */
import path from 'node:path';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { lengthGroups } from '../electron/embedding/lengthGroups.js';
import { ensureUseLiteEn, USE_LITE_EN } from '../electron/embedding/useLiteEn.js';
import { chunkDialogue, lengthSortedBatches } from '../electron/engine/save/index.js';
import { realisticConversation } from './transcriptGenerator.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '2000' },
    texts: { type: 'string', default: '768' },
    rounds: { type: 'string', default: '3' },
    'group-tokens': { type: 'string', default: '0,1024' },
    request: { type: 'string', default: '32' },
    models: { type: 'string', default: path.resolve('.cache/models') },
    json: { type: 'boolean', default: false },
    // The model's threads spin between calls, as ONNX Runtime's default (ours sleep: embeddingThreads.ts).
    spinning: { type: 'boolean', default: false },
  },
});
const log = (line: string) => (values.json ? console.error(line) : console.log(line));
const LOOKAHEAD = 3;

interface Variant {
  groupTokens: number;
  embedder: WorkerEmbedder;
  runs: Array<{ ms: number; cpuMs: number }>;
  vectors: Float32Array[];
}

async function embedAll(embedder: WorkerEmbedder, requests: string[][]): Promise<Float32Array[]> {
  const inFlight = requests.slice(0, LOOKAHEAD).map((r) => embedder.embed(r));
  const out: Float32Array[] = [];
  for (let i = 0; i < requests.length; i++) {
    out.push(...(await inFlight[i]!));
    if (requests[i + LOOKAHEAD]) inFlight.push(embedder.embed(requests[i + LOOKAHEAD]!));
  }
  return out;
}

async function main(): Promise<void> {
  const modelsDir = path.resolve(values.models);
  await ensureUseLiteEn(modelsDir);
  const session = realisticConversation('bench-session', Number(values.messages), 7);
  const plan = chunkDialogue(session.sessionId, session.messages.map((m, i) => ({ msgId: `m${i}`, role: m.role, content: m.content })), { maxTokens: USE_LITE_EN.maxTokens });
  const texts = [...new Set(plan.map((c) => c.text))].slice(0, Number(values.texts));
  const requestSize = Number(values.request);
  const requests = lengthSortedBatches(texts, (t) => t.length).flatMap((batch) => {
    const out: string[][] = [];
    for (let i = 0; i < batch.length; i += requestSize) out.push(batch.slice(i, i + requestSize));
    return out;
  });

  env.allowRemoteModels = false;
  env.localModelPath = modelsDir;
  const tokenizer = await AutoTokenizer.from_pretrained(USE_LITE_EN.name);
  const tokens = new Map(texts.map((t) => [t, Math.min(USE_LITE_EN.maxTokens, tokenizer.encode(t).length)]));
  const realTokens = texts.reduce((sum, t) => sum + tokens.get(t)!, 0);
  /** Padded tokens the model runs over: each call padded to its longest text. */
  const paddedTokens = (groupTokens: number) =>
    requests.reduce((sum, request) => {
      const lengths = request.map((t) => tokens.get(t)!);
      const groups = groupTokens > 0 ? lengthGroups(lengths, groupTokens) : [lengths.map((_, i) => i)];
      return sum + groups.reduce((s, g) => s + g.length * Math.max(...g.map((i) => lengths[i]!)), 0);
    }, 0);

  const groupValues = values['group-tokens'].split(',').map(Number);
  log(`use-lite-en on ${texts.length} chunk texts of a ${values.messages}-message conversation (${(realTokens / texts.length).toFixed(1)} tokens on average), requests of ${requestSize}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const variants: Variant[] = [];
  try {
    for (const groupTokens of groupValues) {
      const embedder = await WorkerEmbedder.start(USE_LITE_EN.name, { modelsDir, groupTokens, spinning: values.spinning });
      await embedder.embed(texts.slice(0, 32)); // warm
      variants.push({ groupTokens, embedder, runs: [], vectors: [] });
    }
    const rounds = Math.max(1, Number(values.rounds));
    for (let r = 0; r < rounds; r++) {
      // Rotate who goes first from round to round.
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(k + r) % variants.length]!;
        const cpu = process.cpuUsage();
        const started = performance.now();
        v.vectors = await embedAll(v.embedder, requests);
        const ms = performance.now() - started;
        const used = process.cpuUsage(cpu);
        v.runs.push({ ms, cpuMs: (used.user + used.system) / 1000 });
        log(`  round ${r + 1} group-tokens ${String(v.groupTokens).padStart(5)}: ${(texts.length / (ms / 1000)).toFixed(1).padStart(6)} texts/s wall (${ms.toFixed(0)} ms), cpu ${v.runs.at(-1)!.cpuMs.toFixed(0)} ms = ${(v.runs.at(-1)!.cpuMs / texts.length).toFixed(2)} ms/text`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    let worst = 0;
    const summary = variants.map((v) => {
      let diff = 0;
      v.vectors.forEach((vec, i) => vec.forEach((x, j) => (diff = Math.max(diff, Math.abs(x - variants[0]!.vectors[i]![j]!)))));
      worst = Math.max(worst, diff);
      return {
        groupTokens: v.groupTokens,
        textsPerSecond: texts.length / (median(v.runs.map((r) => r.ms)) / 1000),
        cpuMsPerText: median(v.runs.map((r) => r.cpuMs)) / texts.length,
        paddedOverReal: paddedTokens(v.groupTokens) / realTokens,
        maxAbsDiff: diff,
      };
    });
    log('medians:');
    for (const s of summary) {
      log(`  group-tokens ${String(s.groupTokens).padStart(5)}: ${s.textsPerSecond.toFixed(1).padStart(6)} texts/s wall, ${s.cpuMsPerText.toFixed(2)} ms cpu/text (${(summary[0]!.cpuMsPerText / s.cpuMsPerText).toFixed(2)}x), padded/real tokens ${s.paddedOverReal.toFixed(2)}, max abs diff to group-tokens ${summary[0]!.groupTokens}: ${s.maxAbsDiff.toExponential(1)}`);
    }
    log(`load average at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    if (values.json) console.log(JSON.stringify({ texts: texts.length, requestSize, rounds, summary }));
    if (worst > 1e-6) throw new Error(`vectors differ between variants by ${worst} (over 1e-6)`);
  } finally {
    for (const v of variants) await v.embedder.close();
  }
}

await main();
