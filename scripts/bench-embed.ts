/**
 * `npm run bench:embed [-- --messages N] [-- --texts N] [-- --rounds N] [-- --variants fp32:0,fp32:1024,int8] [-- --request 32] [-- --spinning] [-- --json]`
 * (`int8:<n>`: the int8 graph in n workers; `int8` alone: as many as the engine starts, defaultWorkers)
 *
 * The embedding model alone, on the texts a save embeds: the chunks of the benchmark's generated
 * conversation (the one of `npm run bench:peer`), in the order and batches the save hands them to the
 * embedder (save/chunkWriter.ts: windows sorted by length, requests of 32, 3 in flight), each through
 * the embedding worker as the engine runs it. One worker per variant: `fp32:0` runs the float32 graph
 * with each request in one model call (transformers.js pads it to its longest text), `fp32:n` (n > 0)
 * in groups of like token lengths of at most n padded tokens (lengthGroups.ts), `int8` the int8 graph
 * one text a call, as the engine does (useLiteEn.ts).
 *
 * The variants take turns, round after round (the machine is shared: alternate, never one block after
 * the other), and each prints texts/s by wall time beside the CPU time of the process (its worker
 * threads included), and the padded tokens the model ran over the texts' own. The vectors of every
 * float32 variant are compared with the first's (the run fails above 1e-6), those of the int8 graph
 * with the first float32 variant's by cosine (the lowest, the 1st percentile and the median are
 * printed; the run fails below 0.99).
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
    variants: { type: 'string', default: 'fp32:0,fp32:1024,int8' },
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
  label: string;
  precision: 'int8' | 'fp32';
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
      const groups = groupTokens < 0 ? lengths.map((_, i) => [i]) : groupTokens > 0 ? lengthGroups(lengths, groupTokens) : [lengths.map((_, i) => i)];
      return sum + groups.reduce((s, g) => s + g.length * Math.max(...g.map((i) => lengths[i]!)), 0);
    }, 0);

  // int8: one text a call (groupTokens -1 in the padding count).
  const wanted = values.variants.split(',').map((v) => {
    const [precision, tokens] = v.trim().split(':');
    if (precision === 'int8' && (tokens === undefined || /^\d+$/.test(tokens))) return { label: tokens ? `int8:${tokens}` : 'int8', precision: 'int8' as const, groupTokens: -1, workers: tokens ? Number(tokens) : undefined };
    if (precision !== 'fp32' || !/^\d+$/.test(tokens ?? '')) throw new Error(`--variants: "${v}" is neither int8[:<workers>] nor fp32:<group tokens>`);
    return { label: `fp32:${tokens}`, precision: 'fp32' as const, groupTokens: Number(tokens), workers: undefined };
  });
  log(`use-lite-en on ${texts.length} chunk texts of a ${values.messages}-message conversation (${(realTokens / texts.length).toFixed(1)} tokens on average), requests of ${requestSize}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const variants: Variant[] = [];
  try {
    for (const { label, precision, groupTokens, workers } of wanted) {
      const embedder = await WorkerEmbedder.start(USE_LITE_EN.name, { modelsDir, precision, ...(groupTokens >= 0 ? { groupTokens } : {}), ...(workers ? { workers } : {}), spinning: values.spinning });
      await embedder.embed(texts.slice(0, 32)); // warm
      variants.push({ label, precision, groupTokens, embedder, runs: [], vectors: [] });
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
        log(`  round ${r + 1} ${v.label.padStart(9)}: ${(texts.length / (ms / 1000)).toFixed(1).padStart(6)} texts/s wall (${ms.toFixed(0)} ms), cpu ${v.runs.at(-1)!.cpuMs.toFixed(0)} ms = ${(v.runs.at(-1)!.cpuMs / texts.length).toFixed(2)} ms/text`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    let worst = 0;
    let lowestCosine = 1;
    const reference = variants.find((v) => v.precision === 'fp32') ?? variants[0]!;
    const summary = variants.map((v) => {
      let diff = 0;
      const cosines: number[] = [];
      v.vectors.forEach((vec, i) => {
        let dot = 0;
        vec.forEach((x, j) => {
          diff = Math.max(diff, Math.abs(x - reference.vectors[i]![j]!));
          dot += x * reference.vectors[i]![j]!;
        });
        cosines.push(dot);
      });
      cosines.sort((a, b) => a - b);
      if (v.precision === reference.precision) worst = Math.max(worst, diff);
      else lowestCosine = Math.min(lowestCosine, cosines[0]!);
      return {
        variant: v.label,
        textsPerSecond: texts.length / (median(v.runs.map((r) => r.ms)) / 1000),
        cpuMsPerText: median(v.runs.map((r) => r.cpuMs)) / texts.length,
        paddedOverReal: paddedTokens(v.groupTokens) / realTokens,
        maxAbsDiff: diff,
        cosine: { lowest: cosines[0]!, p1: cosines[Math.floor(cosines.length / 100)]!, median: cosines[Math.floor(cosines.length / 2)]! },
      };
    });
    log('medians:');
    for (const s of summary) {
      const against = s.variant.startsWith(reference.precision) ? `max abs diff to ${reference.label}: ${s.maxAbsDiff.toExponential(1)}` : `cosine to ${reference.label}: lowest ${s.cosine.lowest.toFixed(4)}, 1st percentile ${s.cosine.p1.toFixed(4)}, median ${s.cosine.median.toFixed(4)}`;
      log(`  ${s.variant.padStart(9)}: ${s.textsPerSecond.toFixed(1).padStart(6)} texts/s wall, ${s.cpuMsPerText.toFixed(2)} ms cpu/text (${(summary[0]!.cpuMsPerText / s.cpuMsPerText).toFixed(2)}x), padded/real tokens ${s.paddedOverReal.toFixed(2)}, ${against}`);
    }
    log(`load average at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    if (values.json) console.log(JSON.stringify({ texts: texts.length, requestSize, rounds, summary }));
    if (worst > 1e-6) throw new Error(`float32 vectors differ between variants by ${worst} (over 1e-6)`);
    if (lowestCosine < 0.99) throw new Error(`int8 vectors as low as cosine ${lowestCosine} to the float32 ones (under 0.99)`);
  } finally {
    for (const v of variants) await v.embedder.close();
  }
}

await main();
