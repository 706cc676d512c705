/**
 * Crash at any point: `session-memory save` runs in a child process and is killed with SIGKILL at
 * exact moments (before and after commits, between the archive record's write and its rename,
 * while the history is appended, in the middle of a compaction) and at random times. The same save
 * is then run again, and `show --json` and `verify --json` must show exactly what one clean run
 * leaves: every message once, every chunk's messages present, the record agreeing with the store.
 * Overwrites, --sync-deletes, `forget --messages` and `redact` are killed the same way in
 * test/crashRewrite.test.ts (two files, so that two test workers share the trials).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import { realisticConversation, seededRandom } from '../scripts/transcriptGenerator.js';
import { runCliInProcess } from './helpers/cli.js';
import { crashBed, randomKill, saveMs, SEED, SESSION, TEST_ENV, TRIALS_TIMEOUT, type Shown } from './helpers/crashTrials.js';

const bed = crashBed('sm-crash-');

describe('a save killed at any point, then run again, leaves what one clean run leaves', () => {
  const T: SessionInput = realisticConversation(SESSION, 160, 11);
  let file: string;
  let expectedFirst: Shown;
  let firstSaveMs: number;

  beforeAll(async () => {
    file = await bed.writeJson('t.json', T);
    const saved = path.join(bed.root(), 'saved');
    const clean = await runCliInProcess(['--data', saved, 'save', file, '--json'], TEST_ENV);
    expect(clean.status, clean.stderr).toBe(0);
    firstSaveMs = saveMs(clean.stdout);
    expectedFirst = await bed.snapshot(saved);
    expect(expectedFirst.messages).toHaveLength(160);
  });

  // 26 kills in three tests, so that none of them holds all the trials under one timeout on a busy machine.
  it('first saves (incremental), killed at 7 moments of creating the store', async () => {
    // The store's tables are created when the first save opens it; a kill there must not break it.
    const creation = ['create/meta:1', 'created/meta:1', 'create/chunks:1', 'create/chunks:1:2', 'created/chunks:1', 'create/sessions:1', 'created/sessions:1'];
    await bed.each(creation, (point) => bed.trial(`save, crash at ${point}`, null, ['save', file], expectedFirst, { point }));
  }, TRIALS_TIMEOUT);

  it('first saves (incremental), killed at 11 moments of the save', async () => {
    const points = ['commit:1', 'commit:3', 'committed:1', 'committed:4', 'committed:9', 'rename/.archived_sessions.json:1', 'history:1', 'optimize:1:1', 'optimize:1:30', 'committed:15', 'sketch:1'];
    await bed.each(points, (point) => bed.trial(`save, crash at ${point}`, null, ['save', file], expectedFirst, { point }));
  }, TRIALS_TIMEOUT);

  it('first saves (incremental), killed at 8 random moments', async () => {
    const random = seededRandom(SEED);
    const kills = Array.from({ length: 8 }, () => randomKill(random, firstSaveMs));
    await bed.each(kills, (kill) => bed.trial(`save, killed at ${kill.point}`, null, ['save', file], expectedFirst, kill));
  }, TRIALS_TIMEOUT);

  afterAll(() => {
    // Every trial is a kill that landed: 26 first saves.
    expect(bed.totals.kills).toBe(26);
  });
});
