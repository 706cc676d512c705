import { appendFileSync, copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, readAll, sessionsOf, tempDir, triples } from './helpers.js';

// Written by codex-cli 0.171.0 itself (see test/fixtures/import/codex/PROVENANCE.md).
const HOME = fixture('codex', 'home');
const DAY = path.join(HOME, 'sessions', '2026', '12', '04');
const RESUMED = path.join(DAY, 'rollout-2026-12-04T18-18-42-01a24247-a9c5-7553-a194-a2bb5ab03838.jsonl');
const WITH_TOOL = path.join(DAY, 'rollout-2026-12-04T18-18-48-01a24247-c1ad-7f61-a9f2-d5acbdd9122a.jsonl');
const PARENT = path.join(DAY, 'rollout-2026-12-04T18-19-31-01a24248-6903-7571-8e8d-1bf6c2a7181f.jsonl');
const SUBAGENT = path.join(DAY, 'rollout-2026-12-04T18-19-32-01a24248-6b59-73c0-90ab-a4be87ba89c2.jsonl');

describe('Codex CLI rollouts (written by codex-cli 0.171.0)', () => {
  it('keeps only the person and the model: no injected context, each user turn once, a resumed session as one', async () => {
    const [session] = await sessionsOf(RESUMED);
    expect(session!.sessionId).toBe('01a24247-a9c5-7553-a194-a2bb5ab03838');
    expect(session!.source).toBe('codex');
    expect(session!.parentSessionId).toBeUndefined();
    expect(session!.messages).toEqual([
      { msgId: 'msg_01a24247-aa60-74f0-87f1-777bddfc753d', role: 'user', content: 'Remember this for our trip: the ferry to Naxos leaves Piraeus at 07:30.', timestamp: '2026-12-04T18:18:42.656Z' },
      { msgId: 'msg_17964083226871', role: 'assistant', content: 'Noted: the ferry to Naxos leaves Piraeus at 07:30; arrive by 07:00 to board with a bicycle.', timestamp: '2026-12-04T18:18:42.691Z' },
      // Appended by `codex exec resume --last`.
      { msgId: 'msg_01a24247-b69d-76f1-bca5-462dce9c2914', role: 'user', content: 'Can you remind me again which ferry we picked?', timestamp: '2026-12-04T18:18:45.789Z' },
      { msgId: 'msg_17964083258212', role: 'assistant', content: 'Yes: we settled on the 07:30 ferry to Naxos, and you wanted a window seat on the upper deck.', timestamp: '2026-12-04T18:18:45.824Z' },
    ]);
    const text = readFileSync(RESUMED, 'utf8');
    // The file does hold the context Codex injected and a second copy of each user turn.
    expect(text).toContain('<environment_context>');
    expect(text.split('Can you remind me again which ferry we picked?').length - 1).toBeGreaterThan(1);
  });

  it('keeps the ids of the first part when the session is resumed', async () => {
    const lines = readFileSync(RESUMED, 'utf8').split('\n');
    const beforeResume = path.join(tempDir(), path.basename(RESUMED));
    // Line 15 on is what `codex exec resume` appended.
    writeFileSync(beforeResume, lines.slice(0, 14).join('\n') + '\n');
    const [before] = await sessionsOf(beforeResume);
    const [after] = await sessionsOf(RESUMED);
    expect(before!.sessionId).toBe(after!.sessionId);
    expect(before!.messages).toEqual(after!.messages.slice(0, 2));
  });

  it('titles a thread with the name given to it in session_index.jsonl, read from the Codex home', async () => {
    const results = await readAll([HOME]);
    const titles = Object.fromEntries(results.flatMap((result) => ('sessions' in result ? result.sessions.map((s) => [s.sessionId, s.title]) : [])));
    expect(titles).toEqual({
      '01a24247-a9c5-7553-a194-a2bb5ab03838': 'Ferry to Naxos',
      '01a24247-c1ad-7f61-a9f2-d5acbdd9122a': 'Please list the files in this folder and tell me what notes.txt says.',
      '01a24248-6903-7571-8e8d-1bf6c2a7181f': 'Ask a helper to check whether we can bring bicycles on the ferry.',
      '01a24248-6b59-73c0-90ab-a4be87ba89c2': 'Subagent: Find out whether the ferry takes bicycles and what it costs.',
      '01a24266-a1e5-7ed0-9ba7-ee0750560bcf': 'Which ferry do we take to Naxos?',
    });
    // The index is not a transcript: importing the whole home reports only rollouts.
    expect(results.every((result) => 'sessions' in result && result.format === 'codex')).toBe(true);
    expect(results).toHaveLength(5);

    // The latest name wins; away from the index, the first thing said is the title.
    const home = tempDir();
    const day = path.join(home, 'sessions', '2026', '12', '04');
    mkdirSync(day, { recursive: true });
    copyFileSync(RESUMED, path.join(day, path.basename(RESUMED)));
    const [alone] = await sessionsOf(path.join(day, path.basename(RESUMED)));
    expect(alone!.title).toBe('Remember this for our trip: the ferry to Naxos leaves Piraeus at 07:30.');
    copyFileSync(path.join(HOME, 'session_index.jsonl'), path.join(home, 'session_index.jsonl'));
    appendFileSync(path.join(home, 'session_index.jsonl'), JSON.stringify({ id: '01a24247-a9c5-7553-a194-a2bb5ab03838', thread_name: 'Greek islands', updated_at: '2026-12-05T09:00:00Z' }) + '\n');
    const [renamed] = await sessionsOf(path.join(day, path.basename(RESUMED)));
    expect(renamed!.title).toBe('Greek islands');
  });

  it("makes a sub-agent's thread its own session naming its parent", async () => {
    const [sub] = await sessionsOf(SUBAGENT);
    expect(sub).toMatchObject({ sessionId: '01a24248-6b59-73c0-90ab-a4be87ba89c2', parentSessionId: '01a24248-6903-7571-8e8d-1bf6c2a7181f', title: 'Subagent: Find out whether the ferry takes bicycles and what it costs.' });
    expect(triples(sub)).toEqual([
      ['msg_01a24248-6be0-76b0-8429-2a5efd472b62', 'user', 'Find out whether the ferry takes bicycles and what it costs.'],
      ['msg_17964083722853', 'assistant', 'Bicycles are allowed on the 07:30 ferry for 5 euros, paid at the port office.'],
    ]);
    // The parent keeps its own turn; the notice Codex injects when the sub-agent finishes is not the person's.
    const [parent] = await sessionsOf(PARENT);
    expect(triples(parent).map(([, role, content]) => [role, content])).toEqual([
      ['user', 'Ask a helper to check whether we can bring bicycles on the ferry.'],
      ['assistant', 'The helper checked: the 07:30 ferry takes bicycles for 5 euros, paid at the port office.'],
    ]);
  });

  it('includes reasoning, tool calls and their output only when asked, under the same ids', async () => {
    const [plain] = await sessionsOf(WITH_TOOL);
    expect(plain!.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const [full] = await sessionsOf(WITH_TOOL, { include: ['tools', 'thinking'] });
    const rows = triples(full);
    expect(rows.map(([id, role]) => [id, role])).toEqual([
      ['msg_01a24247-c1e0-76c3-8579-eeb1dcad97cd', 'user'],
      ['rs_17964083287573', 'assistant'],
      ['fc_17964083287573', 'tool'],
      ['fco_01a24247-c5a2-70d1-ac54-20c87ace9575', 'tool'],
      ['msg_17964083296514', 'assistant'],
    ]);
    expect(rows[1]![2]).toBe('[thinking] The person wants the folder listed; a shell command will do.');
    expect(rows[2]![2]).toBe('[tool call: exec_command] {"cmd":"ls && cat notes.txt"}');
    expect(rows[3]![2]).toMatch(/^\[tool result: exec_command\] [\s\S]*The ferry to Naxos leaves at 07:30 from gate E7\./);
    expect(full!.messages.filter((m) => m.role === 'user' || (m.role === 'assistant' && !m.content.startsWith('[thinking]')))).toEqual(plain!.messages);
    const [withSpawn] = await sessionsOf(PARENT, { include: ['tools'] });
    expect(withSpawn!.messages.map((m) => m.content).filter((c) => c.startsWith('[tool call'))).toEqual([
      '[tool call: spawn_agent] {"message":"Find out whether the ferry takes bicycles and what it costs."}',
      '[tool call: wait_agent] {"targets":["01a24248-6b59-73c0-90ab-a4be87ba89c2"],"timeout_ms":30000}',
    ]);
  });

  it('ignores record types it does not know, and names MCP tools by server', async () => {
    const file = path.join(tempDir(), path.basename(WITH_TOOL));
    copyFileSync(WITH_TOOL, file);
    const at = '2026-12-04T18:30:00.000Z';
    appendFileSync(
      file,
      [
        { timestamp: at, type: 'hologram_state', payload: { beams: 3 } },
        { timestamp: at, type: 'event_msg', payload: { type: 'user_message', message: 'Please list the files in this folder and tell me what notes.txt says.' } },
        { timestamp: at, type: 'response_item', payload: { type: 'function_call', namespace: 'mcp__timetable', name: 'next_ferry', arguments: '{"from":"Piraeus"}', call_id: 'call_mcp' } },
        { timestamp: at, type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_mcp', output: { content: '07:30, gate E7', success: true } } },
      ]
        .map((line) => JSON.stringify(line) + '\n')
        .join(''),
    );
    const [plain] = await sessionsOf(file);
    expect(plain!.messages).toEqual((await sessionsOf(WITH_TOOL))[0]!.messages);
    const [full] = await sessionsOf(file, { include: ['tools'] });
    expect(triples(full).slice(-2)).toEqual([
      ['call_mcp', 'tool', '[tool call: mcp__timetable__next_ferry] {"from":"Piraeus"}'],
      ['call_mcp:output', 'tool', '[tool result: mcp__timetable__next_ferry] 07:30, gate E7'],
    ]);
  });
});

describe('a Codex CLI rollout that recorded only what the interface showed', () => {
  it('takes the turns from its user_message and agent_message events', async () => {
    const file = path.join(tempDir(), 'rollout-2025-10-01T09-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl');
    const at = '2025-10-01T09:00:00.000Z';
    writeFileSync(
      file,
      [
        { timestamp: at, type: 'session_meta', payload: { id: '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', timestamp: at, cwd: '/home/ana', originator: 'codex_cli_rs', cli_version: '0.44.0' } },
        { timestamp: at, type: 'event_msg', payload: { type: 'user_message', message: 'Is the Naxos ferry daily?', kind: 'plain' } },
        { timestamp: '2025-10-01T09:00:02.000Z', type: 'event_msg', payload: { type: 'agent_message', message: 'Yes, every morning at 07:30.' } },
        { timestamp: '2025-10-01T09:00:02.000Z', type: 'event_msg', payload: { type: 'token_count', info: null } },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n') + '\n',
    );
    const [session] = await sessionsOf(file);
    expect(session!.messages).toEqual([
      { role: 'user', content: 'Is the Naxos ferry daily?', timestamp: '2025-10-01T09:00:00.000Z' },
      { role: 'assistant', content: 'Yes, every morning at 07:30.', timestamp: '2025-10-01T09:00:02.000Z' },
    ]);
  });
});

describe('older Codex CLI sessions (written by codex-cli 0.47.0, 0.25.0 and the first CLI, 0.1.2505172129)', () => {
  const OLD = fixture('codex', 'codex-0.47.0', 'sessions', '2026', '12', '04');
  const MID_2025 = fixture('codex', 'codex-0.25.0', 'sessions', '2026', '12', '04');

  it('reads the late-2025 lines, where messages have no ids and AGENTS.md is sent as <user_instructions>', async () => {
    const [resumed] = await sessionsOf(path.join(OLD, 'rollout-2026-12-04T18-49-07-01a24263-8259-7c01-82dd-f1cabb5c9038.jsonl'));
    expect(resumed!.sessionId).toBe('01a24263-8259-7c01-82dd-f1cabb5c9038');
    expect(resumed!.messages.map((m) => [m.msgId, m.role, m.content, m.timestamp])).toEqual([
      [undefined, 'user', 'Remember this for our trip: the ferry to Naxos leaves Piraeus at 07:30.', '2026-12-04T18:49:08.065Z'],
      [undefined, 'assistant', 'Noted: the ferry to Naxos leaves Piraeus at 07:30; arrive by 07:00 to board with a bicycle.', '2026-12-04T18:49:08.113Z'],
      [undefined, 'user', 'Can you remind me again which ferry we picked?', '2026-12-04T18:49:19.217Z'],
      [undefined, 'assistant', 'Yes: we settled on the 07:30 ferry to Naxos, and you wanted a window seat on the upper deck.', '2026-12-04T18:49:19.229Z'],
    ]);
    const agentsMd = path.join(OLD, 'rollout-2026-12-04T18-52-30-01a24266-9b24-77a2-9e97-5d7c47999237.jsonl');
    expect(readFileSync(agentsMd, 'utf8')).toContain('<user_instructions>');
    expect((await sessionsOf(agentsMd))[0]!.messages.map((m) => m.content)).toEqual(['Which ferry do we take to Naxos?', 'Noted: the ferry to Naxos leaves Piraeus at 07:30; arrive by 07:00 to board with a bicycle.']);
    const [tool] = await sessionsOf(path.join(OLD, 'rollout-2026-12-04T18-49-09-01a24263-898b-75a3-9879-91ae8d608e36.jsonl'), { include: ['tools', 'thinking'] });
    expect(tool!.messages.map((m) => m.content.slice(0, 40))).toEqual([
      'Please list the files in this folder and',
      '[thinking] The person wants the folder l',
      '[tool call: shell] {"command":["bash","-',
      '[tool result: shell] {"output":"notes.tx',
      'The folder holds a file called notes.txt',
    ]);
  });

  it('leaves out what Codex of 2026 puts in the user role without saying so: a named skill, an interruption, a shell command', async () => {
    const file = path.join(tempDir(), 'rollout-2026-03-22T11-00-00-019d0000-0000-7000-8000-000000000001.jsonl');
    const item = (second: number, role: string, text: string) =>
      JSON.stringify({ timestamp: `2026-03-22T11:00:0${second}.000Z`, type: 'response_item', payload: { type: 'message', role, content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }] } });
    writeFileSync(file, [
      JSON.stringify({ timestamp: '2026-03-22T11:00:00.000Z', type: 'session_meta', payload: { id: '019d0000-0000-7000-8000-000000000001', timestamp: '2026-03-22T11:00:00.000Z', cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.120.0', source: 'cli' } }),
      item(1, 'user', 'Plan the garden beds'),
      item(2, 'user', '<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>'),
      item(3, 'user', '<user_shell_command>\n<command>\nls\n</command>\n<result>\nExit code: 0\nOutput:\nbeds.md\n</result>\n</user_shell_command>'),
      item(4, 'user', '<skill>\n<name>brainstorm</name>\n<path>/w/.codex/skills/brainstorm/SKILL.md</path>\nList ideas before choosing.\n</skill>'),
      item(5, 'user', '<user_action>\nThe user switched the model.\n</user_action>'),
      item(6, 'user', '$brainstorm three layouts for the beds'),
      item(7, 'assistant', 'Rows, a keyhole bed, or a square grid.'),
      '',
    ].join('\n'));
    const [session] = await sessionsOf(file);
    expect(session!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Plan the garden beds'],
      ['user', '$brainstorm three layouts for the beds'],
      ['assistant', 'Rows, a keyhole bed, or a square grid.'],
    ]);
  });

  it("reads the desktop app's rollouts of 0.154-0.159: the parts Codex adds, named by kind, and its approval reviews", async () => {
    // Shaped as real rollouts of codex_work_desktop 0.154.0-alpha.6.2 and 0.159.0 (published in a
    // person's synced Codex folder), the instructions and texts shortened.
    const dir = tempDir();
    const line = (ordinal: number, type: string, payload: object) => JSON.stringify({ timestamp: `2026-09-20T09:20:${String(ordinal).padStart(2, '0')}.000Z`, ordinal, type, payload });
    const user = (ordinal: number, parts: Array<[string, string]>) =>
      line(ordinal, 'response_item', { type: 'message', id: `msg_${ordinal}`, role: 'user', content: parts.map(([, text]) => ({ type: 'input_text', text })), internal_chat_message_metadata_passthrough: { turn_id: 't1', content_item_kinds: parts.map(([kind]) => kind) } });
    const reply = (ordinal: number, text: string) => line(ordinal, 'response_item', { type: 'message', id: `msg_${ordinal}`, role: 'assistant', content: [{ type: 'output_text', text }] });
    const meta = (id: string, extra: object) => line(0, 'session_meta', { session_id: id, id, timestamp: '2026-09-20T09:20:00.000Z', cwd: 'C:\\w', originator: 'codex_work_desktop', cli_version: '0.159.0', source: 'vscode', history_mode: 'paginated', ...extra });
    const desktop = path.join(dir, 'rollout-2026-09-20T17-20-12-01a0be1d-b209-78f0-8a67-bed0818d1898.jsonl');
    writeFileSync(desktop, [
      meta('01a0be1d-b209-78f0-8a67-bed0818d1898', { thread_source: 'user' }),
      user(1, [
        ['plugins.recommendations', '<recommended_plugins>\nHere is a list of plugins that are available but not installed.\n</recommended_plugins>'],
        // Written without the folder since 0.154: `# AGENTS.md instructions for <folder>` before.
        ['agents_md.instructions', '# AGENTS.md instructions\n\n<INSTRUCTIONS>\nStop at once when anything looks wrong.\n</INSTRUCTIONS>'],
        ['environments.environment_context', '<environment_context>\n  <cwd>C:\\w</cwd>\n</environment_context>'],
      ]),
      user(2, [['user.text', '你的知识库截至日期到哪里了\n']]),
      reply(3, '我的内置知识截至 2024 年 8 月。'),
      user(4, [['additional_content.codex_apps_open_page', '<external_codex_apps_open_page>{"page_id":null}</external_codex_apps_open_page>']]),
      user(5, [['user.text', 'And the page I had open?']]),
      '',
    ].join('\n'));
    const [session] = await sessionsOf(desktop);
    expect(session!.title).toBe('你的知识库截至日期到哪里了');
    expect(session!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', '你的知识库截至日期到哪里了'],
      ['assistant', '我的内置知识截至 2024 年 8 月。'],
      ['user', 'And the page I had open?'],
    ]);
    // Without the kinds (the same texts, as a rollout that names none would hold them), by how they begin.
    const unnamed = path.join(tempDir(), path.basename(desktop));
    writeFileSync(unnamed, readFileSync(desktop, 'utf8').replace(/,"internal_chat_message_metadata_passthrough":\{[^}]*\}/g, ''));
    expect((await sessionsOf(unnamed))[0]!.messages.map((m) => m.content)).toEqual(['你的知识库截至日期到哪里了', '我的内置知识截至 2024 年 8 月。', 'And the page I had open?']);

    // Codex's reviewer of an action awaiting approval: its request quotes the parent's history; only the verdict is kept.
    const review = path.join(dir, 'rollout-2026-09-30T17-15-33-01a0f199-095a-78f3-a02e-35399013d8ee.jsonl');
    writeFileSync(review, [
      meta('01a0f199-095a-78f3-a02e-35399013d8ee', { thread_source: 'guardian_review', source: { subagent: { other: 'guardian' } }, parent_thread_id: '01a0f184-ab47-7b92-81fe-2d65c1d6977f' }),
      user(1, [['agents_md.instructions', '# AGENTS.md instructions\n\n<INSTRUCTIONS>\nStop at once.\n</INSTRUCTIONS>']]),
      user(2, [['user.text', 'The following is the Codex agent history whose request action you are assessing.'], ['user.text', '>>> TRANSCRIPT START\nuser: install the tools\n>>> TRANSCRIPT END']]),
      reply(3, '{"risk_level":"low","outcome":"allow","rationale":"The person asked for it."}'),
      '',
    ].join('\n'));
    const [verdict] = await sessionsOf(review);
    expect(verdict!.title).toBe('Subagent: approval review');
    expect(verdict!.parentSessionId).toBe('01a0f184-ab47-7b92-81fe-2d65c1d6977f');
    expect(verdict!.messages.map((m) => [m.role, m.content])).toEqual([['assistant', '{"risk_level":"low","outcome":"allow","rationale":"The person asked for it."}']]);
  });

  it("keeps the person's words of a prompt the IDE extension or the desktop app wrapped, not the open tabs or attached files", async () => {
    const file = path.join(tempDir(), 'rollout-2026-04-08T08-00-00-019d0000-0000-7000-8000-000000000002.jsonl');
    const line = (second: number, type: string, payload: object) => JSON.stringify({ timestamp: `2026-04-08T13:00:0${second}.000Z`, type, payload });
    const prompt = (second: number, text: string) => [
      line(second, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }),
      line(second, 'event_msg', { type: 'user_message', message: text, images: [] }),
    ];
    writeFileSync(file, [
      line(0, 'session_meta', { id: '019d0000-0000-7000-8000-000000000002', timestamp: '2026-04-08T13:00:00.000Z', cwd: '/w', originator: 'codex_vscode', cli_version: '0.118.0-alpha.2', source: 'vscode' }),
      ...prompt(1, '# Context from my IDE setup:\n\n## Active file: beds/plan.md\n\n## Open tabs:\n- plan.md: beds/plan.md\n- seeds.csv: beds/seeds.csv\n\n## My request for Codex:\nwhich bed gets the most sun?\n'),
      line(2, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The south bed, by the wall.' }] }),
      ...prompt(3, '\n## My request for Codex:\nmove the tomatoes there\n'),
      ...prompt(4, '# Files mentioned by the user:\n\n## sketch.png: /tmp/sketch.png\n\n## My request for Codex:\ndraw it like this sketch\n'),
      // The heading in the middle of the person's own text is their words.
      ...prompt(5, 'I wrote this note:\n## My request for Codex:\nkeep it'),
      '',
    ].join('\n'));
    const [session] = await sessionsOf(file);
    expect(session!.title).toBe('which bed gets the most sun?');
    expect(session!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'which bed gets the most sun?'],
      ['assistant', 'The south bed, by the wall.'],
      ['user', 'move the tomatoes there'],
      ['user', 'draw it like this sketch'],
      ['user', 'I wrote this note:\n## My request for Codex:\nkeep it'],
    ]);
    // A file with the interface's events alone reads them the same way.
    const eventsOnly = path.join(tempDir(), path.basename(file));
    writeFileSync(eventsOnly, readFileSync(file, 'utf8').split('\n').filter((text) => !text.includes('"response_item"')).join('\n'));
    expect((await sessionsOf(eventsOnly))[0]!.messages.map((m) => m.content)[0]).toBe('which bed gets the most sun?');
  });

  it('reads the mid-2025 rollouts: a bare header line, state markers, bare items; a resumed one as one session', async () => {
    const [session] = await sessionsOf(path.join(MID_2025, 'rollout-2026-12-04T18-48-59-a1960f4f-cf68-453f-ad29-9d966e9e7c06.jsonl'));
    expect(session!.sessionId).toBe('a1960f4f-cf68-453f-ad29-9d966e9e7c06');
    expect(triples(session)).toEqual([
      [undefined, 'user', 'Remember this for our trip: the ferry to Naxos leaves Piraeus at 07:30.'],
      ['msg_17964101398211', 'assistant', 'Noted: the ferry to Naxos leaves Piraeus at 07:30; arrive by 07:00 to board with a bicycle.'],
      // Appended by `codex exec -c experimental_resume=<this file>`.
      [undefined, 'user', 'Can you remind me again which ferry we picked?'],
      ['msg_17964101440094', 'assistant', 'Yes: we settled on the 07:30 ferry to Naxos, and you wanted a window seat on the upper deck.'],
    ]);
    const [tool] = await sessionsOf(path.join(MID_2025, 'rollout-2026-12-04T18-49-00-204698b6-94c1-4458-8fd0-7ad09270c89d.jsonl'), { include: ['tools', 'thinking'] });
    expect(triples(tool).map(([id, role]) => [id, role])).toEqual([
      [undefined, 'user'],
      ['rs_17964101403212', 'assistant'],
      ['fc_17964101403212', 'tool'],
      ['call_17964101403212:output', 'tool'],
      ['msg_17964101406883', 'assistant'],
    ]);
  });

  it("reads the first CLI's saved conversation", async () => {
    const [session] = await sessionsOf(fixture('codex', 'codex-0.1.2505172129', 'sessions', 'rollout-2026-12-04-54a9ce92-9a5a-4113-a882-41a2832a3b91.json'));
    expect(session!.sessionId).toBe('codex-msg_179641028857812');
    expect(triples(session).map(([, role, content]) => `${role}: ${content}`)).toEqual([
      'user: Remember this for our trip: the ferry to Naxos leaves Piraeus at 07:30.',
      'assistant: Noted: the ferry to Naxos leaves Piraeus at 07:30; arrive by 07:00 to board with a bicycle.',
      'user: Can you remind me again which ferry we picked?',
      'assistant: Yes: we settled on the 07:30 ferry to Naxos, and you wanted a window seat on the upper deck.',
    ]);
  });

  // Its first releases saved the growing conversation under a new id each time (our own text, their layout).
  it("reads the first CLI's saved conversations, each save of one conversation as the same session", async () => {
    const dir = tempDir();
    const items = [
      { role: 'user', type: 'message', content: [{ type: 'input_text', text: 'Name three harbours on Naxos.' }] },
      { id: 'msg_a1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Naxos town, Apollonas and Agia Anna.', annotations: [] }] },
      { role: 'user', type: 'message', content: [{ type: 'input_text', text: 'Which one has the ferry?' }] },
      { id: 'msg_a2', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Naxos town.', annotations: [] }] },
    ];
    const save = (name: string, id: string, upTo: number) =>
      writeFileSync(path.join(dir, name), JSON.stringify({ session: { timestamp: '2025-04-20T10:00:00.000Z', id, instructions: '' }, items: items.slice(0, upTo) }, null, 2));
    save('rollout-2025-04-20-1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed.json', '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed', 2);
    save('rollout-2025-04-20-6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b.json', '6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b', 4);
    const results = await readAll([dir]);
    const sessions = results.flatMap((result) => ('sessions' in result ? result.sessions : []));
    expect(results.map((result) => ('format' in result ? result.format : result.error.message))).toEqual(['codex', 'codex']);
    expect(sessions.map((s) => s.sessionId)).toEqual(['codex-msg_a1', 'codex-msg_a1']);
    expect(sessions[1]!.messages.slice(0, 2)).toEqual(sessions[0]!.messages);
    expect(triples(sessions[1]).map(([, role, content]) => `${role}: ${content}`)).toEqual(['user: Name three harbours on Naxos.', 'assistant: Naxos town, Apollonas and Agia Anna.', 'user: Which one has the ferry?', 'assistant: Naxos town.']);
  });
  // open-codex, the TypeScript CLI's fork for other providers, saved Chat Completions messages (our own text, its layout).
  it("reads the first CLI's conversations saved as Chat Completions messages, the person's carriage returns as line breaks", async () => {
    const folder = fixture('codex', 'open-codex', 'sessions');
    const results = await readAll([folder], { include: ['tools'] });
    const sessions = results.flatMap((result) => ('sessions' in result ? result.sessions : []));
    expect(results.map((result) => ('format' in result ? result.format : result.error.message))).toEqual(['codex', 'codex']);
    // Two saves of one conversation: one session, the later save adding what is new.
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(1);
    expect(sessions[0]!.sessionId).toMatch(/^codex-[0-9a-f]{24}$/);
    const later = sessions.find((s) => s.messages.length > 4)!;
    expect(later.messages.map((m) => `${m.role}: ${m.content}`)).toEqual([
      'user: Plan a day on Naxos:\nmorning at the Portara,\nafternoon at a beach.',
      'tool: [tool call: shell] {"command":["cat","beaches.txt"]}',
      'tool: [tool result: shell] {"output":"Agios Prokopios\\nPlaka\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}',
      'assistant: Start at the Portara at sunrise,\nthen take the bus to Agios Prokopios for the afternoon.',
      'user: And dinner?',
      'assistant: Dinner in Chora, by the harbour.',
    ]);
    expect(later.messages[2]!.msgId).toBe('call_naxos1:output');
    const [earlier] = await sessionsOf(path.join(folder, 'rollout-2025-05-02-3f0c9a52-7d1e-4c44-9a61-2b8f5d0e6a17.json'));
    expect(earlier!.sessionId).toBe(sessions[0]!.sessionId);
    expect(earlier!.title).toBe('Plan a day on Naxos:');
    expect(earlier!.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });
  // Codex compresses rollouts with zstd (`rollout-<time>-<thread id>.jsonl.zst`): the home/ rollout compressed by `zstd -19`.
  it('reads zstd-compressed rollouts, titled from the index like the others, and finds them as a source', async () => {
    const home = fixture('codex', 'zstd');
    const compressed = path.join(home, 'sessions', '2026', '12', '04', 'rollout-2026-12-04T18-18-42-01a24247-a9c5-7553-a194-a2bb5ab03838.jsonl.zst');
    const [session] = await sessionsOf(compressed);
    const [plain] = await sessionsOf(RESUMED);
    expect(session).toEqual(plain);
    expect(session!.title).toBe('Ferry to Naxos');
    // Found in a folder too, and recognised by its bytes whatever its name.
    const results = await readAll([home]);
    expect(results.map((result) => ('format' in result ? [path.basename(result.file), result.format] : result.error.message))).toEqual([[path.basename(compressed), 'codex']]);
    const renamed = path.join(tempDir(), 'rollout-copy.jsonl');
    copyFileSync(compressed, renamed);
    expect((await sessionsOf(renamed))[0]!.messages).toEqual(plain!.messages);

    const { discoverSources } = await import('../../electron/sources/discover.js');
    const machine = tempDir();
    mkdirSync(path.join(machine, '.codex'));
    cpSync(home, path.join(machine, '.codex'), { recursive: true });
    const found = await discoverSources({ env: {}, home: machine, platform: 'linux' });
    expect(found.find((s) => s.id === 'codex')?.picks.flatMap((p) => p.files.map((f) => path.basename(f.path)))).toEqual([path.basename(compressed)]);
  });
  it('reports a damaged compressed rollout when syncing it, rather than waiting for it to be finished', async () => {
    const compressed = readFileSync(fixture('codex', 'zstd', 'sessions', '2026', '12', '04', 'rollout-2026-12-04T18-18-42-01a24247-a9c5-7553-a194-a2bb5ab03838.jsonl.zst'));
    const file = path.join(tempDir(), 'rollout-2026-12-04T18-18-42-01a24247-a9c5-7553-a194-a2bb5ab03838.jsonl.zst');
    writeFileSync(file, compressed.subarray(0, compressed.length - 200));
    const { SourceCursors } = await import('../../electron/sources/cursors.js');
    const { syncFile } = await import('../../electron/sources/sync.js');
    const errors: string[] = [];
    const saved: string[] = [];
    const engine = async () => ({ save: async (session: { sessionId: string }) => (saved.push(session.sessionId), { sessionId: session.sessionId }) as never });
    await syncFile('codex', file, 'files', { cursors: await SourceCursors.load(tempDir()), engine, onReport: () => {}, onError: (_s, _f, message) => errors.push(message) });
    expect(saved).toEqual([]);
    expect(errors).toEqual([expect.stringMatching(/rollout-.*\.jsonl\.zst: damaged zstd data/)]);
  });
});
