import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorOf, fixture, readAll, sessionsOf, tempDir, triples } from './helpers.js';

// Written by Continue's CLI (@continuedev/cli 1.5.47) itself (see test/fixtures/import/continue/PROVENANCE.md).
const SESSIONS = fixture('continue', 'home', 'sessions');
const RESUMED = path.join(SESSIONS, 'c501fd76-d09e-46b3-ba25-cc1421792f13.json');
const WITH_TOOL = path.join(SESSIONS, '7c52f200-cdce-44f4-8902-0a498d2ae826.json');

describe('Continue sessions written by the cn CLI', () => {
  it('reads a resumed session as one, titled by what the person said when it is untitled', async () => {
    const [session] = await sessionsOf(RESUMED);
    expect(session).toMatchObject({ sessionId: 'c501fd76-d09e-46b3-ba25-cc1421792f13', source: 'continue', title: 'Remember this: the night train to Vienna leaves Zürich at 21:40.' });
    expect(session!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Remember this: the night train to Vienna leaves Zürich at 21:40.'],
      ['assistant', 'Noted: the night train to Vienna leaves Zürich at 21:40; you asked for a lower couchette berth.'],
      ['user', 'Can you remind me again which train we booked?'],
      ['assistant', 'We booked the night train to Vienna: couchette, lower berth, leaving at 21:40.'],
    ]);
  });

  it('includes a tool call and the output the CLI keeps in its state only when asked', async () => {
    const [plain] = await sessionsOf(WITH_TOOL);
    expect(plain!.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const [full] = await sessionsOf(WITH_TOOL, { include: ['tools'] });
    expect(full!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Please list the files in this folder and tell me what notes.txt says.'],
      ['tool', '[tool call: Read] {"filepath":"notes.txt"}'],
      ['tool', '[tool result: Read] Content of notes.txt:\nNight train to Vienna: Zürich HB 21:40, platform 14.'],
      ['assistant', 'The folder holds notes.txt; it says the night train to Vienna leaves Zürich HB at 21:40 from platform 14.'],
    ]);
  });

  it("dates a session by its index's dateCreated, the CLI writing no time of its own", async () => {
    const dir = tempDir();
    const file = path.join(dir, path.basename(RESUMED));
    copyFileSync(RESUMED, file);
    const [undated] = await sessionsOf(file);
    expect(undated!.messages.map((m) => m.timestamp)).toEqual([undefined, undefined, undefined, undefined]);
    // As cn 1.5.47 wrote it beside the session: milliseconds since 1970, as text.
    writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify([{ sessionId: 'c501fd76-d09e-46b3-ba25-cc1421792f13', title: 'Untitled Session', dateCreated: '1796686420134', workspaceDirectory: '/home/ana/trips', messageCount: 4 }]));
    const [dated] = await sessionsOf(file);
    expect(dated!.messages.map((m) => m.timestamp)).toEqual(['2026-12-07T23:33:40.134Z', undefined, undefined, undefined]);
    // An index that cannot be read changes nothing.
    writeFileSync(path.join(dir, 'sessions.json'), '[{"sessionId": "c501fd76');
    expect((await sessionsOf(file))[0]!.messages.map((m) => m.timestamp)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('imports the sessions folder without its index', async () => {
    const results = await readAll([SESSIONS]);
    expect(results.map((result) => ('format' in result ? [path.basename(result.file), result.format] : result.error.message))).toEqual([
      ['7c52f200-cdce-44f4-8902-0a498d2ae826.json', 'continue'],
      ['c501fd76-d09e-46b3-ba25-cc1421792f13.json', 'continue'],
    ]);
  });
});

describe('Continue sessions written by the IDE extensions', () => {
  // The extension's layout (message ids, reasoning, tool messages, attached context), with our own text.
  const session = {
    sessionId: '0d9a7c52-3e41-4b8a-9f60-5c2b1e7d4a38',
    title: 'Sleeper trains',
    workspaceDirectory: 'file:///home/ana/trips',
    history: [
      { message: { role: 'system', content: 'You are a helpful assistant.' }, contextItems: [] },
      {
        message: { id: 'u1', role: 'user', content: [{ type: 'text', text: 'Which sleeper goes from Zürich to Vienna?' }, { type: 'imageUrl', imageUrl: { url: 'data:image/png;base64,AAAA' } }] },
        contextItems: [{ name: 'trips.md', description: 'trips.md', content: 'Vienna in March; no flights.', id: { providerTitle: 'file', itemId: 'x' } }],
      },
      {
        message: { id: 'a1', role: 'assistant', content: '', toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'search_web', arguments: '{"query":"Zürich Vienna night train"}' } }] },
        contextItems: [],
        reasoning: { active: false, text: 'Look up the timetable first.', startAt: 1741000000000, endAt: 1741000001000 },
        toolCallStates: [{ toolCallId: 'call_1', status: 'done', output: [{ name: 'Search', description: 'result', content: 'Nightjet NJ 467, 21:40' }] }],
      },
      { message: { id: 't1', role: 'tool', content: 'Nightjet NJ 467 leaves Zürich HB at 21:40.', toolCallId: 'call_1' }, contextItems: [] },
      { message: { id: 'a2', role: 'assistant', content: 'The Nightjet NJ 467, leaving Zürich HB at 21:40.' }, contextItems: [] },
    ],
  };

  it('keeps the ids, the title and the dialogue; reasoning and tools with include; never the attached files or the system prompt', async () => {
    const file = path.join(tempDir(), `${session.sessionId}.json`);
    writeFileSync(file, JSON.stringify(session, null, 2));
    const [plain] = await sessionsOf(file);
    expect(plain!.title).toBe('Sleeper trains');
    expect(triples(plain)).toEqual([
      ['u1', 'user', 'Which sleeper goes from Zürich to Vienna?\n\n[image]'],
      ['a2', 'assistant', 'The Nightjet NJ 467, leaving Zürich HB at 21:40.'],
    ]);
    const [full] = await sessionsOf(file, { include: ['tools', 'thinking'] });
    // The tool message holds the result, so the copy in the call's state is not repeated.
    expect(triples(full)).toEqual([
      ['u1', 'user', 'Which sleeper goes from Zürich to Vienna?\n\n[image]'],
      ['a1', 'assistant', '[thinking] Look up the timetable first.'],
      ['a1#2', 'tool', '[tool call: search_web] {"query":"Zürich Vienna night train"}'],
      ['t1', 'tool', '[tool result: search_web] Nightjet NJ 467 leaves Zürich HB at 21:40.'],
      ['a2', 'assistant', 'The Nightjet NJ 467, leaving Zürich HB at 21:40.'],
    ]);
  });

  it('says an empty session has nothing to import, and still imports the rest of the folder', async () => {
    const dir = tempDir();
    const empty = path.join(dir, '5e0f1a2b-0000-4000-8000-000000000000.json');
    writeFileSync(empty, JSON.stringify({ sessionId: '5e0f1a2b-0000-4000-8000-000000000000', title: 'Untitled Session', workspaceDirectory: '', history: [] }));
    copyFileSync(RESUMED, path.join(dir, path.basename(RESUMED)));
    const error = await errorOf(empty);
    expect(error.code).toBe('empty');
    expect(error.message).toContain(empty);
    const results = await readAll([dir]);
    expect(results.map((result) => ('format' in result ? result.sessionCount : result.error.code))).toEqual(['empty', 1]);
  });
});
