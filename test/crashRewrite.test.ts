/**
 * Crash at any point, rewriting what is stored (the first saves are test/crash.test.ts): a forced
 * overwrite, a save with --sync-deletes, `forget --messages` and `redact` run in a child process
 * that is killed with SIGKILL at exact moments and at random times. The same command (or another
 * writer) is run again, and the store must be exactly what one clean run leaves, with no trace of
 * forgotten or redacted text in any file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import { realisticConversation, seededRandom } from '../scripts/transcriptGenerator.js';
import { jsonLines, runCliInProcess } from './helpers/cli.js';
import { crashBed, randomKill, saveMs, SEED, SESSION, TEST_ENV, TRIALS_TIMEOUT } from './helpers/crashTrials.js';
import { filesWithTrace } from './helpers/files.js';
import { seededChars } from './helpers/random.js';

const bed = crashBed('sm-crash-rewrite-');

describe('a rewriting save killed at any point, then run again, leaves what one clean run leaves', () => {
  const T: SessionInput = realisticConversation(SESSION, 160, 11);
  let saved: string; // a store holding T, copied into each trial

  beforeAll(async () => {
    const file = await bed.writeJson('t.json', T);
    saved = path.join(bed.root(), 'saved');
    const clean = await runCliInProcess(['--data', saved, 'save', file, '--json'], TEST_ENV);
    expect(clean.status, clean.stderr).toBe(0);
    expect((await bed.snapshot(saved)).messages).toHaveLength(160);
  });

  it('forced overwrites, killed at 7 moments', async () => {
    const next: SessionInput = { ...T, messages: T.messages.filter((_, i) => i % 5 !== 2).map((m, i) => (i % 7 === 0 ? { ...m, content: `${m.content} (revised)` } : m)) };
    next.messages.push(...realisticConversation(SESSION, 180, 11).messages.slice(160));
    const overwriteFile = await bed.writeJson('overwrite.json', next);
    const reference = path.join(bed.root(), 'overwrite-ref');
    cpSync(saved, reference, { recursive: true });
    const clean = await runCliInProcess(['--data', reference, 'save', overwriteFile, '--mode', 'overwrite', '--json'], TEST_ENV);
    expect(clean.status, clean.stderr).toBe(0);
    const cleanMs = saveMs(clean.stdout);
    const expected = await bed.snapshot(reference);
    const random = seededRandom(SEED + 1);
    const kills = [...['commit:1', 'committed:1', 'rename/.archived_sessions.json:1', 'history:1'].map((point) => ({ point, label: `overwrite, crash at ${point}` })), ...Array.from({ length: 3 }, () => ({ ...randomKill(random, cleanMs), label: 'overwrite, killed at random' }))];
    await bed.each(kills, ({ label, point }) => bed.trial(label, saved, ['save', overwriteFile, '--mode', 'overwrite'], expected, { point }));
  }, TRIALS_TIMEOUT);

  it('sync-deletes saves, killed at 7 moments', async () => {
    const next: SessionInput = { ...T, messages: T.messages.filter((_, i) => i % 6 !== 1) };
    next.messages.push(...realisticConversation(SESSION, 200, 11).messages.slice(160));
    const syncFile = await bed.writeJson('sync.json', next);
    const reference = path.join(bed.root(), 'sync-ref');
    cpSync(saved, reference, { recursive: true });
    const clean = await runCliInProcess(['--data', reference, 'save', syncFile, '--sync-deletes', '--json'], TEST_ENV);
    expect(clean.status, clean.stderr).toBe(0);
    const cleanMs = saveMs(clean.stdout);
    const expected = await bed.snapshot(reference);
    expect(expected.messages).toHaveLength(next.messages.length);
    const random = seededRandom(SEED + 2);
    const kills = [...['commit:1', 'committed:1', 'committed:3', 'rename/.archived_sessions.json:1', 'optimize:1:10'].map((point) => ({ point, label: `sync-deletes, crash at ${point}` })), ...Array.from({ length: 2 }, () => ({ ...randomKill(random, cleanMs), label: 'sync-deletes, killed at random' }))];
    await bed.each(kills, ({ label, point }) => bed.trial(label, saved, ['save', syncFile, '--sync-deletes'], expected, { point }));
  }, TRIALS_TIMEOUT);

  afterAll(() => {
    // Every trial is a kill that landed: 7 overwrites, 7 sync-deletes saves.
    expect(bed.totals.kills).toBe(14);
  });
});

/**
 * Forgetting messages and `redact` save first, then purge every file of the old text. Killed at any
 * moment between (and inside both steps), the same command run again (or another writer, such as a
 * save of another session) finishes the purge: the text is in no file, and the store is what one
 * clean run leaves.
 */
describe('forgetting messages and redact, killed at any point, are finished by the next writer', () => {
  const FORGOTTEN = 'Marmosets-4419 adore the pomegranate orchard behind my grandmother\'s cottage';
  const FM = 'forget-crash';
  const random = seededChars(11);
  const TOKEN = 'ghp_' + random('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 36);
  let base: string; // the session with the message to forget, saved
  let leaky: string; // two sessions holding a token, saved without redaction
  let otherFile: string;

  const withMessage = (s: SessionInput, at: number, msgId: string, content: string): SessionInput => ({ ...s, messages: [...s.messages.slice(0, at), { msgId, role: 'user', content }, ...s.messages.slice(at)] });

  beforeAll(async () => {
    base = path.join(bed.root(), 'forget-base');
    const fmFile = await bed.writeJson('forget.json', withMessage(realisticConversation(FM, 40, 5), 12, 'secret-msg', FORGOTTEN));
    expect((await runCliInProcess(['--data', base, 'save', fmFile], TEST_ENV)).status).toBe(0);
    otherFile = await bed.writeJson('other.json', realisticConversation('other', 12, 6));
    leaky = path.join(bed.root(), 'redact-base');
    for (const [i, id] of ['leaky-1', 'leaky-2'].entries()) {
      const file = await bed.writeJson(`${id}.json`, withMessage(realisticConversation(id, 30, 7 + i), 9 + i, `${id}-token`, `Use ${TOKEN} to push the release branch.`));
      expect((await runCliInProcess(['--data', leaky, 'save', file, '--no-redact'], TEST_ENV)).status).toBe(0);
    }
    expect(filesWithTrace(base, FORGOTTEN).length).toBeGreaterThan(0);
  }, TRIALS_TIMEOUT);

  it('forget --messages, killed at 7 moments, then run again or followed by a save', async () => {
    const reference = path.join(bed.root(), 'forget-ref');
    cpSync(base, reference, { recursive: true });
    const command = ['forget', FM, '--messages', 'secret-msg'];
    expect((await runCliInProcess(['--data', reference, ...command, '--json'], TEST_ENV)).status).toBe(0);
    const expected = await bed.snapshot(reference, FM);
    expect(expected.messages).toHaveLength(40);
    const check = (label: string, reported: boolean) => async (data: string, rerun: { stdout: string }) => {
      if (reported) expect(jsonLines(rerun.stdout), label).toEqual([{ sessionId: FM, messagesRemoved: 1, chunksRemoved: expect.any(Number) }]);
      expect(filesWithTrace(data, FORGOTTEN), label).toEqual([]);
      expect(await bed.snapshot(data, FM), label).toEqual(expected);
    };
    // Before the save, inside it (the record, the history), between save and purge, inside the purge.
    const points = ['forget-messages-journal:1', 'rename/.archived_sessions.json:1', 'history:1', 'forget-messages-saved:1', 'purge:1', 'purge-rewritten:1'];
    await bed.each([...points, null], (point) =>
      point === null
        ? bed.purgeTrial('forget --messages, crash at forget-messages-saved:1, then a save of another session', base, command, 'forget-messages-saved:1', ['save', otherFile], check('a save after the kill', false))
        : bed.purgeTrial(`forget --messages, crash at ${point}`, base, command, point, command, check(point, true)),
    );
  }, TRIALS_TIMEOUT);

  it('redact, killed at 6 moments, then run again', async () => {
    const reference = path.join(bed.root(), 'redact-ref');
    cpSync(leaky, reference, { recursive: true });
    expect((await runCliInProcess(['--data', reference, 'redact', '--json'], TEST_ENV)).status).toBe(0);
    const expected = [await bed.snapshot(reference, 'leaky-1'), await bed.snapshot(reference, 'leaky-2')];
    expect(expected[0]!.chunks.some((c) => c.text.includes('[REDACTED:github-token]'))).toBe(true);
    const check = (label: string) => async (data: string) => {
      expect(filesWithTrace(data, TOKEN), label).toEqual([]);
      expect([await bed.snapshot(data, 'leaky-1'), await bed.snapshot(data, 'leaky-2')], label).toEqual(expected);
    };
    // After the first and the second session's save, inside a save, inside the purge.
    await bed.each(['redact-saved:1', 'redact-saved:2', 'committed:1', 'history:2', 'purge:1', 'purge-rewritten:1'], (point) => bed.purgeTrial(`redact, crash at ${point}`, leaky, ['redact'], point, ['redact'], check(point)));
  }, TRIALS_TIMEOUT);
});
