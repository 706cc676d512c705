/**
 * Partial imports: the unit of damage is a conversation (multi-conversation exports) or a line (JSONL logs).
 * A damaged unit is skipped and named; the rest is imported. `strict` keeps all-or-nothing per file.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findCutArray } from '../../electron/importers/readers/json-cut.js';
import { hashEngineTestBed } from '../helpers/engine.js';
import { errorOf, fixture, readAll, STREAM_EVERYTHING, tempDir } from './helpers.js';

function write(name: string, content: string | Buffer): string {
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

  for (const [name, limits] of [['read whole', undefined], ['streamed', STREAM_EVERYTHING]] as const) {
    it(`a last line cut off in the middle of a character is skipped as truncated, the rest imported (${name})`, async () => {
      // The cut falls inside a character of three bytes (京), as a Chinese or Hebrew log copied short does.
      const lines = log.filter((line) => line.trim() !== '');
      const last = lines.pop()!.replace(/"text":"[^"]*"/, '"text":"去京都"');
      const bytes = Buffer.from([...lines, last].join('\n'));
      const cutAt = bytes.lastIndexOf(Buffer.from('京')) + 1;
      const file = write('3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl', bytes.subarray(0, cutAt));
      const [result] = await readAll([file], {}, limits);
      if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
      expect(result.skipped).toEqual([{ file, line: lines.length + 1, error: expect.stringMatching(/^truncated JSON/) }]);
      const [whole] = await readAll([write('whole.jsonl', Buffer.from(lines.join('\n')))], {}, limits);
      if (!whole || 'error' in whole) throw new Error('the complete lines must read');
      expect(result.sessions[0]!.messages.map((m) => m.msgId)).toEqual(whole.sessions[0]!.messages.map((m) => m.msgId));
    });
  }

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

describe('an export cut off by an interrupted download or copy', () => {
  const later = JSON.parse(readFileSync(fixture('chatgpt', 'conversations-later.json'), 'utf8')) as Array<Record<string, unknown>>;
  const [packing, kyoto, short] = later as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
  /** Brackets, braces, escaped quotes, a backslash and multi-byte characters, inside a string. */
  const TRICKY = 'Is "]}, {" the end? C:\\temp\\ 京都 🚄 ]]';
  /** The conversation with the text of its message `msgId` replaced. */
  const withText = (conversation: Record<string, unknown>, msgId: string, text: string): Record<string, unknown> => {
    const copy = structuredClone(conversation) as { mapping: Record<string, { message: { content: { parts: string[] } } | null }> };
    copy.mapping[msgId]!.message!.content.parts = [text];
    return copy;
  };
  const exportOf = (...conversations: Array<Record<string, unknown>>) => Buffer.from(JSON.stringify(conversations, null, 2));
  const full = exportOf(packing, withText(kyoto, 'u-1', TRICKY), withText(short, 'b-u', TRICKY));
  /** Where the third conversation starts in `full`. */
  const thirdStart = full.lastIndexOf('\n  {');
  const cutIn = (bytes: Buffer, end: number) => write('conversations.json', bytes.subarray(0, end));
  const cutPart = (file: string, size: number) => ({
    file,
    session: '[2]',
    error: `truncated: the file is cut off at byte ${size}, after 2 complete conversations; this last, partial conversation was not imported (a fresh export or copy of the file brings it and the rest)`,
  });

  for (const [name, limits] of [['read whole', undefined], ['streamed', STREAM_EVERYTHING]] as const) {
    it(`imports the complete conversations and names the file, the byte and the partial conversation that was not imported (${name})`, async () => {
      const end = thirdStart + Math.floor((full.length - thirdStart) / 2);
      const file = cutIn(full, end);
      const [result] = await readAll([file], {}, limits);
      if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
      expect(result.format).toBe('chatgpt');
      expect(result.sessions.map((s) => s.sessionId)).toEqual([packing.id, kyoto.id]);
      expect(result.sessionCount).toBe(2);
      expect(result.skipped).toEqual([cutPart(file, end)]);
      // The complete conversation that holds the tricky text keeps it as it was.
      expect(result.sessions[1]!.messages.find((m) => m.msgId === 'u-1')!.content).toBe(TRICKY);
    });

    it(`is cut inside a string holding brackets, braces, escaped quotes or a multi-byte character (${name})`, async () => {
      const third = full.subarray(thirdStart);
      const json = Buffer.from(JSON.stringify(TRICKY).slice(1, -1));
      const inText = thirdStart + third.indexOf(json);
      const kyotoByte = Buffer.from('京都')[0]!;
      const trainByte = Buffer.from('🚄')[0]!;
      const ends = [
        full.indexOf(Buffer.from(']'), inText) + 1, // after "]" in the string
        full.indexOf(Buffer.from('}'), inText) + 1, // after "}"
        full.indexOf(Buffer.from('\\"'), inText) + 1, // between the backslash and the quote it escapes
        full.indexOf(Buffer.from('\\"'), inText) + 2, // after the escaped quote
        full.indexOf(kyotoByte, inText) + 1, // one byte into 京
        full.indexOf(trainByte, inText) + 2, // two bytes into 🚄
        full.indexOf(Buffer.from(']]'), inText) + 2, // after "]]" at the end of the string
      ];
      for (const end of ends) {
        const file = cutIn(full, end);
        const [result] = await readAll([file], {}, limits);
        if (!result || 'error' in result) throw new Error(`cut at ${end}: expected sessions, got ${JSON.stringify(result)}`);
        expect(result.sessions.map((s) => s.sessionId), `cut at ${end}`).toEqual([packing.id, kyoto.id]);
        expect(result.skipped, `cut at ${end}`).toEqual([cutPart(file, end)]);
      }
    });

    it(`cut just after a complete conversation, names no partial one (${name})`, async () => {
      const end = full.lastIndexOf('}') + 1;
      const file = cutIn(full, end);
      const [result] = await readAll([file], {}, limits);
      if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
      expect(result.sessions.map((s) => s.sessionId)).toEqual([packing.id, kyoto.id, short.id]);
      expect(result.skipped).toEqual([{ file, error: `truncated: the file is cut off at byte ${end}, after 3 complete conversations; a fresh export or copy of the file brings the rest` }]);
    });

    it(`with no complete conversation, is still refused, naming the file (${name})`, async () => {
      const firstInside = cutIn(full, 200);
      expect(await errorOf(firstInside, limits)).toMatchObject({ code: 'truncated', file: firstInside, message: `${firstInside}: truncated JSON at byte 200` });
      const cjk = Buffer.from(JSON.stringify([withText(short, 'b-u', '京都')]));
      const midCharacter = cutIn(cjk, cjk.indexOf(kyotoFirstByte()) + 1);
      expect(await errorOf(midCharacter, limits)).toMatchObject({ code: 'truncated', file: midCharacter, message: expect.stringMatching(/truncated in the middle of a UTF-8 character/) });
      const fixtureFile = fixture('bad', 'truncated-conversations.json');
      expect(await errorOf(fixtureFile, limits)).toMatchObject({ code: 'truncated', message: `${fixtureFile}: truncated JSON at byte 2500` });
    });

    it(`a cut list of one conversation's messages stays refused: it is one conversation (${name})`, async () => {
      const messages = Buffer.from(JSON.stringify([{ role: 'user', content: 'Plan a weekend in Kyoto.' }, { role: 'assistant', content: 'Day 1: Fushimi Inari.' }, { role: 'user', content: 'And day 2?' }]));
      const file = write('messages.json', messages.subarray(0, messages.length - 20));
      expect(await errorOf(file, limits)).toMatchObject({ code: 'truncated', file });
    });
  }

  it('with strict, refuses the whole file as before', async () => {
    const file = cutIn(full, thirdStart + 40);
    for (const limits of [undefined, STREAM_EVERYTHING]) {
      expect(await errorOf(file, limits, { strict: true })).toMatchObject({ code: 'truncated', message: `${file}: truncated JSON at byte ${thirdStart + 40}` });
    }
  });

  it('finds the end of the last complete element wherever the array is cut', async () => {
    const elements: unknown[] = [{ a: TRICKY, b: [1, { c: '\\' }] }, 'a "string" element ]', 42, { nested: [[['京']], { '}': '{' }] }, null, { last: '🚄"' }];
    const text = Buffer.from(`\uFEFF [\n${elements.map((e) => JSON.stringify(e, null, 1)).join(' ,\n')}\n]`);
    // Where each element ends, in bytes.
    const ends: number[] = [];
    let at = text.indexOf('[') + 1;
    for (const element of elements) {
      const bytes = Buffer.from(JSON.stringify(element, null, 1));
      at = text.indexOf(bytes, at) + bytes.length;
      ends.push(at);
    }
    for (let end = text.indexOf('[') + 1; end < text.length - 1; end++) {
      const cut = await findCutArray([text.subarray(0, Math.floor(end / 2)), text.subarray(Math.floor(end / 2), end)]);
      // A number or a word at the very end may be cut short (`nul`): it is not counted until something follows it.
      const complete = ends.filter((e, i) => e < end || (e === end && typeof elements[i] === 'object' && elements[i] !== null) || (e === end && typeof elements[i] === 'string')).length;
      expect(cut?.complete, `cut at ${end}`).toBe(complete);
      const prefix = Buffer.concat([text.subarray(0, cut!.completeEnd), Buffer.from(']')]).toString('utf8').replace(/^\uFEFF/, '');
      expect(JSON.parse(prefix), `cut at ${end}`).toEqual(elements.slice(0, complete));
    }
    expect(await findCutArray([text])).toBeUndefined();
    expect(await findCutArray([Buffer.from('{"conversations": [')])).toBeUndefined();
  });

  it('being written into a watched folder, saves the complete conversations and waits for the rest', async () => {
    const { saveTranscriptFile } = await import('../../electron/sources/saveFile.js');
    const saved: string[] = [];
    const skipped: unknown[] = [];
    const engine = { save: async (session: { sessionId: string }) => (saved.push(session.sessionId), { sessionId: session.sessionId }) as never };
    const file = cutIn(full, thirdStart + 300);
    expect(await saveTranscriptFile(engine, file, { onReport: () => {}, onSkipped: (part) => skipped.push(part) })).toBe('waiting');
    expect(saved).toEqual([packing.id, kyoto.id]);
    expect(skipped).toEqual([]);
  });

  describe('then the complete file', () => {
    const bed = hashEngineTestBed();

    it('adds only what the cut file lacked, and loses nothing stored', async () => {
      const engine = await bed.open(bed.dataDir());
      try {
        const saveAll = async (file: string) => {
          const [result] = await readAll([file]);
          if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
          const added: Record<string, number> = {};
          for (const session of result.sessions) added[session.sessionId] = (await engine.save(session)).new;
          return added;
        };
        const cut = await saveAll(cutIn(full, thirdStart + 300));
        expect(Object.keys(cut)).toEqual([packing.id, kyoto.id]);
        const stored = await engine.listSessions();
        const whole = await saveAll(write('conversations.json', full));
        expect(whole).toEqual({ [packing.id as string]: 0, [kyoto.id as string]: 0, [short.id as string]: 2 });
        const after = await engine.listSessions();
        for (const before of stored) expect(after.find((s) => s.sessionId === before.sessionId)?.messageCount).toBe(before.messageCount);
        expect(after).toHaveLength(3);
      } finally {
        await engine.close();
      }
    });
  });
});

function kyotoFirstByte(): number {
  return Buffer.from('京')[0]!;
}
