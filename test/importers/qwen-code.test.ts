import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SaveReport } from '../../shared/domain.js';
import { detectFormat } from '../../electron/importers/index.js';
import { saveTranscriptFile } from '../../electron/sources/saveFile.js';
import { hashEngineTestBed } from '../helpers/engine.js';
import { fixture, readAll, sessionsOf, tempDir, triples } from './helpers.js';

// Written by @qwen-code/qwen-code 0.15.10 itself (see test/fixtures/import/qwen-code/PROVENANCE.md).
const HOME = fixture('qwen-code', 'home');
const CHATS = path.join(HOME, 'projects', '-tmp-qf-project', 'chats');
const RESUMED = path.join(CHATS, '05634392-e641-4a60-998d-363cd111e5d1.jsonl');
const FAILED_TOOL = path.join(CHATS, '62a3f094-88ab-47eb-9415-b98e90e53c2e.jsonl');
// An interactive session: two turns, `/rewind` to the second, another second turn, `/rename`.
const REWOUND = path.join(HOME, 'projects', '-tmp-qr-project', 'chats', 'c14ca6d2-de24-40a4-8088-b68dbd103325.jsonl');

const bed = hashEngineTestBed();

describe('Qwen Code chats (written by qwen-code 0.15.10)', () => {
  it('reads a chat continued with --continue as one session: the person and the replies, not the bookkeeping', async () => {
    const [session] = await sessionsOf(RESUMED);
    expect(session).toMatchObject({ sessionId: '05634392-e641-4a60-998d-363cd111e5d1', source: 'qwen-code', title: 'What is in this folder? (turn-tool1)' });
    expect(triples(session)).toEqual([
      ['6b5542a6-50bd-4194-a455-897fa02b2703', 'user', 'What is in this folder? (turn-tool1)'],
      ['66df4a98-5de0-4972-8d9a-1ed353bb8f72', 'assistant', 'The folder holds notes.txt (turn-tool1).'],
      ['3e2336c1-d8f9-40d2-a170-78503e775c73', 'user', 'Thanks. And what do herons eat in winter? (turn-plain2)'],
      ['157400bf-96dc-4446-a53a-23a0e078b6ab', 'assistant', 'Noted turn-plain2: the mock model answers in one line.'],
    ]);
    expect(session!.messages[1]!.timestamp).toBe('2026-12-07T10:18:25.837Z');
  });

  it('keeps thinking, tool calls and their results only when asked, and marks a failed tool', async () => {
    const [full] = await sessionsOf(RESUMED, { include: ['tools', 'thinking'] });
    expect(triples(full).slice(0, 5)).toEqual([
      ['6b5542a6-50bd-4194-a455-897fa02b2703', 'user', 'What is in this folder? (turn-tool1)'],
      ['c8e6f65c-04e9-485b-808f-4d4437a0082c', 'assistant', '[thinking] The person asks what is in the folder; listing it first.'],
      ['c8e6f65c-04e9-485b-808f-4d4437a0082c#1', 'tool', '[tool call: list_directory] {"path":"/tmp/qf/project"}'],
      ['65141336-252a-4aed-911b-5d15556336f8', 'tool', '[tool result: list_directory] Listed 1 item(s) in /tmp/qf/project:\n---\nnotes.txt'],
      ['66df4a98-5de0-4972-8d9a-1ed353bb8f72', 'assistant', 'The folder holds notes.txt (turn-tool1).'],
    ]);
    const [failed] = await sessionsOf(FAILED_TOOL, { include: ['tools'] });
    expect(triples(failed).map(([, role, content]) => [role, content])).toEqual([
      ['user', 'Read missing.txt please (turn-toolerr)'],
      ['tool', '[tool call: read_file] {"absolute_path":"/tmp/qf/project/missing.txt"}'],
      ['tool', "[tool result: read_file] (error) params must have required property 'file_path'"],
      ['assistant', 'The folder holds notes.txt (turn-toolerr).'],
    ]);
  });

  it('imports a whole ~/.qwen folder: only the chats, not the notes and run logs Qwen Code keeps beside them', async () => {
    const results = await readAll([HOME]);
    expect(results.map((r) => ('format' in r ? [path.basename(r.file), r.format] : r.error.message))).toEqual([
      ['05634392-e641-4a60-998d-363cd111e5d1.jsonl', 'qwen-code'],
      ['62a3f094-88ab-47eb-9415-b98e90e53c2e.jsonl', 'qwen-code'],
      ['c14ca6d2-de24-40a4-8088-b68dbd103325.jsonl', 'qwen-code'],
    ]);
  });

  it('is told from Claude Code, whose lines carry the same fields around another kind of message', () => {
    expect(detectFormat(readFileSync(RESUMED))).toBe('qwen-code');
    expect(detectFormat(readFileSync(RESUMED, 'utf8').split('\n')[0]!)).toBe('qwen-code');
    expect(detectFormat(readFileSync(fixture('claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl')))).toBe('claude-code');
  });

  it('skips a damaged line and names it, and keeps the conversation on both sides of it', async () => {
    const lines = readFileSync(RESUMED, 'utf8').split('\n').filter(Boolean);
    const file = path.join(tempDir(), path.basename(RESUMED));
    // The line of the first answer cut short: the records after it name it as their parent.
    writeFileSync(file, `${[...lines.slice(0, 7), lines[7]!.slice(0, 60), ...lines.slice(8)].join('\n')}\n`);
    const [result] = await readAll([file]);
    if (!result || 'error' in result) throw new Error('expected the chat to be read');
    expect(result.skipped).toEqual([{ file, line: 8, error: expect.stringMatching(/invalid JSON|truncated/) }]);
    expect(triples(result.sessions[0]).map(([, role, content]) => [role, content])).toEqual([
      ['user', 'What is in this folder? (turn-tool1)'],
      ['user', 'Thanks. And what do herons eat in winter? (turn-plain2)'],
      ['assistant', 'Noted turn-plain2: the mock model answers in one line.'],
    ]);
  });

  it('saves a chat as it grows: the resumed turn adds two messages, saving it again adds none', async () => {
    const engine = await bed.open(bed.dataDir());
    const lines = readFileSync(RESUMED, 'utf8').split('\n').filter(Boolean);
    const file = path.join(tempDir(), path.basename(RESUMED));
    const save = async () => {
      const reports: SaveReport[] = [];
      await saveTranscriptFile(engine, file, { onReport: (report) => reports.push(report) });
      return reports.map((report) => ({ new: report.new, deleted: report.deleted }));
    };
    // The first run (`qwen -p`) wrote eight lines; `qwen --continue -p` appended the rest.
    writeFileSync(file, `${lines.slice(0, 8).join('\n')}\n`);
    expect(await save()).toEqual([{ new: 2, deleted: 0 }]);
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect(await save()).toEqual([{ new: 2, deleted: 0 }]);
    expect(await save()).toEqual([{ new: 0, deleted: 0 }]);
    await engine.close();
  });

  it('leaves out the turn /rewind dropped and removes it from memory at the next save, and takes the title /rename gave', async () => {
    const [session] = await sessionsOf(REWOUND);
    expect(session).toMatchObject({ sessionId: 'c14ca6d2-de24-40a4-8088-b68dbd103325', title: 'Lisbon tram notes' });
    expect(triples(session)).toEqual([
      ['b5624a10-89bd-466c-971b-534fe8c6906e', 'user', 'Remember: tram 28 leaves Martim Moniz at 9 (turn-a1)'],
      ['582dfe62-acf5-423b-af0d-0b880b9b72b8', 'assistant', 'Noted turn-a1: the mock model answers in one line.'],
      ['d9bbd664-aeeb-4408-94b3-30faab6fbb1f', 'user', 'Sorry: the day pass costs 7.20 euros now (turn-a3)'],
      ['ff72610f-d59e-46da-9edf-ce9f6b925d25', 'assistant', 'Noted turn-a3: the mock model answers in one line.'],
    ]);
    const engine = await bed.open(bed.dataDir());
    const lines = readFileSync(REWOUND, 'utf8').split('\n').filter(Boolean);
    const file = path.join(tempDir(), path.basename(REWOUND));
    const reports: SaveReport[] = [];
    const save = () => saveTranscriptFile(engine, file, { onReport: (report) => reports.push(report) });
    // As the file was before `/rewind`: two turns.
    writeFileSync(file, `${lines.slice(0, 10).join('\n')}\n`);
    await save();
    writeFileSync(file, `${lines.join('\n')}\n`);
    await save();
    // The second turn goes, the turn typed in its place comes.
    expect(reports.map((report) => ({ new: report.new, deleted: report.deleted }))).toEqual([{ new: 4, deleted: 0 }, { new: 2, deleted: 2 }]);
    await engine.close();
  });
});
