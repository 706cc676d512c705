/**
 * Hostile transcripts through the real path, importer then engine: whatever the importer hands
 * out is saved; where the engine refuses a session (`invalid_input`), the store must be exactly as
 * it was before that save, as `verify()` and `listSessions()` see it. The mutations lean towards
 * what the importers accept but the engine refuses (whitespace ids and content, duplicate ids).
 * Replay with FUZZ_SEED=<seed>.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerEmbedder } from '../../electron/embedding/embedder.js';
import type { MemoryEngine } from '../../electron/engine/engine.js';
import { EngineError } from '../../electron/engine/errors.js';
import { openEngine, startTestEmbedder, tempDir } from '../helpers/engine.js';
import { outcomeProblems } from './contract.js';
import { CASE_FORMATS, generateCase } from './mutate.js';
import { baseSeed, caseSeed, fuzzScale, logSeed } from './prng.js';
import { ImporterSandbox } from './sandbox.js';

const CASES = Math.round(200 * fuzzScale());
const BUDGET_MS = 10_000;

async function storeState(engine: MemoryEngine): Promise<{ text: string; ok: boolean; problems: string[] }> {
  const [sessions, verify] = await Promise.all([engine.listSessions(), engine.verify()]);
  return { text: JSON.stringify({ sessions, verify }, null, 1), ok: verify.ok, problems: verify.problems };
}


describe('engine: refused input leaves the store unchanged', () => {
  const base = baseSeed();
  const sandbox = new ImporterSandbox();
  let scratch: ReturnType<typeof tempDir>;
  let embedder: WorkerEmbedder;
  let engine: MemoryEngine;

  beforeAll(async () => {
    scratch = tempDir('sm-fuzz-engine-');
    embedder = await startTestEmbedder();
    engine = await openEngine(path.join(scratch.dir, 'data'), embedder);
  });
  afterAll(async () => {
    await engine?.close();
    await embedder?.close();
    await sandbox.close();
    scratch?.cleanup();
  });

  it(`${CASES} hostile transcripts, imported and saved`, { timeout: 300_000 }, async () => {
    logSeed(base);
    const failures: string[] = [];
    const tally = { refusedByImporter: 0, savedSessions: 0, refusedByEngine: 0, files: 0 };
    let state = await storeState(engine);

    for (let index = 0; index < CASES; index++) {
      const format = CASE_FORMATS[index % CASE_FORMATS.length]!;
      const seed = caseSeed(base, `engine:${format}`, index);
      const fuzzCase = generateCase(format, index, seed, { heavyChance: 0, engineBias: true });
      const where = `[engine ${format} case ${index}, case seed ${seed}, FUZZ_SEED=${base}] ${fuzzCase.ops.join('; ').slice(0, 500)}`;
      const dir = path.join(scratch.dir, `case-${index}`);
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, fuzzCase.fileName);
      writeFileSync(file, fuzzCase.bytes);
      const outcome = await sandbox.run({ file, include: fuzzCase.include, streaming: fuzzCase.streaming, api: 'sessions' }, BUDGET_MS);
      rmSync(dir, { recursive: true, force: true });
      tally.files++;

      const importerProblems = outcomeProblems(outcome, file, BUDGET_MS);
      if (importerProblems.length > 0) {
        failures.push(`${where}\n  ${importerProblems.join('\n  ')}`);
        continue;
      }
      if (outcome.kind !== 'files') {
        tally.refusedByImporter++;
        continue;
      }
      for (const session of outcome.files.flatMap((report) => report.sessions ?? [])) {
        try {
          await engine.save(session, { mode: index % 3 === 0 ? 'overwrite' : 'incremental', syncDeletes: index % 2 === 0 });
          tally.savedSessions++;
          const after = await storeState(engine);
          if (state.ok && !after.ok) failures.push(`${where}\n  saving session ${JSON.stringify(session.sessionId.slice(0, 60))} left a store that does not verify: ${after.problems.slice(0, 3).join('; ').slice(0, 400)}`);
          state = after;
        } catch (error) {
          if (!(error instanceof EngineError) || error.code !== 'invalid_input') {
            failures.push(`${where}\n  saving session ${JSON.stringify(session.sessionId.slice(0, 60))} threw ${error instanceof EngineError ? `EngineError(${error.code})` : String(error)}: ${error instanceof Error ? error.message.slice(0, 300) : ''}`);
            state = await storeState(engine);
            continue;
          }
          tally.refusedByEngine++;
          if (/[\r\n]/.test(error.message)) failures.push(`${where}\n  the engine's message is not one line: ${JSON.stringify(error.message.slice(0, 300))}`);
          const after = await storeState(engine);
          if (after.text !== state.text) failures.push(`${where}\n  refused (${error.message.slice(0, 200)}), yet the store changed:\n  before ${state.text.slice(0, 600)}\n  after ${after.text.slice(0, 600)}`);
          state = after;
        }
      }
    }

    const final = await engine.verify();
    if (!final.ok) failures.push(`the store does not verify at the end: ${final.problems.slice(0, 5).join('; ')}`);
    console.log(
      `fuzz engine: ${tally.files} files, ${tally.refusedByImporter} refused by the importer, ${tally.savedSessions} sessions saved, ${tally.refusedByEngine} refused by the engine; store: ${final.sessions} sessions, ${final.messages} messages, ${final.chunks} chunks`,
    );
    expect(failures.slice(0, 8), `${failures.length} problems (FUZZ_SEED=${base})`).toEqual([]);
    // The run must actually exercise both kinds of refusal, or it proves nothing.
    expect(tally.refusedByEngine, 'no session was refused by the engine: the mutations no longer reach it').toBeGreaterThan(5);
    expect(tally.refusedByImporter, 'no file was refused by the importer').toBeGreaterThan(5);
  });
});
