import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
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

  // The two records below are written the way Qwen Code 0.15.10 writes them (ChatRecordingService's
  // `rewindRecording` and `recordCustomTitle` in its bundle); `/rewind` and `/rename` run only in its
  // interactive mode, which was not driven here.
  it('leaves out and removes the turn /rewind dropped, and takes the title /rename gave', async () => {
    const lines = readFileSync(RESUMED, 'utf8').split('\n').filter(Boolean);
    const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    const base = { sessionId: last.sessionId, cwd: last.cwd, version: last.version, type: 'system' };
    const file = path.join(tempDir(), path.basename(RESUMED));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const engine = await bed.open(bed.dataDir());
    const reports: SaveReport[] = [];
    await saveTranscriptFile(engine, file, { onReport: (report) => reports.push(report) });
    // Rewinding to the second turn re-roots the chain on the record before that turn's prompt.
    const beforeSecondTurn = (JSON.parse(lines[8]!) as { parentUuid: string }).parentUuid;
    appendFileSync(file, `${JSON.stringify({ ...base, uuid: 'b5f3f0a4-0d7e-4f7e-9a57-6f4b0e1c2a01', parentUuid: beforeSecondTurn, timestamp: '2026-12-07T10:30:00.000Z', subtype: 'rewind', systemPayload: { targetTurnIndex: 1 } })}\n`);
    appendFileSync(file, `${JSON.stringify({ ...base, uuid: 'b5f3f0a4-0d7e-4f7e-9a57-6f4b0e1c2a02', parentUuid: 'b5f3f0a4-0d7e-4f7e-9a57-6f4b0e1c2a01', timestamp: '2026-12-07T10:31:00.000Z', subtype: 'custom_title', systemPayload: { customTitle: 'Herons', titleSource: 'manual' } })}\n`);
    const [session] = await sessionsOf(file);
    expect(session!.title).toBe('Herons');
    expect(triples(session).map(([, role]) => role)).toEqual(['user', 'assistant']);
    await saveTranscriptFile(engine, file, { onReport: (report) => reports.push(report) });
    expect(reports.map((report) => ({ new: report.new, deleted: report.deleted }))).toEqual([{ new: 4, deleted: 0 }, { new: 0, deleted: 2 }]);
    await engine.close();
  });
});
