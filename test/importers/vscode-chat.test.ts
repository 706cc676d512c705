import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../electron/importers/index.js';
import { errorOf, fixture, readAll, sessionsOf, tempDir } from './helpers.js';

const USER = fixture('vscode-chat', 'Code', 'User');
const SESSION_JSON = path.join(USER, 'workspaceStorage', '3c9a1f7e5b2d4c6a8e0f1b3d5c7a9e2f', 'chatSessions', '8e1f4c2a-6b3d-4f7e-9a05-2c7d8e9f1a3b.json');
const SESSION_LOG = path.join(USER, 'globalStorage', 'emptyWindowChatSessions', '4a7d2b9e-0c1f-4e3a-8b6d-5f9e1c2a7b40.jsonl');
const EXPORT = fixture('vscode-chat', 'chat-export.json');

const FIRST = 'request_0b5e7a3c-1d2f-4a6b-8c9d-0e1f2a3b4c5d';
const SECOND = 'request_1c6f8b4d-2e3a-4b7c-9d0e-1f2a3b4c5d6e';
const CANCELED = 'request_2d7a9c5e-3f4b-4c8d-8e1f-2a3b4c5d6e7f';

/** The dialogue of the fixtures' session, as read without tools or thinking. */
const DIALOGUE = [
  { msgId: FIRST, role: 'user', content: 'Why is the discount applied twice at checkout?', timestamp: '2026-09-27T10:00:05.000Z' },
  {
    msgId: `${FIRST}:response`,
    role: 'assistant',
    // The file and the symbol referenced inline keep their names in the sentence; the edit and the code block's link are left out.
    content: 'The discount is applied in cart.ts: once when an item is added, and again by applyDiscount when the order is placed.\n\nI removed the second call, so checkout uses the total as it is.',
    timestamp: '2026-09-27T10:00:19.000Z',
  },
  { msgId: SECOND, role: 'user', content: 'Run the tests to make sure.', timestamp: '2026-09-27T10:01:00.000Z' },
  { msgId: `${SECOND}:response`, role: 'assistant', content: 'All 14 cart tests pass, including the one for a discounted order.', timestamp: '2026-09-27T10:01:21.000Z' },
  { msgId: CANCELED, role: 'user', content: 'Also rename applyDiscount to discountedTotal everywhere', timestamp: '2026-09-27T10:02:00.000Z' },
  // Canceled: what was written before the person stopped it.
  { msgId: `${CANCELED}:response`, role: 'assistant', content: 'I will rename `applyDiscount` in', timestamp: '2026-09-27T10:02:03.000Z' },
];

describe("VS Code's chat sessions (chatSessions/*.json, *.jsonl)", () => {
  it('reads a whole session (.json): the dialogue with inline references in their place, the custom title, times from the requests', async () => {
    const [session] = await sessionsOf(SESSION_JSON);
    expect(session).toEqual({ sessionId: '8e1f4c2a-6b3d-4f7e-9a05-2c7d8e9f1a3b', title: 'Discount applied twice at checkout', source: 'vscode-chat', messages: DIALOGUE });
  });

  it('keeps the tool calls and the thinking when asked for, under ids of their own, the others unchanged', async () => {
    const [withTools] = await sessionsOf(SESSION_JSON, { include: ['tools'] });
    expect(withTools!.messages.filter((m) => m.role === 'tool')).toEqual([
      { msgId: `${FIRST}:response#0`, role: 'tool', content: '[tool call: copilot_readFile] Read cart.ts', timestamp: '2026-09-27T10:00:19.000Z' },
      { msgId: `${SECOND}:response#0`, role: 'tool', content: '[tool call: run_in_terminal] Ran `npm test`\n$ npm test -- cart', timestamp: '2026-09-27T10:01:21.000Z' },
    ]);
    expect(withTools!.messages.some((m) => m.content.startsWith('[thinking]'))).toBe(false);

    const [withThinking] = await sessionsOf(SESSION_JSON, { include: ['thinking'] });
    // The empty thinking part that closes the reasoning is no message.
    expect(withThinking!.messages.filter((m) => m.content.startsWith('[thinking]'))).toEqual([
      { msgId: `${FIRST}:response#1`, role: 'assistant', content: '[thinking] applyDiscount runs in addItem and again in checkout; the total is reduced twice.', timestamp: '2026-09-27T10:00:19.000Z' },
    ]);
    expect(withThinking!.messages.some((m) => m.role === 'tool')).toBe(false);

    // The dialogue is the same whatever is included.
    const [all] = await sessionsOf(SESSION_JSON, { include: ['tools', 'thinking'] });
    expect(all!.messages.filter((m) => !m.msgId!.includes('#'))).toEqual(DIALOGUE);
  });

  it('replays the change log (.jsonl) to the same messages as the whole session', async () => {
    for (const include of [[], ['tools', 'thinking']] as const) {
      const [fromJson] = await sessionsOf(SESSION_JSON, { include: [...include] });
      const [fromLog] = await sessionsOf(SESSION_LOG, { include: [...include] });
      expect(fromLog).toEqual({ ...fromJson, sessionId: '4a7d2b9e-0c1f-4e3a-8b6d-5f9e1c2a7b40' });
    }
  });

  it('reads a log cut short: each state it passes through is the session so far, under the same ids', async () => {
    const lines = readFileSync(SESSION_LOG, 'utf8').split('\n').filter(Boolean);
    const dir = tempDir();
    // After the first answer streamed in, its last Markdown part still being replaced (`i`), before the result came.
    const early = path.join(dir, 'early.jsonl');
    writeFileSync(early, `${lines.slice(0, 7).join('\n')}\n`);
    const [session] = await sessionsOf(early);
    expect(session!.messages).toEqual([
      { msgId: FIRST, role: 'user', content: 'Why is the discount applied twice at checkout?', timestamp: '2026-09-27T10:00:05.000Z' },
      { msgId: `${FIRST}:response`, role: 'assistant', content: 'The discount is applied in cart.ts: once when an item is added, and again by applyDiscount when the order is placed.\n\nI removed the second call', timestamp: '2026-09-27T10:00:05.000Z' },
    ]);
  });

  it('leaves out a damaged line, names it, and reads the rest; strict refuses the file', async () => {
    const lines = readFileSync(SESSION_LOG, 'utf8').split('\n').filter(Boolean);
    const file = path.join(tempDir(), 'damaged.jsonl');
    // Line 14 (the second answer) is cut in the middle; line 16's path names a request that is not there.
    const damaged = [...lines];
    damaged[13] = damaged[13]!.slice(0, 40);
    damaged[15] = JSON.stringify({ kind: 1, k: ['requests', 7, 'modelState'], v: { value: 1 } });
    writeFileSync(file, `${damaged.join('\n')}\n`);
    const [result] = await readAll([file]);
    if (!result || 'error' in result) throw new Error('expected the file to be read');
    expect(result.skipped).toEqual([
      { file, line: 14, error: expect.stringMatching(/invalid JSON/) },
      { file, line: 16, error: 'line 16: requests[7] is not in the session' },
    ]);
    const messages = result.sessions[0]!.messages;
    expect(messages.map((m) => m.msgId)).toEqual([FIRST, `${FIRST}:response`, SECOND, CANCELED, `${CANCELED}:response`]);

    const error = await errorOf(file, undefined, { strict: true });
    expect(error).toMatchObject({ file, code: 'invalid-json' });
  });

  it('reads "Chat: Export Chat..." (no version, id or dates): named after its first request', async () => {
    const [session] = await sessionsOf(EXPORT);
    expect(session).toEqual({ sessionId: `vscode-chat:${FIRST}`, title: 'Why is the discount applied twice at checkout?', source: 'vscode-chat', messages: DIALOGUE.slice(0, 4) });
  });

  it('is recognised by its content, whatever the file is called', () => {
    for (const file of [SESSION_JSON, SESSION_LOG, EXPORT]) {
      expect(detectFormat(readFileSync(file)), file).toBe('vscode-chat');
      expect(detectFormat(readFileSync(file, 'utf8')), file).toBe('vscode-chat');
    }
    // A log whose first line is not the whole session is no chat session.
    const lines = readFileSync(SESSION_LOG, 'utf8').split('\n').filter(Boolean);
    expect(detectFormat(lines.slice(1).join('\n'))).toBeUndefined();
  });
});
