/**
 * Partial imports: the unit of damage is a conversation (multi-conversation exports) or a line (JSONL logs).
 * A damaged unit is skipped and named; the rest is imported. `strict` keeps all-or-nothing per file.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { errorOf, fixture, readAll, STREAM_EVERYTHING, tempDir } from './helpers.js';

function write(name: string, content: string): string {
  const file = path.join(tempDir(), name);
  writeFileSync(file, content);
  return file;
}

const chatgpt = JSON.parse(readFileSync(fixture('chatgpt', 'conversations.json'), 'utf8')) as Array<Record<string, unknown>>;

describe('a damaged conversation of an export', () => {
  // A 2025 ChatGPT export: one conversation lost its `mapping` on the server side.
  const damaged = [chatgpt[0], { ...chatgpt[1], mapping: undefined }, chatgpt[2]];

  for (const [name, limits] of [['read whole', undefined], ['streamed', STREAM_EVERYTHING]] as const) {
    it(`is skipped and named, and the others are imported (${name})`, async () => {
      const file = write('conversations.json', JSON.stringify(damaged));
      const [result] = await readAll([file], {}, limits);
      if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
      // The third conversation of the export is an empty chat (nothing to import either way).
      expect(result.sessions.map((s) => s.sessionId)).toEqual([chatgpt[0]!.id]);
      expect(result.sessionCount).toBe(1);
      expect(result.skipped).toEqual([{ file, session: chatgpt[1]!.id, error: expect.stringMatching(/^\[1\]\.mapping/) }]);
    });

    it(`is skipped even when it is the first one, which then does not decide the format (${name})`, async () => {
      const file = write('conversations.json', JSON.stringify([{ ...chatgpt[0], mapping: undefined }, chatgpt[1], chatgpt[2]]));
      const [result] = await readAll([file], {}, limits);
      if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
      expect(result.format).toBe('chatgpt');
      expect(result.sessions.map((s) => s.sessionId)).toEqual([chatgpt[1]!.id]);
      expect(result.skipped.map((s) => s.session)).toEqual([chatgpt[0]!.id]);
    });
  }

  it('with strict, refuses the whole file as before', async () => {
    const file = write('conversations.json', JSON.stringify(damaged));
    for (const limits of [undefined, STREAM_EVERYTHING]) {
      const error = await errorOf(file, limits, { strict: true });
      expect(error.code).toBe('wrong-shape');
      expect(error.message).toMatch(/\[1\]\.mapping/);
    }
  });

  it('a file whose every conversation is damaged is refused, naming the first problem', async () => {
    const file = write('conversations.json', JSON.stringify([{ id: 'a', mapping: 7 }, { id: 'b', mapping: 7 }]));
    const error = await errorOf(file);
    expect(error.message).toMatch(/^.*conversations\.json: /);
  });
});

describe('a damaged line of a JSONL log', () => {
  const log = readFileSync(fixture('claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl'), 'utf8').split('\n');

  it('a Claude Code log with malformed lines keeps every other message, in order, and names the lines', async () => {
    const [clean] = await readAll([fixture('claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl')]);
    if (!clean || 'error' in clean) throw new Error('the fixture must read');
    const damagedLines = log.map((line, index) => (index === 7 ? line.slice(0, 40) + line.slice(60) : index === 11 ? '{"parentUuid": "cc-0009", oops' : line));
    const file = write('3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl', damagedLines.join('\n'));
    const [result] = await readAll([file]);
    if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
    expect(result.skipped.map((s) => s.line)).toEqual([8, 12]);
    expect(result.skipped.every((s) => s.file === file && /invalid JSON/.test(s.error))).toBe(true);
    const kept = result.sessions[0]!.messages.map((m) => m.msgId);
    const all = clean.sessions[0]!.messages.map((m) => m.msgId);
    expect(kept).toEqual(all.filter((id) => !id?.startsWith('cc-0006') && !id?.startsWith('cc-0010')));
  });

  it('a last line cut off by a crash is skipped as truncated, the rest imported', async () => {
    const cut = log.filter((line) => line.trim() !== '');
    const last = cut.pop()!;
    const file = write('3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl', [...cut, last.slice(0, last.length / 2)].join('\n'));
    const [result] = await readAll([file]);
    if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
    expect(result.skipped).toEqual([{ file, line: cut.length + 1, error: expect.stringMatching(/^truncated JSON/) }]);
    expect(result.sessions[0]!.messages.length).toBeGreaterThan(3);
  });

  it('a line the format cannot use is left out, named by the mapper\'s problem', async () => {
    const file = write('st.jsonl', '{"user_name":"A","character_name":"B","create_date":"2024","chat_metadata":{}}\n{"name":"B","is_user":false,"is_system":false,"send_date":1}\n{"name":"A","is_user":true,"is_system":false,"send_date":2,"mes":"hello"}\n');
    const [result] = await readAll([file]);
    if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
    expect(result.skipped).toEqual([{ file, line: 2, error: 'line 2: mes must be a string (it is missing)' }]);
    expect(result.sessions[0]!.messages.map((m) => m.content)).toEqual(['hello']);
  });

  it('a log none of whose lines the format can use is refused, naming the first line left out', async () => {
    // An OpenClaw session whose entries hang from ids that are not entries (the header's, a tool call's):
    // leaving out one line after another leaves only the header.
    const file = write('4f1c.jsonl', [
      '{"type":"session","id":"4f1c","version":3,"timestamp":"2026-02-24T09:00:00Z","cwd":"/tmp/repo"}',
      '{"type":"message","id":"m1","parentId":"4f1c","timestamp":"2026-02-24T09:00:02Z","message":{"role":"user","content":[{"type":"text","text":"List files"}]}}',
      '{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-02-24T09:00:03Z","message":{"role":"assistant","content":[{"type":"text","text":"Running ls."},{"type":"toolCall","id":"tc1","name":"exec","arguments":{"command":"ls"}}]}}',
      '{"type":"message","id":"m3","parentId":"tc1","timestamp":"2026-02-24T09:00:04Z","message":{"role":"toolResult","toolCallId":"tc1","toolName":"exec","content":"main.swift","isError":false}}',
      '',
    ].join('\n'));
    const error = await errorOf(file);
    expect(error.message).toBe(`${file}: no readable messages (line 4: parentId "tc1" is not an entry of this file)`);
  });
});
