import { appendFileSync, copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, sessionsOf, tempDir, triples } from './helpers.js';

const SESSION = '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d';
const TRANSCRIPT = fixture('claude-code', `${SESSION}.jsonl`);

describe('Claude Code transcript', () => {
  it('keeps the user and assistant lines of the current branch, across /compact', async () => {
    const [session] = await sessionsOf(TRANSCRIPT);
    expect(session!.sessionId).toBe(SESSION);
    expect(session!.title).toBe('Fix the failing date test');
    expect(session!.source).toBe('claude-code');
    expect(session!.messages).toEqual([
      { msgId: 'cc-0001', role: 'user', content: 'The date test fails, can you fix it?', timestamp: '2025-06-01T08:00:01.000Z' },
      // cc-0002 is a meta line, cc-0003 only thinking, cc-0005/6 a tool call and its result.
      { msgId: 'cc-0004', role: 'assistant', content: 'Let me look at the test.', timestamp: '2025-06-01T08:00:04.000Z' },
      // cc-0007 belongs to a sub-agent.
      { msgId: 'cc-0008', role: 'assistant', content: 'The test expects UTC; I fixed the formatter.', timestamp: '2025-06-01T08:00:20.000Z' },
      // cc-0009/10 were rewound: the person replaced cc-0009 by cc-0011.
      { msgId: 'cc-0011', role: 'user', content: 'Thanks! Please also run the linter.', timestamp: '2025-06-01T08:02:00.000Z' },
      // cc-0012 is the compact boundary, cc-0013 the compaction summary.
      { msgId: 'cc-0014', role: 'user', content: 'Great, commit it.', timestamp: '2025-06-01T09:01:00.000Z' },
      { msgId: 'cc-0015', role: 'assistant', content: 'Committed as abc123.', timestamp: '2025-06-01T09:01:05.000Z' },
    ]);
  });

  it('includes thinking, tool calls and tool results when asked', async () => {
    const [session] = await sessionsOf(TRANSCRIPT, { include: ['tools', 'thinking'] });
    expect(triples(session).slice(0, 6)).toEqual([
      ['cc-0001', 'user', 'The date test fails, can you fix it?'],
      ['cc-0003', 'assistant', '[thinking] Look at the test first.'],
      ['cc-0004', 'assistant', 'Let me look at the test.'],
      ['cc-0005', 'tool', '[tool call: Read] {"file_path":"/repo/date.test.ts"}'],
      ['cc-0006', 'tool', "[tool result: Read] expect(format(d)).toBe('2024-01-01')"],
      ['cc-0008', 'assistant', 'The test expects UTC; I fixed the formatter.'],
    ]);
  });

  it('titles a session by the name Claude Code keeps for it, else by the first thing the person said (a -p run writes no title)', async () => {
    const printed = fixture('claude-code-titles', '5d2f8a41-7c3e-4b9a-8e1d-2f6a9c0b3e71.jsonl');
    const [session] = await sessionsOf(printed);
    expect(session!.title).toBe('How do herons fish?');
    expect(triples(session)).toEqual([
      ['u-0001', 'user', 'How do herons fish?'],
      ['a-0001', 'assistant', 'They stand still in shallow water and strike.'],
    ]);
    // The title Claude Code generates, then the name the person gives with /rename (the later of each kind).
    const file = path.join(tempDir(), '5d2f8a41-7c3e-4b9a-8e1d-2f6a9c0b3e71.jsonl');
    copyFileSync(printed, file);
    const sessionId = session!.sessionId;
    appendFileSync(file, `${JSON.stringify({ type: 'ai-title', aiTitle: 'Heron fishing technique', sessionId })}\n`);
    expect((await sessionsOf(file))[0]!.title).toBe('Heron fishing technique');
    appendFileSync(file, `${JSON.stringify({ type: 'custom-title', customTitle: 'birds: herons', sessionId })}\n${JSON.stringify({ type: 'ai-title', aiTitle: 'Herons and fish', sessionId })}\n`);
    expect((await sessionsOf(file))[0]!.title).toBe('birds: herons');
  });

  it('keeps the dialogue of an interactive session that ends with /exit: the client\'s commands and what they printed are not the person\'s words', async () => {
    const [session] = await sessionsOf(fixture('claude-code-titles', '8a1e4c27-3b5d-4f60-9c2a-7d8e1f0b6a93.jsonl'));
    expect(triples(session)).toEqual([
      ['u-0001', 'user', 'Where do herons nest?'],
      ['a-0001', 'assistant', 'In colonies, high in trees near water.'],
    ]);
    expect(session!.messages.map((m) => m.content).join('\n')).not.toMatch(/command-name|local-command|Catch you later/);
  });

  it('keeps earlier ids when the session continues', async () => {
    const file = path.join(tempDir(), `${SESSION}.jsonl`);
    copyFileSync(TRANSCRIPT, file);
    appendFileSync(
      file,
      [
        { parentUuid: 'cc-0015', isSidechain: false, sessionId: SESSION, type: 'user', message: { role: 'user', content: 'Push it too.' }, uuid: 'cc-0016', timestamp: '2025-06-01T09:05:00.000Z' },
        { parentUuid: 'cc-0016', isSidechain: false, sessionId: SESSION, type: 'assistant', message: { id: 'msg_05', role: 'assistant', content: [{ type: 'text', text: 'Pushed.' }] }, uuid: 'cc-0017', timestamp: '2025-06-01T09:05:09.000Z' },
      ]
        .map((line) => JSON.stringify(line) + '\n')
        .join(''),
    );
    const [before] = await sessionsOf(TRANSCRIPT);
    const [after] = await sessionsOf(file);
    expect(after!.messages.slice(0, before!.messages.length)).toEqual(before!.messages);
    expect(triples(after).slice(before!.messages.length)).toEqual([
      ['cc-0016', 'user', 'Push it too.'],
      ['cc-0017', 'assistant', 'Pushed.'],
    ]);
  });

  it("reads a slash command as what it is (the client's own a tool call with its output, another the person's words), a ! shell command as a tool call, and the editor's context and the note of an interruption left out", async () => {
    const line = (uuid: string, parentUuid: string | null, time: string, message: object, extra: object = {}) =>
      JSON.stringify({ type: 'user', uuid, parentUuid, sessionId: 'c0ffee', timestamp: `2026-06-13T02:${time}Z`, message: { role: 'user', ...message }, ...extra });
    const file = path.join(tempDir(), 'c0ffee.jsonl');
    writeFileSync(file, [
      line('m1', null, '00:00', { content: '<local-command-caveat>Caveat: the messages below were generated by the user while running local commands.</local-command-caveat>' }, { isMeta: true }),
      line('c1', 'm1', '00:00', { content: '<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>opus</command-args>' }),
      line('o1', 'c1', '00:01', { content: '<local-command-stdout>Set model to opus</local-command-stdout>' }),
      // Sent from the editor: its open file and selection are separate blocks beside the words.
      line('u2', 'o1', '01:00', { content: [
        { type: 'text', text: '<ide_opened_file>The user opened the file /w/src/parser.ts in the IDE. This may or may not be related to the current task.</ide_opened_file>' },
        { type: 'text', text: '<ide_selection>The user selected the lines 3 to 4 from /w/src/parser.ts:\nconst x = 1;\n\nThis may or may not be related to the current task.</ide_selection>' },
        { type: 'text', text: 'Now the parser, please.\n<system-reminder>\nThe task list is empty.\n</system-reminder>' },
      ] }),
      JSON.stringify({ type: 'assistant', uuid: 'a2', parentUuid: 'u2', sessionId: 'c0ffee', timestamp: '2026-06-13T02:01:05Z', message: { role: 'assistant', content: [{ type: 'text', text: 'On it.' }] } }),
      // The person pressed Esc: the client notes it in their name.
      line('i2', 'a2', '01:30', { content: [{ type: 'text', text: '[Request interrupted by user]' }] }),
      // The caveat, here without its tags and not marked isMeta.
      line('m3', 'i2', '01:59', { content: [{ type: 'text', text: 'Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.' }] }),
      line('c3', 'm3', '02:00', { content: [{ type: 'text', text: '<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>the parser</command-args>' }] }),
      // A shell command run with `!`, and what it printed.
      line('b4', 'c3', '03:00', { content: '<bash-input>git status --short</bash-input>' }),
      line('b5', 'b4', '03:01', { content: '<bash-stdout> M src/parser.ts</bash-stdout><bash-stderr></bash-stderr>' }),
      '',
    ].join('\n'));
    const [plain] = await sessionsOf(file);
    expect(plain!.messages.map((message) => [message.msgId, message.role, message.content])).toEqual([
      ['u2', 'user', 'Now the parser, please.'],
      ['a2', 'assistant', 'On it.'],
      ['c3', 'user', '/review the parser'],
    ]);
    const [full] = await sessionsOf(file, { include: ['tools'] });
    expect(full!.messages.filter((message) => message.role === 'tool').map((message) => [message.msgId, message.content])).toEqual([
      ['c1', '[tool call: /model] opus'],
      ['o1', '[tool result: /model] Set model to opus'],
      ['b4', '[tool call: bash] git status --short'],
      ['b5', '[tool result: bash] M src/parser.ts'],
    ]);
  });

  it("reads Claude Code 2.1's answer to a slash command it does not know as that command and its answer, not the person's words", async () => {
    const entry = (uuid: string, parentUuid: string | null, time: string, content: string, extra: object = {}) =>
      JSON.stringify({ parentUuid, isSidechain: false, type: 'user', message: { role: 'user', content }, uuid, timestamp: `2026-06-13T05:${time}Z`, userType: 'external', cwd: '/w', sessionId: 'b0a7', version: '2.1.76', ...extra });
    const file = path.join(tempDir(), 'b0a7.jsonl');
    writeFileSync(file, [
      JSON.stringify({ type: 'queue-operation', operation: 'enqueue', timestamp: '2026-06-13T05:02:40.101Z', sessionId: 'b0a7', content: '/garden-plan' }),
      entry('m1', null, '02:41.838', '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.</local-command-caveat>', { isMeta: true }),
      entry('u1', 'm1', '02:41.838', 'Unknown skill: garden-plan'),
      JSON.stringify({ type: 'last-prompt', lastPrompt: 'Unknown skill: garden-plan', sessionId: 'b0a7' }),
      entry('u2', 'u1', '03:10.000', 'Plan the beds for spring, then.'),
      JSON.stringify({ parentUuid: 'u2', isSidechain: false, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Beans by the wall, peas in the shade.' }] }, uuid: 'a2', timestamp: '2026-06-13T05:03:15.000Z', sessionId: 'b0a7', version: '2.1.76' }),
      '',
    ].join('\n'));
    const [plain] = await sessionsOf(file);
    expect(plain!.title).toBe('Plan the beds for spring, then.');
    expect(plain!.messages.map((message) => [message.msgId, message.role, message.content])).toEqual([
      ['u2', 'user', 'Plan the beds for spring, then.'],
      ['a2', 'assistant', 'Beans by the wall, peas in the shade.'],
    ]);
    const [full] = await sessionsOf(file, { include: ['tools'] });
    expect(full!.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual(['[tool call: /garden-plan]', '[tool result: /garden-plan] (error) Unknown skill: garden-plan']);
  });

  it('keeps every line, in file order, when no line names its parent', async () => {
    // Hand-written logs (a log viewer's fixtures among them) leave every parentUuid null: the chain
    // then explains nothing, and the file's order is the conversation's.
    const file = path.join(tempDir(), 'no-parents.jsonl');
    const lines = [
      { type: 'user', text: 'How do I list hidden files?' },
      { type: 'assistant', text: 'Use ls -a.' },
      { type: 'user', text: 'And sorted by size?' },
      { type: 'assistant', text: 'ls -aS sorts them by size.' },
    ].map(({ type, text }, i) => ({
      parentUuid: null,
      isSidechain: false,
      sessionId: 'viewer-fixture',
      type,
      message: { role: type, content: type === 'user' ? text : [{ type: 'text', text }] },
      uuid: `line-${i + 1}`,
      timestamp: `2025-07-01T10:00:0${i}.000Z`,
    }));
    writeFileSync(file, lines.map((line) => JSON.stringify(line) + '\n').join(''));
    const [session] = await sessionsOf(file);
    expect(triples(session)).toEqual([
      ['line-1', 'user', 'How do I list hidden files?'],
      ['line-2', 'assistant', 'Use ls -a.'],
      ['line-3', 'user', 'And sorted by size?'],
      ['line-4', 'assistant', 'ls -aS sorts them by size.'],
    ]);
  });

  it('keeps every line, in file order, when the chain links only one of them', async () => {
    // A log another tool wrote: the first two lines are linked, the rest carry no parentUuid (and no
    // uuid either). Following the chain from the last line found nothing: "no messages to import".
    const turns = [
      'Which ferry goes to Naxos?',
      'The Blue Star ferry from Piraeus.',
      'How long does it take?',
      'About five and a half hours.',
      'Can I bring a bicycle?',
      'Yes, for a small fee.',
      'Where do I buy tickets?',
      'At the port or online.',
      'Is there a morning departure?',
      'Yes, at 07:30.',
    ];
    const lines = turns.map((text, i) => {
      const type = i % 2 === 0 ? 'user' : 'assistant';
      return {
        ...(i < 2 ? { uuid: `line-${i + 1}`, parentUuid: i === 0 ? null : 'line-1' } : {}),
        sessionId: 'converted-log',
        type,
        message: { role: type, content: type === 'user' ? text : [{ type: 'text', text }] },
        timestamp: `2025-07-01T10:00:0${i}.000Z`,
      };
    });
    const file = path.join(tempDir(), 'converted.jsonl');
    writeFileSync(file, lines.map((line) => JSON.stringify(line) + '\n').join(''));
    const [session] = await sessionsOf(file);
    expect(session!.messages.map((m) => m.content)).toEqual(turns);
    expect(session!.messages.slice(0, 2).map((m) => m.msgId)).toEqual(['line-1', 'line-2']);

    // Every line with a uuid, one of them linked: still the whole file, not the last line alone.
    const withIds = lines.map((line, i) => ({ uuid: `line-${i + 1}`, parentUuid: i === 1 ? 'line-1' : null, ...line }));
    writeFileSync(file, withIds.map((line) => JSON.stringify(line) + '\n').join(''));
    const [again] = await sessionsOf(file);
    expect(triples(again).map(([id, , content]) => `${id} ${content}`)).toEqual(turns.map((text, i) => `line-${i + 1} ${text}`));
  });

  it("reads a subagent's file as its own session that names the main session", async () => {
    const [session] = await sessionsOf(fixture('claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d', 'subagents', 'agent-a7f3e9c1.jsonl'));
    expect(session).toMatchObject({
      sessionId: '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d:agent-a7f3e9c1',
      parentSessionId: '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d',
      title: 'Subagent: Find every test that parses dates with a fixed time zone and list their files.',
      source: 'claude-code',
    });
    expect(session!.messages.map((m) => [m.msgId, m.role])).toEqual([
      ['sa-0001', 'user'],
      ['sa-0004', 'assistant'],
    ]);
    const [withTools] = await sessionsOf(fixture('claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d', 'subagents', 'agent-a7f3e9c1.jsonl'), { include: ['tools'] });
    expect(withTools!.messages).toHaveLength(4);
    // The main session's file leaves the side chain out, as before.
    const [main] = await sessionsOf(fixture('claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl'));
    expect(main!.parentSessionId).toBeUndefined();
    expect(main!.messages.some((m) => m.msgId?.startsWith('sa-'))).toBe(false);
  });
});
