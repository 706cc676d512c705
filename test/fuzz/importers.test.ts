/**
 * Hostile transcripts of every format (and ZIPs of them) against the importers: each must either
 * give well-formed sessions or fail with a one-line `ImportError` naming the file, within a time
 * limit, without any other exception escaping. See mutate.ts for what is generated, contract.ts
 * for what is checked. Replay a run with FUZZ_SEED=<seed>, one case with FUZZ_ONLY=<format>:<index>.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { outcomeLabel, outcomeProblems } from './contract.js';
import { CASE_FORMATS, generateCase, type FuzzCase } from './mutate.js';
import { baseSeed, caseSeed, fuzzScale, logSeed } from './prng.js';
import { ImporterSandbox } from './sandbox.js';

const CASES_PER_FORMAT = Math.round(250 * fuzzScale());
const BUDGET_MS = 10_000;
const HEAVY_BUDGET_MS = 20_000;

const only = process.env.FUZZ_ONLY?.split(':');

describe('importers: hostile transcripts', () => {
  const base = baseSeed();
  const sandbox = new ImporterSandbox();
  // Made in a hook, not while collecting: a run filtered to other tests must not leave it behind.
  let scratch: ReturnType<typeof tempDir>;
  beforeAll(() => {
    scratch = tempDir('sm-fuzz-import-');
  });
  afterAll(async () => {
    await sandbox.close();
    scratch?.cleanup();
  });

  for (const format of CASE_FORMATS) {
    it(`${format}: ${CASES_PER_FORMAT} mutated files`, { timeout: 600_000 }, async () => {
      logSeed(base);
      const failures: string[] = [];
      const tally = new Map<string, number>();
      let ran = 0;
      let trees = 0;
      let slowest = { ms: 0, index: -1 };
      const started = performance.now();

      for (let index = 0; index < CASES_PER_FORMAT; index++) {
        if (only && (only[0] !== format || Number(only[1]) !== index)) continue;
        const seed = caseSeed(base, `importer:${format}`, index);
        const fuzzCase = generateCase(format, index, seed, { heavyChance: 0.02 });
        const problems = await runCase(sandbox, scratch.dir, fuzzCase, tally);
        ran++;
        if (fuzzCase.ops.some((op) => /^(cycle|chain|dangling|leaf) /.test(op))) trees++;
        if (problems.ms > slowest.ms) slowest = { ms: problems.ms, index };
        if (process.env.FUZZ_VERBOSE && problems.ms > 1_000) console.log(`slow: ${failureText(fuzzCase, base, [`${Math.round(problems.ms)} ms`])}`);
        if (problems.list.length > 0) failures.push(failureText(fuzzCase, base, problems.list));
      }

      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const outcomes = [...tally].sort(([a], [b]) => a.localeCompare(b)).map(([label, n]) => `${label} ${n}`).join(', ');
      console.log(`fuzz importers ${format}: ${ran} cases (${trees} with cycles, dangling links or long chains) in ${seconds} s (slowest #${slowest.index} ${Math.round(slowest.ms)} ms): ${outcomes}`);
      expect(failures.slice(0, 8), `${failures.length} of ${ran} ${format} cases broke the importer contract (FUZZ_SEED=${base})`).toEqual([]);
    });
  }
});

async function runCase(sandbox: ImporterSandbox, scratch: string, fuzzCase: FuzzCase, tally: Map<string, number>): Promise<{ list: string[]; ms: number }> {
  const dir = path.join(scratch, `${fuzzCase.format}-${fuzzCase.index}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, fuzzCase.fileName);
  writeFileSync(file, fuzzCase.bytes);
  const budget = fuzzCase.heavy ? HEAVY_BUDGET_MS : BUDGET_MS;
  try {
    // ZIPs hold several files: read them file by file; a fifth of the others too (sessionCount is checked there).
    const api = fuzzCase.format === 'zip' || fuzzCase.seed % 5 === 0 ? 'transcripts' : 'sessions';
    const outcome = await sandbox.run({ file, include: fuzzCase.include, streaming: fuzzCase.streaming, api }, budget);
    const label = outcomeLabel(outcome);
    tally.set(label, (tally.get(label) ?? 0) + 1);
    return { list: outcomeProblems(outcome, file, budget), ms: outcome.ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function failureText(fuzzCase: FuzzCase, base: number, problems: string[]): string {
  const how = [fuzzCase.streaming ? 'streaming' : 'whole', fuzzCase.include.length > 0 ? `include ${fuzzCase.include.join('+')}` : ''].filter(Boolean).join(', ');
  return [
    `[${fuzzCase.format} case ${fuzzCase.index}, case seed ${fuzzCase.seed}, FUZZ_SEED=${base} FUZZ_ONLY=${fuzzCase.format}:${fuzzCase.index}] ${fuzzCase.fileName} (${fuzzCase.bytes.length} bytes, ${how})`,
    `  ops: ${fuzzCase.ops.join('; ').slice(0, 600)}`,
    ...problems.map((problem) => `  ${problem.slice(0, 1500)}`),
  ].join('\n');
}
