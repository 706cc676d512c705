import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
// An interactive session: two prompts, `/rewind` to the second, another second prompt, `/rename Heron field notes`.
const INTERACTIVE_ID = '3bf90121-7e33-4ec8-9a14-8b94327220c6';
const INTERACTIVE = path.join(fixture('copilot-cli', 'interactive'), 'session-state', INTERACTIVE_ID);
// Its events.jsonl as it was just before `/rewind`.
const BEFORE_REWIND = path.join(fixture('copilot-cli', 'before-rewind'), INTERACTIVE_ID, 'events.jsonl');
const TURN_1 = [
  ['d789fe6d-61fe-46da-aefe-bfa5debef6e7', 'user', 'Question 1 (turn-heron1): what do herons eat in winter?'],
  ['111379d9-261b-4084-adf0-799e116f40b8', 'assistant', 'Noted turn-heron1: the mock model answers in one line.'],
];

/** A copy of the interactive session's folder: its events.jsonl as given, and its workspace.yaml as given (or Copilot's, or none). */
function sessionFolder(events: string, workspace: string | null | 'as written' = 'as written'): string {
  const folder = path.join(tempDir(), INTERACTIVE_ID);
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'events.jsonl'), events);
  if (workspace === 'as written') copyFileSync(path.join(INTERACTIVE, 'workspace.yaml'), path.join(folder, 'workspace.yaml'));
  else if (workspace !== null) writeFileSync(path.join(folder, 'workspace.yaml'), workspace);
  return path.join(folder, 'events.jsonl');
}

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

  it('takes the name /rename gave (workspace.yaml) as the title, and leaves out the turn /rewind dropped', async () => {
    const [session] = await sessionsOf(path.join(INTERACTIVE, 'events.jsonl'));
    expect(session).toMatchObject({ sessionId: INTERACTIVE_ID, source: 'copilot-cli', title: 'Heron field notes' });
    expect(triples(session)).toEqual([
      ...TURN_1,
      ['37fcaa0e-3b33-42d0-947e-0c855e9546c1', 'user', 'Question 2 (turn-heron3): where do herons nest?'],
      ['73613d97-9e14-4f96-a982-c7926a2de7f5', 'assistant', 'Noted turn-heron3: the mock model answers in one line.'],
    ]);
    // Copilot keeps the name in workspace.yaml only: nothing in events.jsonl names it.
    expect(readFileSync(path.join(INTERACTIVE, 'workspace.yaml'), 'utf8')).toMatch(/^name: Heron field notes\nuser_named: true$/m);
    expect(readFileSync(path.join(INTERACTIVE, 'events.jsonl'), 'utf8')).not.toContain('Heron field notes');
  });

  it('removes the turns /rewind dropped from memory at the next save, and renames the stored session', async () => {
    const engine = await bed.open(bed.dataDir());
    const reports: SaveReport[] = [];
    const file = sessionFolder(readFileSync(BEFORE_REWIND, 'utf8'), null);
    const save = () => saveTranscriptFile(engine, file, { onReport: (report) => reports.push(report) });
    // As the file was before `/rewind`: two turns, no name given yet.
    await save();
    expect((await engine.listSessions()).map((s) => s.title)).toEqual(['Question 1 (turn-heron1): what do herons eat in winter?']);
    // Copilot cut the second turn out of the file, then the person typed another one and renamed the session.
    writeFileSync(file, readFileSync(path.join(INTERACTIVE, 'events.jsonl')));
    copyFileSync(path.join(INTERACTIVE, 'workspace.yaml'), path.join(path.dirname(file), 'workspace.yaml'));
    await save();
    expect(reports.map((report) => ({ new: report.new, deleted: report.deleted }))).toEqual([{ new: 4, deleted: 0 }, { new: 2, deleted: 2 }]);
    expect((await engine.listSessions()).map((s) => s.title)).toEqual(['Heron field notes']);
    const stored = await engine.showSession(INTERACTIVE_ID);
    expect(stored.messages.map((m) => m.content)).toEqual([TURN_1[0]![2], TURN_1[1]![2], 'Question 2 (turn-heron3): where do herons nest?', 'Noted turn-heron3: the mock model answers in one line.']);
    await engine.close();
  });

  it('deletes nothing a file lacks when Copilot wrote no rewind in it', async () => {
    const engine = await bed.open(bed.dataDir());
    const reports: SaveReport[] = [];
    const file = sessionFolder(readFileSync(BEFORE_REWIND, 'utf8'));
    const save = () => saveTranscriptFile(engine, file, { onReport: (report) => reports.push(report) });
    await save();
    // The same cut without Copilot's `session.info` rewind event: a file cut short by other hands.
    const lines = readFileSync(path.join(INTERACTIVE, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(lines.filter((line) => line.includes('"infoType":"rewind"'))).toHaveLength(1);
    writeFileSync(file, `${lines.filter((line) => !line.includes('"infoType":"rewind"')).join('\n')}\n`);
    await save();
    expect(reports.map((report) => ({ new: report.new, deleted: report.deleted }))).toEqual([{ new: 4, deleted: 0 }, { new: 2, deleted: 0 }]);
    await engine.close();
  });

  it('keeps the first words as the title when workspace.yaml is missing, broken or names no session the person named', async () => {
    const events = readFileSync(path.join(INTERACTIVE, 'events.jsonl'), 'utf8');
    const written = readFileSync(path.join(INTERACTIVE, 'workspace.yaml'), 'utf8');
    const cases: Array<[string, string | null]> = [
      ['missing', null],
      // Cut mid-write: an unterminated quoted name.
      ['broken', written.replace('name: Heron field notes', "name: 'Heron field")],
      ['not a mapping', '- Heron field notes\n'],
      // Copilot's own placeholder name, not one the person gave.
      ['not named by the person', written.replace('user_named: true', 'user_named: false')],
      ['an empty name', written.replace('name: Heron field notes', "name: ''")],
    ];
    for (const [label, workspace] of cases) {
      const [session] = await sessionsOf(sessionFolder(events, workspace));
      expect({ label, title: session!.title, messages: session!.messages.length }).toEqual({ label, title: 'Question 1 (turn-heron1): what do herons eat in winter?', messages: 4 });
    }
    // A name quoted as YAML quotes it is read as YAML reads it.
    const [quoted] = await sessionsOf(sessionFolder(events, written.replace('name: Heron field notes', `name: "Herons: \\"field\\" notes"`)));
    expect(quoted!.title).toBe('Herons: "field" notes');
  });
});
