import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SaveReport } from '../../shared/domain.js';
import { detectFormat } from '../../electron/importers/index.js';
import { saveTranscriptFile } from '../../electron/sources/saveFile.js';
import { hashEngineTestBed } from '../helpers/engine.js';
import { errorOf, fixture, readAll, sessionsOf, tempDir, triples } from './helpers.js';
import { buildZip } from './write-zip.js';

// Written in the shape of Antigravity's own logs (see test/fixtures/import/antigravity/PROVENANCE.md).
const BRAIN = fixture('antigravity', 'brain');
const HERONS = '6f0b2c1e-8d4a-4b7e-9c3f-2a5d7e9b1c40';
const NESTS = 'b81e4d27-3c9f-4a16-8e5b-d0c7f2a94e63';
const LOGS = path.join(BRAIN, HERONS, '.system_generated', 'logs');
const FULL = path.join(LOGS, 'transcript_full.jsonl');
const CUT = path.join(LOGS, 'transcript.jsonl');
const ONLY_CUT = path.join(BRAIN, NESTS, '.system_generated', 'logs', 'transcript.jsonl');
const DIALOGUE = [
  ['0', 'user', 'What do the notes in notes.txt say about herons? (turn-heron1)'],
  ['7', 'assistant', 'The notes say herons eat fish in winter (turn-heron1).'],
  ['8', 'user', 'And where do they go when the water freezes? List the folder too. (turn-heron2)'],
];
const LAST_ANSWER = `${'Herons eat fish, frogs and voles in winter. '.repeat(6).trim()}\n\nThey hunt in open water that does not freeze, and move south when it does.`;

/** A copy of a log in a conversation's folder of its own (`<id>/.system_generated/logs/<name>`), without the other log beside it. */
function alone(file: string, id = HERONS, content = readFileSync(file, 'utf8')): string {
  const logs = path.join(tempDir(), id, '.system_generated', 'logs');
  mkdirSync(logs, { recursive: true });
  const copy = path.join(logs, path.basename(file));
  writeFileSync(copy, content);
  return copy;
}

const bed = hashEngineTestBed();

describe('Google Antigravity conversation logs', () => {
  it('is recognised by its steps, whatever the file is called', () => {
    expect(detectFormat(readFileSync(FULL, 'utf8'))).toBe('antigravity');
    expect(detectFormat(readFileSync(CUT, 'utf8'))).toBe('antigravity');
    expect(detectFormat(readFileSync(ONLY_CUT, 'utf8').split('\n')[0]!)).toBe('antigravity');
  });

  it('reads the person\'s words and the answers in step order, under the conversation\'s id, titled by the first request', async () => {
    const [session] = await sessionsOf(FULL);
    expect(session).toMatchObject({ sessionId: HERONS, source: 'antigravity', title: DIALOGUE[0]![2] });
    expect(triples(session)).toEqual([...DIALOGUE, ['12', 'assistant', LAST_ANSWER]]);
    expect(session!.messages.map((m) => m.timestamp)).toEqual(['2026-09-14T08:00:01.000Z', '2026-09-14T08:00:06.000Z', '2026-09-14T08:02:30.000Z', '2026-09-14T08:02:40.000Z']);
    // The client's blocks after the words, the other conversations' summaries, reminders, the checkpoint's
    // summary and the model API's error are in the file, and none of them is a message.
    const file = readFileSync(FULL, 'utf8');
    for (const notWords of ['<ADDITIONAL_METADATA>', 'Model Selection', 'Heron Nesting Question', 'planning mode', '# USER Objective:', 'overloaded']) {
      expect(file).toContain(notWords);
      expect(JSON.stringify(session)).not.toContain(notWords);
    }
  });

  it('keeps thinking, tool calls and their results only when asked, in step order though the file has a result before its call', async () => {
    const file = readFileSync(FULL, 'utf8');
    expect(file.indexOf('"step_index":5,')).toBeLessThan(file.indexOf('"step_index":4,'));
    const [session] = await sessionsOf(FULL, { include: ['tools', 'thinking'] });
    expect(triples(session).slice(1, 6)).toEqual([
      ['4', 'assistant', '[thinking] **Reading the notes**\n\nThe person asks about notes.txt; viewing it first.'],
      ['4#1', 'tool', '[tool call: view_file] {"AbsolutePath":"/home/ana/birds/notes.txt","IsSkillFile":false,"toolAction":"Viewing file","toolSummary":"View notes"}'],
      ['5', 'tool', '[tool result: view_file] File Path: `file:///home/ana/birds/notes.txt`\nTotal Lines: 1\n1: herons eat fish in winter (turn-heron1)'],
      ['7#0', 'assistant', '[thinking] **Answering**\n\nThe file holds one line.'],
      DIALOGUE[1],
    ]);
    expect(triples(session).slice(7, 9)).toEqual([
      ['9', 'tool', '[tool call: run_command] {"CommandLine":"ls /home/ana/birds/winter","Cwd":"/home/ana/birds","WaitMsBeforeAsync":2000,"toolAction":"Listing winter notes","toolSummary":"List folder"}'],
      ['10', 'tool', "[tool result: run_command] The command exited with code 2.\nOutput:\nls: cannot access '/home/ana/birds/winter': No such file or directory"],
    ]);
    // The same messages as without them, under the same ids.
    const [plain] = await sessionsOf(FULL);
    expect(triples(session).filter(([id]) => plain!.messages.some((m) => m.msgId === id))).toEqual(triples(plain));
  });

  it('reads the whole log when both are named, and the cut copy alone where it is the only one', async () => {
    // The cut copy named while the full log is beside it: the full log is read.
    const [named] = await readAll([CUT]);
    expect(named).toMatchObject({ file: FULL, format: 'antigravity' });
    // The cut copy alone: the same conversation and ids, the long answer cut as Antigravity cut it, the calls' arguments read back.
    const [cut] = await sessionsOf(alone(CUT), { include: ['tools'] });
    const [full] = await sessionsOf(FULL, { include: ['tools'] });
    expect(cut!.sessionId).toBe(HERONS);
    expect(cut!.messages.map((m) => m.msgId)).toEqual(full!.messages.map((m) => m.msgId));
    expect(cut!.messages.at(-1)!.content).toMatch(/^Herons eat fish, frogs and voles in winter\. Herons eat fish, frogs and voles in \n<truncated \d+ bytes>\nnot freeze, and move south when it does\.$/);
    expect(cut!.messages.slice(0, -1)).toEqual(full!.messages.slice(0, -1));
    expect(readFileSync(CUT, 'utf8')).toContain('"AbsolutePath":"\\"/home/ana/birds/notes.txt\\""');
  });

  it('reads the brain folder as one session per conversation, and not the documents the agent wrote beside them', async () => {
    const results = await readAll([BRAIN]);
    expect(results.map((r) => ('error' in r ? r.error.message : [path.relative(BRAIN, r.file), r.sessions.map((s) => s.sessionId)]))).toEqual([
      [path.join(HERONS, '.system_generated', 'logs', 'transcript_full.jsonl'), [HERONS]],
      [path.join(NESTS, '.system_generated', 'logs', 'transcript.jsonl'), [NESTS]],
    ]);
    expect(triples((results[1] as { sessions: Parameters<typeof triples>[0][] }).sessions[0])).toEqual([
      ['0', 'user', 'Where do herons nest? (turn-nest1)'],
      ['2', 'assistant', 'In colonies high in trees near water (turn-nest1).'],
    ]);
  });

  it('reads a ZIP archive of the brain folder as the folder: each conversation once, from its hidden logs folder', async () => {
    const entry = (id: string, ...rest: string[]) => ({ name: ['brain', id, ...rest].join('/'), data: readFileSync(path.join(BRAIN, id, ...rest)) });
    const zip = path.join(tempDir(), 'antigravity-brain.zip');
    writeFileSync(zip, buildZip([
      entry(HERONS, '.system_generated', 'logs', 'transcript.jsonl'),
      entry(HERONS, '.system_generated', 'logs', 'transcript_full.jsonl'),
      entry(HERONS, 'task.md'),
      entry(HERONS, 'task.md.metadata.json'),
      entry(NESTS, '.system_generated', 'logs', 'transcript.jsonl'),
    ]));
    const results = await readAll([zip]);
    expect(results.map((r) => ('error' in r ? r.error.message : [r.file, r.sessions.map((s) => s.sessionId)]))).toEqual([
      [`${zip}/brain/${HERONS}/.system_generated/logs/transcript_full.jsonl`, [HERONS]],
      [`${zip}/brain/${NESTS}/.system_generated/logs/transcript.jsonl`, [NESTS]],
    ]);
    expect(triples((results[0] as { sessions: Parameters<typeof triples>[0][] }).sessions[0]).at(-1)).toEqual(['12', 'assistant', LAST_ANSWER]);
  });

  it('saves a conversation once, whichever of its logs is saved, and adds only the new steps as it grows', async () => {
    const engine = await bed.open(bed.dataDir());
    const save = async (file: string) => {
      const reports: SaveReport[] = [];
      await saveTranscriptFile(engine, file, { onReport: (report) => reports.push(report) });
      return reports.map((report) => ({ sessionId: report.sessionId, new: report.new }));
    };
    const lines = readFileSync(FULL, 'utf8').split('\n').filter(Boolean);
    const growing = alone(FULL, HERONS, `${lines.slice(0, 9).join('\n')}\n`);
    expect(await save(growing)).toEqual([{ sessionId: HERONS, new: 3 }]);
    writeFileSync(growing, `${lines.join('\n')}\n`);
    expect(await save(growing)).toEqual([{ sessionId: HERONS, new: 1 }]);
    expect(await save(growing)).toEqual([{ sessionId: HERONS, new: 0 }]);
    // The fixture's logs of the same conversation, the cut copy named too: nothing new.
    expect(await save(FULL)).toEqual([{ sessionId: HERONS, new: 0 }]);
    expect(await save(CUT)).toEqual([{ sessionId: HERONS, new: 0 }]);
    await engine.close();
  });

  it('titles a conversation by the first line of the request with words, past a rule that heads a pasted log', async () => {
    const lines = readFileSync(ONLY_CUT, 'utf8').split('\n');
    const pasted = lines[0]!.replace('Where do herons nest? (turn-nest1)', '────────────────────\\r\\n10:25:19.884\\r\\n▲ [WARNING] Failed to match Worker name.');
    const [session] = await sessionsOf(alone(ONLY_CUT, NESTS, [pasted, ...lines.slice(1)].join('\n')));
    expect(session!.messages[0]!.content).toBe('────────────────────\n10:25:19.884\n▲ [WARNING] Failed to match Worker name.');
    expect(session!.title).toBe('10:25:19.884');
  });

  it('names a copy kept outside its conversation\'s folder by its first step, the same for both logs', async () => {
    const folder = tempDir();
    copyFileSync(FULL, path.join(folder, 'full.jsonl'));
    copyFileSync(CUT, path.join(folder, 'cut.jsonl'));
    const [full] = await sessionsOf(path.join(folder, 'full.jsonl'));
    const [cut] = await sessionsOf(path.join(folder, 'cut.jsonl'));
    expect(full!.sessionId).toMatch(/^antigravity-[0-9a-f]{16}$/);
    expect(cut!.sessionId).toBe(full!.sessionId);
  });

  it('leaves out a damaged line and names it, or refuses the file naming it when strict', async () => {
    const lines = readFileSync(FULL, 'utf8').split('\n');
    const damaged = alone(FULL, HERONS, [...lines.slice(0, 7), lines[7]!.slice(0, 60), ...lines.slice(8)].join('\n'));
    const [result] = await readAll([damaged]);
    expect(result).toMatchObject({ format: 'antigravity', skipped: [{ file: damaged, line: 8 }] });
    expect(triples((result as { sessions: Parameters<typeof triples>[0][] }).sessions[0]).map(([id]) => id)).toEqual(['0', '8', '12']);
    const error = await errorOf(damaged, undefined, { strict: true });
    expect(error.file).toBe(damaged);
    expect(error.message).toMatch(/line 8/);
  });
});
