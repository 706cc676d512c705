import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SaveReport } from '../../shared/domain.js';
import { detectFormat } from '../../electron/importers/index.js';
import { saveTranscriptFile } from '../../electron/sources/saveFile.js';
import { hashEngineTestBed } from '../helpers/engine.js';
import { fixture, readAll, sessionsOf, tempDir, triples } from './helpers.js';

// Written by @github/copilot 1.0.102 itself, offline (see test/fixtures/import/copilot-cli/PROVENANCE.md).
const HOME = fixture('copilot-cli', 'home');
const RESUMED = path.join(HOME, 'session-state', '57de8b1b-71f6-4dfc-b47e-fb3ff89a390a', 'events.jsonl');
const FAILED_TOOL = path.join(HOME, 'session-state', '96c9801a-64b8-4a27-9f18-77c24a952219', 'events.jsonl');

const bed = hashEngineTestBed();

describe('GitHub Copilot CLI sessions (written by copilot 1.0.102)', () => {
  it('reads a session taken up again with --continue as one session: the words as the person typed them and the answers', async () => {
    const [session] = await sessionsOf(RESUMED);
    expect(session).toMatchObject({ sessionId: '57de8b1b-71f6-4dfc-b47e-fb3ff89a390a', source: 'copilot-cli', title: 'What does notes.txt say? (turn-tool1)' });
    expect(triples(session)).toEqual([
      ['69edae81-1c7d-42a9-aa07-94eff46126c1', 'user', 'What does notes.txt say? (turn-tool1)'],
      ['dc671bc6-a9fb-4fa0-9ab6-fdd446e4340b', 'assistant', 'The folder holds notes.txt (turn-tool1).'],
      ['4942c048-aebb-4694-a16f-e37f7bdec504', 'user', 'Thanks. And what do herons eat in winter? (turn-plain2)'],
      ['110167ed-98a2-4ffe-b334-65a73666297a', 'assistant', 'Noted turn-plain2: the mock model answers in one line.'],
    ]);
    // What the model was sent carries the time Copilot wraps around the words; the person's words do not.
    expect(readFileSync(RESUMED, 'utf8')).toContain('<current_datetime>');
  });

  it('keeps thinking, tool calls and their results only when asked, and marks a failed tool', async () => {
    const [full] = await sessionsOf(RESUMED, { include: ['tools', 'thinking'] });
    expect(triples(full).slice(1, 4).map(([, role, content]) => [role, content])).toEqual([
      ['assistant', '[thinking] The person asks what is in the folder; listing it first.'],
      ['tool', '[tool call: view] {"path":"/tmp/cp/project/notes.txt"}'],
      ['tool', '[tool result: view] heron notes'],
    ]);
    const [failed] = await sessionsOf(FAILED_TOOL, { include: ['tools'] });
    expect(triples(failed).map(([, role, content]) => [role, content])).toEqual([
      ['user', 'Read missing.txt please (turn-toolerr)'],
      ['tool', '[tool call: view] {"path":"/tmp/cp/project/missing.txt"}'],
      ['tool', '[tool result: view] (error) Path does not exist'],
      ['assistant', 'The folder holds notes.txt (turn-toolerr).'],
    ]);
  });

  it('imports a whole ~/.copilot folder: only the sessions, not the state Copilot keeps beside them', async () => {
    const results = await readAll([HOME]);
    expect(results.map((r) => ('format' in r ? [path.relative(HOME, r.file), r.format] : r.error.message))).toEqual([
      [path.join('session-state', '57de8b1b-71f6-4dfc-b47e-fb3ff89a390a', 'events.jsonl'), 'copilot-cli'],
      [path.join('session-state', '96c9801a-64b8-4a27-9f18-77c24a952219', 'events.jsonl'), 'copilot-cli'],
    ]);
  });

  it('is recognised by content, from its first lines', () => {
    expect(detectFormat(readFileSync(RESUMED))).toBe('copilot-cli');
    expect(detectFormat(readFileSync(RESUMED, 'utf8').split('\n')[0]!)).toBe('copilot-cli');
  });

  it('skips a damaged line and names it, and reads the rest', async () => {
    const lines = readFileSync(RESUMED, 'utf8').split('\n').filter(Boolean);
    const folder = path.join(tempDir(), '57de8b1b-71f6-4dfc-b47e-fb3ff89a390a');
    const file = path.join(folder, 'events.jsonl');
    mkdirSync(folder);
    // The first answer's line cut short.
    const cut = lines.findIndex((line) => line.includes('"content":"The folder holds notes.txt'));
    writeFileSync(file, `${[...lines.slice(0, cut), lines[cut]!.slice(0, 80), ...lines.slice(cut + 1)].join('\n')}\n`);
    const [result] = await readAll([file]);
    if (!result || 'error' in result) throw new Error('expected the session to be read');
    expect(result.skipped).toEqual([{ file, line: cut + 1, error: expect.stringMatching(/invalid JSON|truncated/) }]);
    expect(triples(result.sessions[0]).map(([, role, content]) => [role, content])).toEqual([
      ['user', 'What does notes.txt say? (turn-tool1)'],
      ['user', 'Thanks. And what do herons eat in winter? (turn-plain2)'],
      ['assistant', 'Noted turn-plain2: the mock model answers in one line.'],
    ]);
  });

  it('saves a session as it grows: the continued turn adds two messages, saving it again adds none', async () => {
    const engine = await bed.open(bed.dataDir());
    const lines = readFileSync(RESUMED, 'utf8').split('\n').filter(Boolean);
    const folder = path.join(tempDir(), '57de8b1b-71f6-4dfc-b47e-fb3ff89a390a');
    mkdirSync(folder);
    const file = path.join(folder, 'events.jsonl');
    const save = async () => {
      const reports: SaveReport[] = [];
      await saveTranscriptFile(engine, file, { onReport: (report) => reports.push(report) });
      return reports.map((report) => ({ new: report.new, deleted: report.deleted }));
    };
    // The first run (`copilot -p`) ended with its session.shutdown event; `copilot --continue -p` appended the rest.
    const firstRun = lines.findIndex((line) => line.includes('"type":"session.shutdown"')) + 1;
    writeFileSync(file, `${lines.slice(0, firstRun).join('\n')}\n`);
    expect(await save()).toEqual([{ new: 2, deleted: 0 }]);
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect(await save()).toEqual([{ new: 2, deleted: 0 }]);
    expect(await save()).toEqual([{ new: 0, deleted: 0 }]);
    await engine.close();
  });
});
