/**
 * Crash at any point of a save whose archive record takes its changes in the journal
 * (record/archiveRecord.ts), as a record of about 1,000 sessions does: the journal is switched on
 * from 0 bytes here. The save is killed while the record is first written whole, while its journal
 * is started and while a line is appended to it, and at random moments; run again, the store must
 * be what one clean run leaves, and the record must agree with it (verify).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import { realisticConversation, seededRandom } from '../scripts/transcriptGenerator.js';
import { runCliInProcess } from './helpers/cli.js';
import { crashBed, randomKill, saveMs, SEED, SESSION, TEST_ENV, TRIALS_TIMEOUT, type Shown } from './helpers/crashTrials.js';
import { readArchiveRecord } from '../electron/engine/record/archiveRecord.js';

const bed = crashBed('sm-crash-journal-');
const env = { SESSION_MEMORY_TEST_RECORD_JOURNAL_FROM: '0' };

describe('a save whose record is journalled, killed at any point, then run again, leaves what one clean run leaves', () => {
  const T: SessionInput = realisticConversation(SESSION, 160, 11);
  const head: SessionInput = { ...T, messages: T.messages.slice(0, 100) };
  let file: string;
  let halfSaved: string; // a store holding the first 100 messages, its record with a journal
  let expected: Shown;
  let appendMs: number;

  beforeAll(async () => {
    file = await bed.writeJson('t.json', T);
    const headFile = await bed.writeJson('head.json', head);
    halfSaved = path.join(bed.root(), 'half');
    expect((await runCliInProcess(['--data', halfSaved, 'save', headFile, '--json'], { ...TEST_ENV, ...env })).status).toBe(0);
    const read = await readArchiveRecord(halfSaved);
    expect(read.record && read.disk.journalEnd).toBeGreaterThan(0);
    const reference = path.join(bed.root(), 'reference');
    expect((await runCliInProcess(['--data', reference, 'save', headFile, '--json'], { ...TEST_ENV, ...env })).status).toBe(0);
    const clean = await runCliInProcess(['--data', reference, 'save', file, '--json'], { ...TEST_ENV, ...env });
    expect(clean.status, clean.stderr).toBe(0);
    appendMs = saveMs(clean.stdout);
    expected = await bed.snapshot(reference);
    expect(expected.messages).toHaveLength(160);
  });

  it('first saves, killed as the record is written whole and its journal started', async () => {
    const firstOnly = path.join(bed.root(), 'first-ref');
    expect((await runCliInProcess(['--data', firstOnly, 'save', file, '--json'], { ...TEST_ENV, ...env })).status).toBe(0);
    const expectedFirst = await bed.snapshot(firstOnly);
    for (const point of ['rename/.archived_sessions.json:1', 'written/.archived_sessions.json:1', 'append/.archived_sessions.journal:1', 'rename/.archived_sessions.journal:1', 'history:1']) {
      await bed.trial(`first save, crash at ${point}`, null, ['save', file], expectedFirst, { point, env });
    }
  }, TRIALS_TIMEOUT);

  it('appending saves, killed before and after the journal line, and at random moments', async () => {
    for (const point of ['committed:1', 'append/.archived_sessions.journal:1', 'history:1']) {
      await bed.trial(`append, crash at ${point}`, halfSaved, ['save', file], expected, { point, env });
    }
    const random = seededRandom(SEED + 7);
    for (let i = 0; i < 3; i++) await bed.trial('append, killed at random', halfSaved, ['save', file], expected, { ...randomKill(random, appendMs), env });
  }, TRIALS_TIMEOUT);

  afterAll(() => {
    expect(bed.totals.kills).toBe(11);
  });
});
