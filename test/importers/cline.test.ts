import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../electron/importers/index.js';
import { errorOf, fixture, readAll, sessionsOf, tempDir } from './helpers.js';

/** Task folders in the exact shapes Cline 3.51 and Roo Code write, with our own text (see PROVENANCE.md). */
const CLINE_TASK = fixture('cline', 'saoudrizwan.claude-dev', 'tasks', '1767258000000');
const ROO_TASK = fixture('cline', 'rooveterinaryinc.roo-cline', 'tasks', '0197c8e2-5c1d-7a3b-9f10-2b3c4d5e6f70');

describe('Cline, Roo Code and Kilo Code task folders', () => {
  it("reads a task as one session: the person's words without what the extension injects, the answer, the panel's times", async () => {
    const [session] = await sessionsOf(CLINE_TASK);
    expect(session).toMatchObject({ sessionId: '1767258000000', source: 'cline', title: 'Rename the CSS variable --leaf-green to --color-primary everywhere in src/styles/theme.css and keep…' });
    expect(session!.messages.map((message) => [message.msgId, message.role, message.content.slice(0, 40), message.timestamp])).toEqual([
      ['0', 'user', 'Rename the CSS variable --leaf-green to ', '2026-01-01T09:00:00.028Z'],
      ['1', 'assistant', "I'll start by reading the stylesheet to ", '2026-01-01T09:00:01.991Z'],
      ['3', 'assistant', 'The variable is defined once and used on', '2026-01-01T09:00:05.800Z'],
      ['4', 'user', 'Also update the .button rule to use the ', '2026-01-01T09:00:41.650Z'],
      ['6', 'user', '[image]', '2026-01-01T09:00:47.900Z'],
      ['7', 'assistant', 'Renamed --leaf-green to --color-primary ', '2026-01-01T09:00:49.300Z'],
    ]);
    const text = session!.messages.map((message) => message.content).join('\n');
    for (const injected of ['environment_details', 'Current Working Directory', 'task_progress', '<task>', '<feedback>', '[read_file']) expect(text).not.toContain(injected);
  });

  it('adds tool calls, their results and the thinking when asked, under the same ids for what both reads share', async () => {
    const [plain] = await sessionsOf(CLINE_TASK);
    const [full] = await sessionsOf(CLINE_TASK, { include: ['tools', 'thinking'] });
    for (const message of plain!.messages) expect(full!.messages).toContainEqual(message);
    expect(full!.messages.filter((message) => !plain!.messages.some((shared) => shared.msgId === message.msgId)).map((message) => [message.msgId, message.content.slice(0, 45)])).toEqual([
      ['1#0', '[thinking] I need to read the stylesheet firs'],
      ['1#2', '[tool call: read_file] {"path":"src/styles/th'],
      ['2', '[tool result: read_file] :root {\n  --leaf-gre'],
      ['3#1', '[tool call: replace_in_file] {"path":"src/sty'],
      ['4#0', '[tool result: replace_in_file] The content wa'],
      ['5', '[tool call: replace_in_file] {"path":"src/sty'],
      ['6#0', '[tool result: replace_in_file] The content wa'],
    ]);
  });

  it("reads Roo Code's XML tool calls and <thinking>, and the times on its own API messages", async () => {
    const [session] = await sessionsOf(ROO_TASK);
    expect(session).toMatchObject({ sessionId: '0197c8e2-5c1d-7a3b-9f10-2b3c4d5e6f70', source: 'roo-code', title: 'Why does the seed calendar show March twice?' });
    expect(session!.messages.map((message) => [message.role, message.content.slice(0, 50), message.timestamp])).toEqual([
      ['user', 'Why does the seed calendar show March twice?', '2026-01-02T09:00:00.010Z'],
      ['assistant', 'Let me look at how the months are generated.', '2026-01-02T09:00:04.200Z'],
      ['assistant', 'The loop starts on January 31st; adding a month to', '2026-01-02T09:00:09.800Z'],
    ]);
    const [full] = await sessionsOf(ROO_TASK, { include: ['tools', 'thinking'] });
    expect(full!.messages.map((message) => `${message.msgId} ${message.content.slice(0, 45)}`)).toEqual([
      '0 Why does the seed calendar show March twice?',
      '1#1 [thinking] The month list is probably built f',
      '1 Let me look at how the months are generated.',
      '1#3 [tool call: read_file] {"path":"src/calendar.',
      '2 [tool result: read_file] 1 | for (let d = new',
      '3 The loop starts on January 31st; adding a mon',
    ]);
  });

  it('scans the task folders, not the index that loses entries: every task of the tasks folder, each read whole', async () => {
    const storage = path.join(tempDir(), 'globalStorage');
    for (const extension of ['saoudrizwan.claude-dev', 'rooveterinaryinc.roo-cline']) cpSync(fixture('cline', extension), path.join(storage, extension), { recursive: true });
    // Kilo Code writes the same layout under its own extension id.
    cpSync(CLINE_TASK, path.join(storage, 'kilocode.kilo-code', 'tasks', '1767300000000'), { recursive: true });
    mkdirSync(path.join(storage, 'saoudrizwan.claude-dev', 'state'));
    writeFileSync(path.join(storage, 'saoudrizwan.claude-dev', 'state', 'taskHistory.json'), JSON.stringify([{ id: '1767258000000', task: 'Rename…', ts: 1767258000028 }]));
    const results = await readAll([storage]);
    expect(results.map((result) => ('format' in result ? [result.format, result.sessions[0]!.sessionId, result.sessions[0]!.source] : result.error.message))).toEqual([
      ['cline', '1767300000000', 'kilo-code'],
      ['cline', '0197c8e2-5c1d-7a3b-9f10-2b3c4d5e6f70', 'roo-code'],
      ['cline', '1767258000000', 'cline'],
    ]);
  });

  it('reads the same session whether the folder or its API history is named', async () => {
    expect(await sessionsOf(path.join(CLINE_TASK, 'api_conversation_history.json'))).toEqual(await sessionsOf(CLINE_TASK));
  });

  it('recognises an API history by content, renamed and away from its folder (without the panel, so without times)', async () => {
    expect(detectFormat(readFileSync(path.join(CLINE_TASK, 'api_conversation_history.json')))).toBe('cline');
    const renamed = path.join(tempDir(), 'my-task.json');
    cpSync(path.join(CLINE_TASK, 'api_conversation_history.json'), renamed);
    const [result] = await readAll([renamed]);
    if (!result || !('format' in result)) throw new Error(JSON.stringify(result));
    expect(result.format).toBe('cline');
    expect(result.sessions[0]!.messages.map((message) => message.content)).toEqual((await sessionsOf(CLINE_TASK))[0]!.messages.map((message) => message.content));
  });

  it('keeps only the words of a resumed task and names the files attached to a message', async () => {
    // The shape Cline 3 writes when a task is resumed (in plan mode, then in act mode) and a file is attached.
    const task = path.join(tempDir(), '1777072000000');
    mkdirSync(task);
    const text = (value: string) => ({ type: 'text', text: value });
    const environment = text('<environment_details>\n# Current Time\n4/27/2026, 7:56:04 PM\n</environment_details>');
    const history = [
      { role: 'user', ts: 1777072000000, content: [text('<task>\nSummarise the attached design note.\n</task>'), text('Files attached by the user:\n\n<file_content path="c:/work/notes/design note.md">\n# Design\nThe queue is drained nightly.\n</file_content>'), environment] },
      { role: 'assistant', ts: 1777072005000, content: [text('The note says the queue is drained nightly.')] },
      { role: 'user', ts: 1777331764000, content: [text("[TASK RESUMPTION] This task was interrupted 3 days ago. However you are in PLAN MODE, so rather than continuing the task, you must respond to the user's message."), text("(The user did not provide a new message. Consider asking them how they'd like you to proceed, or suggest to them to switch to Act mode to continue with the task.)"), text('\n# task_progress List (Optional - Plan Mode)\n\nWhile in PLAN MODE, you may include a preliminary todo list.'), environment] },
      { role: 'assistant', ts: 1777331770000, content: [text('How would you like to proceed?')] },
      { role: 'user', ts: 1777332039000, content: [text('[TASK RESUMPTION] This task was interrupted 3 minutes ago.'), text('New message to respond to with plan_mode_respond tool (be sure to provide your response in the <response> parameter):\n<user_message>\nPlan the move to the new bucket.\n</user_message>'), environment] },
      { role: 'assistant', ts: 1777332045000, content: [text('First, the uploads; then the reads.')] },
      { role: 'user', ts: 1777390000000, content: [text('[TASK RESUMPTION] This task was interrupted 16 hours ago.'), text('New instructions for task continuation:\n<user_message>\nApproved, go ahead.\n</user_message>'), environment] },
    ];
    writeFileSync(path.join(task, 'api_conversation_history.json'), JSON.stringify(history));
    const [session] = await sessionsOf(task);
    expect(session!.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Summarise the attached design note.\n\n[file: design note.md]'],
      ['assistant', 'The note says the queue is drained nightly.'],
      ['assistant', 'How would you like to proceed?'],
      ['user', 'Plan the move to the new bucket.'],
      ['assistant', 'First, the uploads; then the reads.'],
      ['user', 'Approved, go ahead.'],
    ]);
  });

  it('reads a tool result whose command holds brackets, quotes and lines as a result, not as the person', async () => {
    // Cline of January 2026 (gmfstu/Online-Card-Architecture): native tool calls, results as text headers.
    const task = path.join(tempDir(), '1769053680585');
    mkdirSync(task);
    const text = (value: string) => ({ type: 'text', text: value });
    const command = "for f in A.cs B.cs; do\n  echo \"guid: $(uuidgen | tr -d '-' | tr '[:upper:]' '[:lower:]')\" >> \"$f.meta\"\ndone";
    const history = [
      { role: 'user', content: [text('<task>\nAdd .meta files for the new scripts.\n</task>')] },
      { role: 'assistant', content: [text('I will write them with a loop.'), { type: 'tool_use', id: 'toolu_1', name: 'execute_command', input: { command, requires_approval: false } }] },
      { role: 'user', content: [text(`[execute_command for '${command}'] Result:\nCommand executed.\nOutput:\nbash: uuidgen: command not found`), text('<environment_details>\n# Current Mode\nACT MODE\n</environment_details>')] },
      { role: 'assistant', content: [text('uuidgen is missing; I will use python instead.')] },
    ];
    writeFileSync(path.join(task, 'api_conversation_history.json'), JSON.stringify(history));
    const [session] = await sessionsOf(task);
    expect(session!.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Add .meta files for the new scripts.'],
      ['assistant', 'I will write them with a loop.'],
      ['assistant', 'uuidgen is missing; I will use python instead.'],
    ]);
    const [withTools] = await sessionsOf(task, { include: ['tools'] });
    expect(withTools!.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      expect.stringContaining('execute_command'),
      expect.stringContaining('bash: uuidgen: command not found'),
    ]);
  });

  it("keeps the person's answer to the model's question, written after the question's result header", async () => {
    // Cline 3 (mike4567/MRA04242026): `[ask_followup_question for '<question>'] Result:` then `<answer>` in the same block.
    const task = path.join(tempDir(), '1777072000001');
    mkdirSync(task);
    const text = (value: string) => ({ type: 'text', text: value });
    const history = [
      { role: 'user', content: [text('<task>\nMove the auth to NextAuth.\n</task>')] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_q', name: 'ask_followup_question', input: { question: 'Phase 2 done (see `src/app/api/auth/[...nextauth]/route.ts`). Proceed to Phase 3?' } }] },
      { role: 'user', content: [text("[ask_followup_question for 'Phase 2 done (see `src/app/api/auth/[...nextauth]/route.ts`). Proceed to Phase 3?'] Result:\n<answer>\nApproved - Proceed to Phase 3\n</answer>")] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_e', name: 'replace_in_file', input: { path: 'a.ts', diff: '…' } }] },
      { role: 'user', content: [text("[replace_in_file for 'a.ts'] Result:\nThe user denied this operation.\n<feedback>\nuse tabs, not spaces\n</feedback>")] },
    ];
    writeFileSync(path.join(task, 'api_conversation_history.json'), JSON.stringify(history));
    const [session] = await sessionsOf(task);
    expect(session!.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Move the auth to NextAuth.'],
      ['assistant', 'Phase 2 done (see `src/app/api/auth/[...nextauth]/route.ts`). Proceed to Phase 3?'],
      ['user', 'Approved - Proceed to Phase 3'],
      ['user', 'use tabs, not spaces'],
    ]);
    const [withTools] = await sessionsOf(task, { include: ['tools'] });
    expect(withTools!.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      expect.stringContaining('replace_in_file'),
      '[tool result: replace_in_file] The user denied this operation.',
    ]);
  });

  it('reads a task exported as Markdown (XML tool calls): the words, the answer, the times the extension wrote', async () => {
    // In the shape of IBM Bob's exports (Jaruvit0867/AI-Document-Generator, bob_sessions/…/bob_task_*.md).
    const file = fixture('cline', 'exports', 'bob_task_may-16-2026_5-41-57-pm.md');
    expect(detectFormat(readFileSync(file))).toBe('cline');
    const [session] = await sessionsOf(file);
    expect(session).toMatchObject({ sessionId: 'bob_task_may-16-2026_5-41-57-pm', source: 'cline', title: 'Fix the `@/` path alias: imports of `@/lib/auth` are not found.' });
    expect(session!.messages.map((message) => [message.role, message.content, message.timestamp])).toEqual([
      ['user', 'Fix the `@/` path alias: imports of `@/lib/auth` are not found.', '2026-05-16T10:41:23.814Z'],
      // Without the thinking, the read_file call and the extension's note on the interrupted reply.
      ['assistant', 'Let me read the TypeScript settings first.', undefined],
      // The result of apply_diff is no one's words; the feedback beside it is the person's.
      ['user', 'Also restart the dev server.', '2026-05-16T10:42:05.500Z'],
      ['assistant', 'The alias now points to ./src/* and the dev server is restarted.', undefined],
    ]);
    const [withTools] = await sessionsOf(file, { include: ['tools'] });
    expect(withTools!.messages.filter((message) => message.role === 'tool').map((message) => message.content.split(']')[0])).toEqual([
      '[tool call: read_file',
      '[tool result: read_file',
      '[tool call: apply_diff',
      '[tool result: apply_diff',
    ]);
  });

  it('reads a task exported as Markdown with native tool calls ([Tool Use: …], [Tool]) as a Roo Code session', async () => {
    const [session] = await sessionsOf(fixture('cline', 'exports', 'roo_task_may-16-2026_6-10-00-pm.md'), { include: ['tools'] });
    expect(session!.source).toBe('roo-code');
    expect(session!.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Fix the `@/` path alias: imports of `@/lib/auth` are not found.'],
      ['assistant', "I'll read the settings."],
      ['tool', '[tool call: read_file] {"path":"frontend/tsconfig.json"}'],
      ['tool', '[tool result: read_file] 1 | { "compilerOptions": { "paths": { "@/*": ["./*"] } } }'],
      // The answer runs over its paragraphs, a line that looks like an argument ("Note: …") included.
      ['assistant', 'The alias pointed to the project root.\n\nNote: it now points to ./src/*.'],
    ]);
  });

  it("names a task's panel log imported without its API history for what it is", async () => {
    const dir = tempDir();
    const file = path.join(dir, 'ui_messages.json');
    writeFileSync(file, JSON.stringify([
      { ts: 1767258000028, type: 'say', say: 'task', text: 'Rename the CSS variable', images: [], files: [] },
      { ts: 1767258000100, type: 'say', say: 'api_req_started', text: '{}', conversationHistoryIndex: -1 },
      { ts: 1767258001991, type: 'say', say: 'text', text: "I'll start by reading the stylesheet.", conversationHistoryIndex: 0 },
    ]));
    const error = await errorOf(file);
    expect(error.code).toBe('unknown-format');
    expect(error.message).toBe(`${file}: the panel log of a Cline, Roo Code or Kilo Code task, not its conversation: that is the api_conversation_history.json beside it`);
  });

  it('imports a task whose panel messages are damaged, naming what was left out; a damaged history is refused with its place', async () => {
    const task = path.join(tempDir(), '1767258000000');
    cpSync(CLINE_TASK, task, { recursive: true });
    writeFileSync(path.join(task, 'ui_messages.json'), '[{"ts":1767258000028,"type":"say"');
    const [result] = await readAll([task]);
    if (!result || !('format' in result)) throw new Error(JSON.stringify(result));
    expect(result.sessions[0]!.messages).toHaveLength(6);
    expect(result.skipped).toEqual([{ file: path.join(task, 'ui_messages.json'), error: 'truncated JSON at byte 33' }]);

    writeFileSync(path.join(task, 'api_conversation_history.json'), '[{"role":"user","content":[{"type":"text","text":"<task>hi</task>"}]},]');
    const error = await errorOf(task);
    expect(error.file).toBe(path.join(task, 'api_conversation_history.json'));
    expect(error.code).toBe('invalid-json');
    expect(error.message).toMatch(/invalid JSON at byte \d+ \(line 1, column \d+\)$/);
  });
});
