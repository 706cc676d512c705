/**
 * The archive record's journal (record/archiveRecord.ts): a save of a large record appends the
 * entries it changed instead of writing every session's entry again. These stores are small, so the
 * journal is switched on from 0 bytes (`recordJournalFromBytes`), as a record of 1,000 sessions has it.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, promises as fs, rmSync } from 'node:fs';
import path from 'node:path';
import { ARCHIVE_JOURNAL_FILE, ARCHIVE_RECORD_FILE, readArchiveRecord, type ArchiveRecord } from '../electron/engine/record/archiveRecord.js';
import { conversation, hashEngineTestBed } from './helpers/engine.js';

const bed = hashEngineTestBed();
const JOURNAL = { recordJournalFromBytes: 0 };

/** The record as its file and journal give it, without the times a rebuild sets afresh. */
async function readBack(dir: string): Promise<ArchiveRecord> {
  const read = await readArchiveRecord(dir);
  if (!read.record) throw new Error(read.problem);
  return read.record;
}

function comparable(record: ArchiveRecord): unknown {
  // A rebuild sets the times afresh and knows nothing of the inputs' fingerprints.
  return Object.fromEntries(Object.entries(record.sessions).map(([id, { last_saved_at: _saved, archived_at: _archived, input_fingerprint: _input, input_total: _total, ...rest }]) => [id, rest]));
}

async function savedThree(dir: string) {
  const engine = await bed.open(dir, JOURNAL);
  await engine.save(conversation(10, { sessionId: 'session-a' }));
  await engine.save({ ...conversation(8, { sessionId: 'session-b' }), title: 'Second conversation' });
  await engine.save(conversation(14, { sessionId: 'session-a' }));
  return engine;
}

describe('the archive record journal', () => {
  it('a save appends the entries it changed; the record read back (file and journal) is the record the store gives', async () => {
    const dir = bed.dataDir();
    const engine = await savedThree(dir);
    const recordFile = path.join(dir, ARCHIVE_RECORD_FILE);
    const before = await fs.stat(recordFile);
    const third = await engine.save(conversation(20, { sessionId: 'session-a' }));
    expect(third.new).toBe(6);
    // The record file itself was not written again: the change went to the journal, one line.
    expect((await fs.stat(recordFile)).mtimeMs).toBe(before.mtimeMs);
    const journal = await fs.readFile(path.join(dir, ARCHIVE_JOURNAL_FILE), 'utf8');
    const lastLine = JSON.parse(journal.trimEnd().split('\n').at(-1)!) as { set: Record<string, unknown> };
    expect(Object.keys(lastLine.set)).toEqual(['session-a']);

    const read = await readBack(dir);
    expect(read.storeVersion).toBe((await engine.loadRecord()).storeVersion);
    expect(read.sessions['session-a']).toMatchObject({ message_count: 20, msg_range: ['msg-0', 'msg-19'] });
    expect(read.sessions['session-b']).toMatchObject({ message_count: 8, title: 'Second conversation' });
    // Entry for entry what the engine holds, and so what writing it whole would have written.
    expect(read).toEqual(JSON.parse(JSON.stringify(await engine.loadRecord())));
    expect(comparable(read)).toEqual(comparable(await engine.rebuildRecord()));
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();

    // Another process reads the same record and takes it as current: an unchanged save returns at once.
    const reopened = await bed.open(dir, JOURNAL);
    expect(await reopened.save(conversation(20, { sessionId: 'session-a' }))).toMatchObject({ skippedSession: true, warnings: [] });
    await reopened.close();
  });

  it('a line cut short at the journal end (a power loss in an append) is ignored, not fatal; the next save writes the record whole', async () => {
    const dir = bed.dataDir();
    const engine = await savedThree(dir);
    await engine.close();
    const journalFile = path.join(dir, ARCHIVE_JOURNAL_FILE);
    const whole = await readBack(dir);
    await fs.appendFile(journalFile, '{"storeVersion":99,"writesSinceOptimize":1,"set":{"session-a":{"session_id":"ses');

    const read = await readArchiveRecord(dir);
    expect(read.record).toEqual(whole);
    expect(read.record && read.disk.torn).toBe(true);

    const reopened = await bed.open(dir, JOURNAL);
    // The record is current without the torn line: no rebuild, no warning.
    expect(await reopened.save(conversation(14, { sessionId: 'session-a' }))).toMatchObject({ skippedSession: true, warnings: [] });
    const grown = await reopened.save(conversation(16, { sessionId: 'session-a' }));
    expect(grown).toMatchObject({ new: 2, warnings: [] });
    // Never appended after the torn line: the record was written whole and the journal dropped.
    expect(existsSync(journalFile)).toBe(false);
    expect((await readBack(dir)).sessions['session-a']).toMatchObject({ message_count: 16 });
    expect((await reopened.verify()).ok).toBe(true);
    await reopened.close();
  });

  it('an unreadable line in the middle ends the journal: the lines after it are not applied, and the stale record is rebuilt', async () => {
    const dir = bed.dataDir();
    const engine = await savedThree(dir);
    await engine.close();
    const journalFile = path.join(dir, ARCHIVE_JOURNAL_FILE);
    const lines = (await fs.readFile(journalFile, 'utf8')).trimEnd().split('\n');
    expect(lines.length).toBe(4);
    // The second change damaged: the third, later one must not be applied over the first.
    lines[2] = lines[2]!.replace(/[{}]/g, '#');
    await fs.writeFile(journalFile, `${lines.join('\n')}\n`);
    const read = await readArchiveRecord(dir);
    expect(read.record && read.disk.torn).toBe(true);

    const reopened = await bed.open(dir, JOURNAL);
    const report = await reopened.save(conversation(14, { sessionId: 'session-a' }));
    expect(report.warnings.join('\n')).toContain('rebuilt it from the store');
    expect(report).toMatchObject({ new: 0, skipped: 14 });
    expect((await reopened.verify()).ok).toBe(true);
    await reopened.close();
  });

  it('a journal written for another record file is not applied to this one', async () => {
    const dir = bed.dataDir();
    const engine = await savedThree(dir);
    const recordFile = path.join(dir, ARCHIVE_RECORD_FILE);
    const stale = await fs.readFile(recordFile, 'utf8');
    await engine.save(conversation(18, { sessionId: 'session-a' }));
    // The record file put back by hand (same content as when the journal started): the journal's lines name the file it replaced.
    await fs.writeFile(recordFile, stale);
    const verify = await engine.verify();
    expect(verify.ok).toBe(false);
    expect(verify.problems.join('\n')).toContain('describes store version');
    await engine.close();
  });

  it('a journal removed while a save runs does not fail the save: the record is written whole', async () => {
    const dir = bed.dataDir();
    const engine = await savedThree(dir);
    const journalFile = path.join(dir, ARCHIVE_JOURNAL_FILE);
    // Removed between the save's read of the record (whose stamp it checks) and its write.
    const report = await engine.save(conversation(18, { sessionId: 'session-a' }), { onProgress: (p) => p.phase === 'embedding' && rmSync(journalFile, { force: true }) });
    expect(report.new).toBe(4);
    expect((await readBack(dir)).sessions['session-a']).toMatchObject({ message_count: 18 });
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });

  it('a forgotten session leaves no entry in the journal: forgetting writes the record whole', async () => {
    const dir = bed.dataDir();
    const engine = await savedThree(dir);
    expect(await fs.readFile(path.join(dir, ARCHIVE_JOURNAL_FILE), 'utf8')).toContain('Second conversation');
    await engine.forget(['session-b']);
    expect(existsSync(path.join(dir, ARCHIVE_JOURNAL_FILE))).toBe(false);
    expect(await fs.readFile(path.join(dir, ARCHIVE_RECORD_FILE), 'utf8')).not.toContain('session-b');
    expect(Object.keys((await readBack(dir)).sessions)).toEqual(['session-a']);
    await engine.close();
  });
});
