/**
 * The near-duplicate pairs' journal: shared by processes, a line cut short is cut off, a rewrite is
 * read again by the others, dismissals survive a session checked again, and the whole-file layout
 * of earlier versions is taken over.
 */
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEGACY_PAIRS_FILE, PAIRS_FILE, PairJournal, pairKey, type Pair } from '../electron/engine/duplicates/pairJournal.js';
import { scratchDirs } from './helpers/engine.js';

const dataDir = scratchDirs('sm-pairs-');
const pair = (a: string, as: string, b: string, bs: string, s = 0.97): Pair => ({ a, as, b, bs, s });
const keys = (journal: PairJournal) => [...journal.pairs.keys()].sort();

describe('the near-duplicate journal', () => {
  it('is shared by processes, and a save adds one line, not the whole list', async () => {
    const dir = dataDir();
    const a = new PairJournal(dir);
    const b = new PairJournal(dir);
    await a.refresh(true);
    await a.append({ add: [pair('c1', 'S', 'd1', 'T'), pair('c2', 'S', 'd2', 'T')], checked: { S: 'f1', T: 't1' } });
    const size = statSync(path.join(dir, PAIRS_FILE)).size;
    await b.refresh(true);
    expect(keys(b)).toEqual(['c1|d1', 'c2|d2']);
    // S saved again by b: chunk c1 removed, a new pair; a dismissal by a.
    await b.append({ dropChunks: ['c1'], add: [pair('c3', 'S', 'e1', 'U')], checked: { S: 'f2' } });
    expect(statSync(path.join(dir, PAIRS_FILE)).size - size).toBeLessThan(200);
    await a.refresh(true);
    await a.append({ dismiss: ['c2|d2'] });
    await b.refresh(false);
    for (const journal of [a, b]) {
      expect(keys(journal)).toEqual(['c2|d2', 'c3|e1']);
      expect(journal.checked).toEqual(new Map([['S', 'f2'], ['T', 't1']]));
      expect([...journal.dismissed]).toEqual(['c2|d2']);
    }
  });

  it('keeps a dismissal when a session is checked again and the pair found again, and drops it with the pair', async () => {
    const journal = new PairJournal(dataDir());
    await journal.refresh(true);
    await journal.append({ add: [pair('c1', 'S', 'd1', 'T'), pair('c2', 'S', 'd2', 'T')], checked: { S: 'f1' } });
    await journal.append({ dismiss: ['c1|d1', 'c2|d2'] });
    await journal.append({ dropSessions: ['S'], add: [pair('c1', 'S', 'd1', 'T')], checked: { S: 'f2' } });
    expect([...journal.dismissed]).toEqual(['c1|d1']);
    await journal.append({ dropChunks: ['d1'] });
    expect(journal.dismissed.size).toBe(0);
    // A dismissal of a pair that is not stored is not kept.
    await journal.append({ dismiss: ['x|y'] });
    expect(journal.dismissed.size).toBe(0);
  });

  it('cuts off a line cut short, and is read again after a rewrite', async () => {
    const dir = dataDir();
    const file = path.join(dir, PAIRS_FILE);
    const a = new PairJournal(dir);
    await a.refresh(true);
    await a.append({ add: [pair('c1', 'S', 'd1', 'T')], checked: { S: 'f1' } });
    const whole = statSync(file).size;
    appendFileSync(file, '{"add":[{"a":"c9"');
    const reader = new PairJournal(dir);
    await reader.refresh(false);
    expect(keys(reader)).toEqual(['c1|d1']);
    expect(statSync(file).size).toBeGreaterThan(whole); // a reader without the lock leaves the file alone
    const writer = new PairJournal(dir);
    await writer.refresh(true);
    expect(statSync(file).size).toBe(whole);
    await writer.append({ add: [pair('c2', 'S', 'd2', 'T')] });
    // Many changes: the file is rewritten as one line under a new generation; the others read it again.
    const long = (i: number, j: number) => `${i}-${j}`.padEnd(40, '0');
    for (let i = 0; i < 600; i++) {
      const batch = Array.from({ length: 20 }, (_, j) => pair(`x${long(i, j)}`, 'S', `y${long(i, j)}`, 'T'));
      await writer.append({ add: batch });
      await writer.append({ dropChunks: batch.map((p) => p.a) });
    }
    expect(readFileSync(file, 'utf8').split('\n').length).toBeLessThan(1200);
    await a.refresh(false);
    expect(keys(a)).toEqual(['c1|d1', 'c2|d2']);
    expect(a.checked.get('S')).toBe('f1');
  });

  it('cuts off a tail of zeros (a power loss after the file grew), and appends after the last whole line', async () => {
    const dir = dataDir();
    const file = path.join(dir, PAIRS_FILE);
    const a = new PairJournal(dir);
    await a.refresh(true);
    await a.append({ add: [pair('c1', 'S', 'd1', 'T')], checked: { S: 'f1' } });
    const whole = statSync(file).size;
    appendFileSync(file, Buffer.alloc(4096));
    const writer = new PairJournal(dir);
    await writer.refresh(true);
    expect(keys(writer)).toEqual(['c1|d1']);
    expect(statSync(file).size).toBe(whole);
    await writer.append({ add: [pair('c2', 'S', 'd2', 'T')] });
    const reader = new PairJournal(dir);
    await reader.refresh(false);
    expect(keys(reader)).toEqual(['c1|d1', 'c2|d2']);
  });

  it('takes over the whole-file layout of earlier versions, and starts over from a damaged file', async () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, LEGACY_PAIRS_FILE), JSON.stringify({ format: 1, checked: { S: 'f1' }, pairs: [pair('c1', 'S', 'd1', 'T')], dismissed: ['c1|d1'] }));
    const journal = new PairJournal(dir);
    await journal.refresh(true);
    expect(keys(journal)).toEqual([pairKey(pair('c1', 'S', 'd1', 'T'))]);
    expect([...journal.dismissed]).toEqual(['c1|d1']);
    expect(existsSync(path.join(dir, LEGACY_PAIRS_FILE))).toBe(false);
    expect(existsSync(path.join(dir, PAIRS_FILE))).toBe(true);
    writeFileSync(path.join(dir, PAIRS_FILE), 'not a journal\n');
    const again = new PairJournal(dir);
    await again.refresh(true);
    expect(again.pairs.size).toBe(0);
    expect(again.checked.size).toBe(0);
  });
});
