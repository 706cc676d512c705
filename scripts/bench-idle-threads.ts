/**
 * `npx tsx scripts/bench-idle-threads.ts [--requests N] [--gap ms] [--rounds N]`
 *
 * The CPU the model's threads spend between requests: one-text requests with a pause after each, as
 * the edits of a watched session send them, through one embedding worker whose model threads sleep
 * while they wait (as the engine runs it: embeddingThreads.ts) and through one whose threads spin
 * (ONNX Runtime's default). Prints the process's CPU time (the worker and the model's threads are in
 * it) for each, round after round, alternating, and the median of each. A figure taken while other
 * work runs on the machine says little: spinning threads spin only when the scheduler gives them a core.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { ensureUseLiteEn, USE_LITE_EN } from '../electron/embedding/useLiteEn.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20' },
    gap: { type: 'string', default: '25' },
    rounds: { type: 'string', default: '3' },
    models: { type: 'string', default: path.resolve('.cache/models') },
  },
});

async function cpuOf(modelsDir: string, spinning: boolean, requests: number, gapMs: number): Promise<number> {
  const embedder = await WorkerEmbedder.start(USE_LITE_EN.name, { modelsDir, workers: 1, spinning });
  try {
    await embedder.embed(['warm up']);
    const before = process.cpuUsage();
    for (let i = 0; i < requests; i++) {
      await embedder.embed([`the message edited a moment ago, number ${i}`]);
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  } finally {
    await embedder.close();
  }
}

async function main(): Promise<void> {
  const modelsDir = path.dirname(await ensureUseLiteEn(values.models!));
  const requests = Number(values.requests);
  const gap = Number(values.gap);
  const rounds = Number(values.rounds);
  console.log(`${requests} one-text requests, ${gap} ms apart; ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const sleeping: number[] = [];
  const spinning: number[] = [];
  for (let r = 0; r < rounds; r++) {
    spinning.push(await cpuOf(modelsDir, true, requests, gap));
    sleeping.push(await cpuOf(modelsDir, false, requests, gap));
    console.log(`  round ${r + 1}: CPU ${sleeping.at(-1)!.toFixed(0)} ms with sleeping threads, ${spinning.at(-1)!.toFixed(0)} ms with spinning threads`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`median: ${median(sleeping).toFixed(0)} ms sleeping, ${median(spinning).toFixed(0)} ms spinning (${(median(sleeping) / median(spinning)).toFixed(2)}x)`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
