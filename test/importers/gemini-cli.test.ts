import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, readAll, sessionsOf, tempDir, triples } from './helpers.js';

// Written by @google/gemini-cli 0.61.0 itself (see test/fixtures/import/gemini-cli/PROVENANCE.md).
const HOME = fixture('gemini-cli', 'home');
const CHATS = path.join(HOME, 'tmp', 'work', 'chats');
const RESUMED = path.join(CHATS, 'session-2026-12-04T18-20-80635437.jsonl');
const WITH_TOOL = path.join(CHATS, 'session-2026-12-04T18-20-38cde328.jsonl');
const PARENT = path.join(CHATS, 'session-2026-12-04T18-31-0ec05c2f.jsonl');
const SUBAGENT = path.join(CHATS, '0ec05c2f-0ce8-42cf-b62e-a6b5e9935c7e', 'e6d2941f-b4a9-41f8-9ef2-077175452184.jsonl');

describe('Gemini CLI chats (written by gemini-cli 0.61.0)', () => {
  it('reads a resumed chat as one session, without the context Gemini CLI sends first', async () => {
    const [session] = await sessionsOf(RESUMED);
    expect(session).toMatchObject({ sessionId: '80635437-eb46-4542-bb1f-01ef2dcb525d', source: 'gemini-cli', title: 'Remember this for Lisbon: we take tram 28 to the Alfama.' });
    expect(triples(session)).toEqual([
      ['1ebbdda2-e1a8-4dc1-bc71-92b1b29f4c29', 'user', 'Remember this for Lisbon: we take tram 28 to the Alfama.'],
      ['f7ad6d4b-758e-46f6-bf06-0b4b8b61f9e5', 'assistant', 'Noted: tram 28 to the Alfama; board at Martim Moniz before 09:00.'],
      ['91dcf77c-603d-4f65-ae20-6be2fa8ec7df', 'user', 'Can you remind me again which tram we picked?'],
      ['2d77d4bc-af43-4726-b725-06f49d84db37', 'assistant', 'We chose tram 28 to the Alfama, boarding at Martim Moniz before 09:00 to avoid the queue.'],
    ]);
    expect(session!.messages[3]!.timestamp).toBe('2026-12-04T18:20:30.380Z');
    expect(readFileSync(RESUMED, 'utf8')).toContain('<session_context>');
  });

  it('stores a message written twice (its tool calls added later) once, and tools and thoughts only when asked', async () => {
    const [plain] = await sessionsOf(WITH_TOOL);
    expect(triples(plain)).toEqual([
      ['e26c8bfe-b8b1-41a2-9edb-8b2ac1d84106', 'user', 'Please list the files in this folder and tell me what notes.txt says.'],
      ['2ce4f0ae-c3b9-451a-9e5f-c4dc12ef8584', 'assistant', 'The folder holds notes.txt; it says the tram to the Alfama leaves from Praça da Figueira every 12 minutes.'],
    ]);
    const [full] = await sessionsOf(WITH_TOOL, { include: ['tools', 'thinking'] });
    expect(triples(full)).toEqual([
      ['e26c8bfe-b8b1-41a2-9edb-8b2ac1d84106', 'user', 'Please list the files in this folder and tell me what notes.txt says.'],
      ['795743fc-747b-47bc-be0c-35d1f305ed4e', 'assistant', '[thinking] The person wants the folder listed; the directory tool will do.'],
      ['795743fc-747b-47bc-be0c-35d1f305ed4e#2', 'tool', '[tool call: list_directory] {"dir_path":"."}'],
      // The result is in the call too; the user message that sent it back is kept, the copy is not.
      ['590c4019-bdcb-41db-b443-978d1ffb6d31', 'tool', '[tool result: list_directory] Directory listing for /tmp/gm/work:\nnotes.txt (71 bytes)'],
      ['2ce4f0ae-c3b9-451a-9e5f-c4dc12ef8584', 'assistant', 'The folder holds notes.txt; it says the tram to the Alfama leaves from Praça da Figueira every 12 minutes.'],
    ]);
  });

  it('stores a tool result once when a resume writes the list again with Gemini CLI\'s copy of it', async () => {
    // At `--resume`, 0.61 writes the chat's list again (`$set.messages`), and after a reply with tool
    // calls it puts a user message `<reply id>_response` holding the calls' results, beside the user
    // message that sent them back at the time (twice, once the chat was resumed twice).
    const file = path.join(tempDir(), path.basename(WITH_TOOL));
    copyFileSync(WITH_TOOL, file);
    const records = readFileSync(WITH_TOOL, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id?: string; toolCalls?: Array<{ result: unknown }>; $set?: { messages?: unknown[] } });
    const list = new Map<string, object>();
    for (const record of records) {
      for (const message of (record.$set?.messages ?? []) as Array<{ id: string }>) list.set(message.id, message);
      if (record.id) list.set(record.id, record);
    }
    const reply = list.get('795743fc-747b-47bc-be0c-35d1f305ed4e') as { toolCalls: Array<{ result: unknown }> };
    const copy = { id: '795743fc-747b-47bc-be0c-35d1f305ed4e_response', timestamp: '2026-12-04T18:22:10.040Z', type: 'user', content: reply.toolCalls[0]!.result };
    const resumed = [...list.values()].flatMap((message) => ((message as { id: string }).id === '590c4019-bdcb-41db-b443-978d1ffb6d31' ? [copy, copy, message] : [message]));
    appendFileSync(
      file,
      [
        { sessionId: '38cde328-b4b7-4895-8456-54d03cf9517b', projectHash: '68aca3595184568a339b2ce016661b8095646598b311e74d24b21458e274fcd4', startTime: '2026-12-04T18:22:10.040Z', lastUpdated: '2026-12-04T18:22:10.040Z', kind: 'main' },
        { $set: { sessionId: '38cde328-b4b7-4895-8456-54d03cf9517b' } },
        { $set: { messages: resumed } },
        { id: 'c0ffee00-0000-4000-8000-000000000003', timestamp: '2026-12-04T18:22:10.120Z', type: 'user', content: [{ text: 'And on Sundays?' }] },
        { id: 'c0ffee00-0000-4000-8000-000000000004', timestamp: '2026-12-04T18:22:10.380Z', type: 'gemini', content: 'Every 20 minutes on Sundays.' },
      ]
        .map((line) => JSON.stringify(line) + '\n')
        .join(''),
    );
    const [full] = await sessionsOf(file, { include: ['tools'] });
    expect(triples(full)).toEqual([
      ['e26c8bfe-b8b1-41a2-9edb-8b2ac1d84106', 'user', 'Please list the files in this folder and tell me what notes.txt says.'],
      // The thought (part 1) is left out, the call keeps its place in the reply.
      ['795743fc-747b-47bc-be0c-35d1f305ed4e#2', 'tool', '[tool call: list_directory] {"dir_path":"."}'],
      ['590c4019-bdcb-41db-b443-978d1ffb6d31', 'tool', '[tool result: list_directory] Directory listing for /tmp/gm/work:\nnotes.txt (71 bytes)'],
      ['2ce4f0ae-c3b9-451a-9e5f-c4dc12ef8584', 'assistant', 'The folder holds notes.txt; it says the tram to the Alfama leaves from Praça da Figueira every 12 minutes.'],
      ['c0ffee00-0000-4000-8000-000000000003', 'user', 'And on Sundays?'],
      ['c0ffee00-0000-4000-8000-000000000004', 'assistant', 'Every 20 minutes on Sundays.'],
    ]);
  });

  it('keeps the call of a reply that a resume wrote again as a functionCall part alone, under the same id', async () => {
    // A reply that was only a tool call (no text, no thoughts), as gemini-cli 0.61 wrote it, then resumed:
    // the list written again holds the reply as `content: [{functionCall}]`, without `toolCalls`.
    const session = { sessionId: 'c0ffee00-1111-4222-8333-444455556666', projectHash: '0e192a9b6e8c1f111926e28f131b594cd2f24b3fe853837d93e3472b7179f42a' };
    const context = { id: 'd04923d38bb0f6017037e74183378ef4', timestamp: '2026-12-07T23:35:30.040Z', type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }] };
    const prompt = { id: 'def828f5-e785-4904-a3d2-635ec9b97056', timestamp: '2026-12-07T23:35:30.151Z', type: 'user', content: [{ text: 'What does echo print here?' }] };
    const call = { id: 'run_shell_command__call_mock_1', name: 'run_shell_command', args: { command: 'echo tram-28', description: 'Print a word' } };
    const result = [{ functionResponse: { id: call.id, name: call.name, response: { output: '<untrusted_context>\nOutput: tram-28\nProcess Group PGID: 10926\n</untrusted_context>' } } }];
    const reply = { id: '38cb520b-b439-409e-b5a1-f80ef209e018', timestamp: '2026-12-07T23:35:30.382Z', type: 'gemini', content: '', thoughts: [], tokens: { input: 12, output: 9, cached: 0, thoughts: 0, tool: 0, total: 21 }, model: 'gemini-3.8-flash' };
    const sent = { id: '914cbb16-f690-4446-b2b7-de21508082c4', timestamp: '2026-12-07T23:35:30.555Z', type: 'user', content: result };
    const answer = { id: '78591374-6183-4354-bfe3-0011cdd7d55f', timestamp: '2026-12-07T23:35:30.580Z', type: 'gemini', content: 'It prints tram-28.', thoughts: [], tokens: reply.tokens, model: reply.model };
    const firstRun = [
      { ...session, startTime: '2026-12-07T23:35:30.040Z', lastUpdated: '2026-12-07T23:35:30.040Z', kind: 'main' },
      { $set: { messages: [context], lastUpdated: '2026-12-07T23:35:30.040Z' } },
      prompt,
      reply,
      { ...reply, toolCalls: [{ ...call, result, status: 'success', timestamp: '2026-12-07T23:35:30.553Z', resultDisplay: 'tram-28', description: 'echo tram-28', displayName: 'Shell', renderOutputAsMarkdown: false }] },
      sent,
      answer,
    ];
    const rebuilt = { id: reply.id, timestamp: '2026-12-07T23:35:43.299Z', type: 'gemini', content: [{ functionCall: call }] };
    const copy = { id: `${reply.id}_response`, timestamp: '2026-12-07T23:35:43.299Z', type: 'user', content: result };
    const resumed = [
      { ...session, startTime: '2026-12-07T23:35:43.272Z', lastUpdated: '2026-12-07T23:35:43.272Z', kind: 'main' },
      { $set: { sessionId: session.sessionId } },
      { $set: { messages: [context, prompt, rebuilt, copy, sent, { ...answer, content: [{ text: answer.content }] }] } },
      { id: '1cc5b873-2c14-4bc9-8c39-863045799df7', timestamp: '2026-12-07T23:35:43.366Z', type: 'user', content: [{ text: 'Thanks.' }] },
      { id: '8ea49862-4ebf-46de-93f9-17a6885a68f8', timestamp: '2026-12-07T23:35:44.754Z', type: 'gemini', content: 'You are welcome.' },
    ];
    const file = path.join(tempDir(), 'session-2026-12-07T23-35-c0ffee00.jsonl');
    const lines = (records: object[]) => records.map((line) => JSON.stringify(line) + '\n').join('');
    writeFileSync(file, lines(firstRun));
    const [before] = await sessionsOf(file, { include: ['tools'] });
    appendFileSync(file, lines(resumed));
    const [after] = await sessionsOf(file, { include: ['tools'] });
    const firstTurn = [
      ['def828f5-e785-4904-a3d2-635ec9b97056', 'user', 'What does echo print here?'],
      ['38cb520b-b439-409e-b5a1-f80ef209e018', 'tool', '[tool call: run_shell_command] {"command":"echo tram-28","description":"Print a word"}'],
      ['914cbb16-f690-4446-b2b7-de21508082c4', 'tool', '[tool result: run_shell_command] <untrusted_context>\nOutput: tram-28\nProcess Group PGID: 10926\n</untrusted_context>'],
      ['78591374-6183-4354-bfe3-0011cdd7d55f', 'assistant', 'It prints tram-28.'],
    ];
    expect(triples(before)).toEqual(firstTurn);
    expect(triples(after)).toEqual([...firstTurn, ['1cc5b873-2c14-4bc9-8c39-863045799df7', 'user', 'Thanks.'], ['8ea49862-4ebf-46de-93f9-17a6885a68f8', 'assistant', 'You are welcome.']]);
  });

  it("makes a sub-agent's chat its own session naming its parent, with its report as its reply", async () => {
    const [sub] = await sessionsOf(SUBAGENT);
    expect(sub).toMatchObject({ sessionId: 'e6d2941f-b4a9-41f8-9ef2-077175452184', parentSessionId: '0ec05c2f-0ce8-42cf-b62e-a6b5e9935c7e', title: 'Subagent: Find out how often tram 28 runs and what a day pass costs in Lisbon.' });
    expect(triples(sub).map(([, role, content]) => [role, content])).toEqual([
      ['user', 'Find out how often tram 28 runs and what a day pass costs in Lisbon.'],
      ['assistant', 'Tram 28 runs every 12 minutes from Martim Moniz; a 24-hour Carris pass costs 6.80 euros.'],
    ]);
    const [parent] = await sessionsOf(PARENT);
    expect(parent!.sessionId).toBe('0ec05c2f-0ce8-42cf-b62e-a6b5e9935c7e');
    expect(parent!.parentSessionId).toBeUndefined();
  });

  it('drops the rewound message and all after it, and a later line replaces a message in place', async () => {
    const file = path.join(tempDir(), path.basename(RESUMED));
    copyFileSync(RESUMED, file);
    appendFileSync(
      file,
      [
        { $rewindTo: '91dcf77c-603d-4f65-ae20-6be2fa8ec7df' },
        { id: 'c0ffee00-0000-4000-8000-000000000001', timestamp: '2026-12-04T18:25:00.000Z', type: 'user', content: [{ text: 'Actually, which tram goes to Belém?' }] },
        { id: 'f7ad6d4b-758e-46f6-bf06-0b4b8b61f9e5', timestamp: '2026-12-04T18:20:10.646Z', type: 'gemini', content: 'Noted: tram 28 to the Alfama.' },
        { id: 'c0ffee00-0000-4000-8000-000000000002', timestamp: '2026-12-04T18:25:01.000Z', type: 'gemini', content: 'Tram 15 goes to Belém.' },
        { $set: { lastUpdated: '2026-12-04T18:25:01.000Z', summary: 'Lisbon trams' } },
      ]
        .map((line) => JSON.stringify(line) + '\n')
        .join(''),
    );
    const [session] = await sessionsOf(file);
    expect(session!.title).toBe('Lisbon trams');
    expect(triples(session)).toEqual([
      ['1ebbdda2-e1a8-4dc1-bc71-92b1b29f4c29', 'user', 'Remember this for Lisbon: we take tram 28 to the Alfama.'],
      ['f7ad6d4b-758e-46f6-bf06-0b4b8b61f9e5', 'assistant', 'Noted: tram 28 to the Alfama.'],
      ['c0ffee00-0000-4000-8000-000000000001', 'user', 'Actually, which tram goes to Belém?'],
      ['c0ffee00-0000-4000-8000-000000000002', 'assistant', 'Tram 15 goes to Belém.'],
    ]);
  });

  it('imports a whole ~/.gemini folder: only chats, not the project list', async () => {
    const results = await readAll([HOME]);
    expect(results.map((result) => ('format' in result ? [path.relative(HOME, result.file), result.format] : result.error.message))).toEqual([
      [path.join('tmp', 'work', 'chats', '0ec05c2f-0ce8-42cf-b62e-a6b5e9935c7e', 'e6d2941f-b4a9-41f8-9ef2-077175452184.jsonl'), 'gemini-cli'],
      [path.join('tmp', 'work', 'chats', 'session-2026-12-04T18-20-38cde328.jsonl'), 'gemini-cli'],
      [path.join('tmp', 'work', 'chats', 'session-2026-12-04T18-20-80635437.jsonl'), 'gemini-cli'],
      [path.join('tmp', 'work', 'chats', 'session-2026-12-04T18-31-0ec05c2f.jsonl'), 'gemini-cli'],
    ]);
  });
});

describe('older Gemini CLI chats: one JSON document', () => {
  // Written by @google/gemini-cli 0.10.0 itself, under a project folder named by its hash.
  const OLD = fixture('gemini-cli', 'gemini-cli-0.10.0', 'tmp', '68aca3595184568a339b2ce016661b8095646598b311e74d24b21458e274fcd4', 'chats');

  it('reads the chats gemini-cli 0.10.0 wrote, with tool results kept in the call', async () => {
    const [plain] = await sessionsOf(path.join(OLD, 'session-2026-12-04T18-55-219032ba.json'));
    expect(plain).toMatchObject({ sessionId: '219032ba-d212-4aea-a19b-776558323d1f', source: 'gemini-cli', title: 'Remember this for Lisbon: we take tram 28 to the Alfama.' });
    expect(triples(plain)).toEqual([
      ['e5a0d151-33cb-47b8-8eae-7a5b1b45e6fd', 'user', 'Remember this for Lisbon: we take tram 28 to the Alfama.'],
      ['ba6be4aa-b491-4b53-b24f-109725770028', 'assistant', 'Noted: tram 28 to the Alfama; board at Martim Moniz before 09:00.'],
    ]);
    const [tool] = await sessionsOf(path.join(OLD, 'session-2026-12-04T18-58-76dcdcff.json'), { include: ['tools'] });
    expect(triples(tool)).toEqual([
      ['70aa9bf2-2b36-4fd4-ae25-1df38cd4b2d7', 'user', 'Please list the files in this folder and tell me what notes.txt says.'],
      ['a85d653e-c731-4bb5-8f61-f3d7e35283bf', 'tool', '[tool call: list_directory] {"path":"/tmp/gm/work"}'],
      ['a85d653e-c731-4bb5-8f61-f3d7e35283bf#2', 'tool', '[tool result: list_directory] Directory listing for /tmp/gm/work:\nnotes.txt'],
      ['9c76edb5-af60-4fea-951a-7caae97c58c5', 'assistant', 'The folder holds notes.txt; it says the tram to the Alfama leaves from Praça da Figueira every 12 minutes.'],
    ]);
  });

  // The same layout with thoughts, an interface notice and a one-line copy (our own text).
  const chat = {
    sessionId: '3f1c9a2e-6b7d-4e8f-9a0b-1c2d3e4f5a6b',
    projectHash: '9c1e7a4b2d3f5e6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a',
    startTime: '2025-09-02T07:10:00.000Z',
    lastUpdated: '2025-09-02T07:12:00.000Z',
    messages: [
      { id: 'a1', timestamp: '2025-09-02T07:10:00.000Z', type: 'user', content: 'How long is the walk from Rossio to the castle?' },
      { id: 'a2', timestamp: '2025-09-02T07:10:05.000Z', type: 'gemini', content: 'About 20 minutes, uphill.', thoughts: [{ subject: 'Distance', description: 'Rossio to São Jorge is about 1 km.', timestamp: '2025-09-02T07:10:03.000Z' }], toolCalls: [{ id: 'c1', name: 'google_web_search', args: { query: 'Rossio to São Jorge castle walk' }, result: [{ functionResponse: { id: 'c1', name: 'google_web_search', response: { output: '1.1 km, 20 min' } } }], status: 'success' }] },
      { id: 'a3', timestamp: '2025-09-02T07:11:00.000Z', type: 'info', content: 'Request cancelled.' },
    ],
  };

  it('reads it, pretty-printed or on one line, with tool results kept beside their calls', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'session-2025-09-02T07-10-3f1c9a2e.json'), JSON.stringify(chat, null, 2));
    writeFileSync(path.join(dir, 'session-2025-09-02T07-10-3f1c9a2f.json'), JSON.stringify(chat));
    const [pretty, compact] = await readAll([dir], { include: ['tools', 'thinking'] });
    expect(pretty && 'format' in pretty ? pretty.format : pretty).toBe('gemini-cli');
    expect(compact && 'sessions' in compact && pretty && 'sessions' in pretty ? compact.sessions : undefined).toEqual(pretty && 'sessions' in pretty ? pretty.sessions : []);
    const session = pretty && 'sessions' in pretty ? pretty.sessions[0] : undefined;
    expect(triples(session)).toEqual([
      ['a1', 'user', 'How long is the walk from Rossio to the castle?'],
      ['a2#0', 'assistant', '[thinking] Distance\nRossio to São Jorge is about 1 km.'],
      ['a2', 'assistant', 'About 20 minutes, uphill.'],
      ['a2#2', 'tool', '[tool call: google_web_search] {"query":"Rossio to São Jorge castle walk"}'],
      ['a2#3', 'tool', '[tool result: google_web_search] 1.1 km, 20 min'],
    ]);
  });
});
