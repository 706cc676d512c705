import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, sessionsOf, tempDir, triples } from './helpers.js';

const CHAT = fixture('sillytavern', 'Seraphina - 2024-05-01@12h30m15s.jsonl');
const SESSION = 'sillytavern-b62b9d65bc12199d';

/** "May 1, 2024 12:30pm" carries no zone: it is a local time of the machine that ran SillyTavern. */
const local = (hours: number, minutes: number) => new Date(2024, 4, 1, hours, minutes).toISOString();

describe('SillyTavern chat', () => {
  it('maps the shown swipe of every message, with ids from line number and content', async () => {
    const [session] = await sessionsOf(CHAT);
    expect(session!.sessionId).toBe(SESSION);
    expect(session!.title).toBe('Seraphina - 2024-05-01@12h30m15s');
    expect(session!.source).toBe('sillytavern');
    expect(session!.messages).toEqual([
      { msgId: `${SESSION}:2:6afd3b6d919e`, role: 'assistant', content: '*Seraphina smiles.* Welcome, traveller.', speaker: 'Seraphina', timestamp: local(12, 30) },
      { msgId: `${SESSION}:3:4cd850234391`, role: 'user', content: 'Where am I?', speaker: 'Ana', timestamp: local(12, 31) },
      // swipe_id 1 is shown, whatever `mes` says.
      { msgId: `${SESSION}:4:2fd073a812f8`, role: 'assistant', content: '*She gestures around.* This is the Whispering Forest, my home.', speaker: 'Seraphina', timestamp: local(12, 32) },
      // The narrator's name is the app's ("SillyTavern System"), not a speaker's.
      { msgId: `${SESSION}:5:b99fa5f06ea0`, role: 'system', content: 'Ana has entered the Whispering Forest.', timestamp: local(12, 33) },
      { msgId: `${SESSION}:6:f3569953af71`, role: 'user', content: '我想回家。', speaker: 'Ana', timestamp: '2024-05-01T10:34:00.000Z' },
      { msgId: `${SESSION}:7:55430bdbe551`, role: 'assistant', content: '*She nods.* Then follow the river north.', speaker: 'Seraphina', timestamp: '2024-05-01T10:35:00.000Z' },
    ]);
  });

  it("keeps each message's name as who said it, but not the placeholder or an empty name", async () => {
    const file = path.join(tempDir(), 'names.jsonl');
    const lines = [
      { user_name: 'unused', character_name: 'unused', create_date: '2025-01-01@10h00m00s', chat_metadata: {} },
      { name: 'unused', is_user: false, is_system: false, send_date: '2025-01-01T10:00:00.000Z', mes: 'A greeting.', extra: {} },
      { name: '  ', is_user: true, is_system: false, send_date: '2025-01-01T10:01:00.000Z', mes: 'A reply.', extra: {} },
      { name: ' Nyx ', is_user: false, is_system: false, send_date: '2025-01-01T10:02:00.000Z', mes: 'Named.', extra: {} },
    ];
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
    const [session] = await sessionsOf(file);
    expect(session!.messages.map((m) => [m.content, m.speaker])).toEqual([
      ['A greeting.', undefined],
      ['A reply.', undefined],
      ['Named.', 'Nyx'],
    ]);
  });

  it("keeps a message hidden from the model as its speaker's, under the id it has when shown, and takes a time kept only in the shown swipe's record", async () => {
    // As a group chat of September 2026 holds its lines (jam4435/sillytavern0011), with our own text: the
    // reply, written by the card's regenerate script, has no send_date of its own.
    const header = { user_name: '墨逸', character_name: '金庸群侠传', create_date: '2026-09-15@19h27m59s', chat_metadata: {} };
    const ask = { name: '墨逸', is_user: true, is_system: false, send_date: 'September 20, 2026 3:02pm', mes: '我拱手道：在下墨逸。', extra: {} };
    const reply = { name: '金庸群侠传', is_user: false, is_system: false, mes: '丘处机点头道：好。', extra: { api: 'custom', model: 'x' }, swipe_id: 1, swipes: ['旧的回答。', '丘处机点头道：好。'], swipe_info: [{ send_date: 1789916500000, extra: {} }, { send_date: 1789916583918, extra: {} }] };
    const note = { name: 'SillyTavern System', is_user: false, is_system: true, send_date: 'September 20, 2026 3:04pm', mes: '墨逸 has left.', extra: { type: 'narrator' } };
    const write = (name: string, lines: unknown[]) => {
      const file = path.join(tempDir(), name);
      writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
      return file;
    };
    const [shown] = await sessionsOf(write('shown.jsonl', [header, ask, reply, note]));
    // The ghost icon (or /hide) sets is_system on the reply: hidden from the model, still the character's words.
    const [hidden] = await sessionsOf(write('hidden.jsonl', [header, ask, { ...reply, is_system: true }, note]));
    for (const session of [shown, hidden]) {
      expect(session!.messages.map((m) => [m.role, m.speaker, m.content, m.timestamp])).toEqual([
        ['user', '墨逸', '我拱手道：在下墨逸。', '2026-09-20T15:02:00.000Z'],
        ['assistant', '金庸群侠传', '丘处机点头道：好。', '2026-09-20T15:03:03.918Z'],
        ['system', undefined, '墨逸 has left.', '2026-09-20T15:04:00.000Z'],
      ]);
    }
    expect(hidden!.messages.map((m) => m.msgId)).toEqual(shown!.messages.map((m) => m.msgId));
  });

  it('includes the reasoning of a message when asked', async () => {
    const [session] = await sessionsOf(CHAT, { include: ['thinking'] });
    expect(triples(session).slice(2, 4)).toEqual([
      [`${SESSION}:4:2fd073a812f8#0`, 'assistant', '[thinking] She should explain where the traveller is.'],
      [`${SESSION}:4:2fd073a812f8`, 'assistant', '*She gestures around.* This is the Whispering Forest, my home.'],
    ]);
  });

  it('keeps earlier ids when lines are appended, and derives the session from the header, not the file name', async () => {
    const file = path.join(tempDir(), 'renamed.jsonl');
    copyFileSync(CHAT, file);
    appendFileSync(file, JSON.stringify({ name: 'Ana', is_user: true, is_system: false, send_date: '2024-05-02T08:00:00.000Z', mes: 'Thank you!', extra: {} }) + '\n');
    const [before] = await sessionsOf(CHAT);
    const [after] = await sessionsOf(file);
    expect(after!.sessionId).toBe(SESSION);
    expect(after!.messages.slice(0, before!.messages.length)).toEqual(before!.messages);
    expect(triples(after).slice(before!.messages.length)).toEqual([[`${SESSION}:8:e3dd9796ef9e`, 'user', 'Thank you!']]);
  });

  it('gives a message a new id when another swipe is shown, and leaves the others alone', async () => {
    const file = path.join(tempDir(), 'swiped.jsonl');
    const lines = readFileSync(CHAT, 'utf8').split('\n');
    lines[3] = lines[3]!.replace('"swipe_id":1', '"swipe_id":0');
    writeFileSync(file, lines.join('\n'));
    const [before] = await sessionsOf(CHAT);
    const [after] = await sessionsOf(file);
    const changed = after!.messages.findIndex((message, index) => message.msgId !== before!.messages[index]!.msgId);
    expect(changed).toBe(2);
    expect(after!.messages[2]!.content).toBe('You are in the glade.');
    expect(after!.messages.filter((_, index) => index !== 2)).toEqual(before!.messages.filter((_, index) => index !== 2));
  });

  it('titles a chat of a current version, whose header says "unused", by the character and date of its file name', async () => {
    const [session] = await sessionsOf(fixture('sillytavern', 'Nyx - 2025-02-14@21h05m09s - Branch #2.jsonl'));
    expect(session!.title).toBe('Nyx - 2025-02-14@21h05m09s - Branch #2');
    expect(session!.messages.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant']);
    expect(session!.messages[1]!.content).toBe('Which constellation is that?\r\nThe one by the window.');
    // Renamed, the file still gets a title a person recognises: the character from its messages, the date from the header.
    const renamed = path.join(tempDir(), 'chat.jsonl');
    copyFileSync(fixture('sillytavern', 'Nyx - 2025-02-14@21h05m09s - Branch #2.jsonl'), renamed);
    const [again] = await sessionsOf(renamed);
    expect(again!.title).toBe('Nyx - 2025-02-14@21h05m09s');
    expect(again!.sessionId).toBe(session!.sessionId);
  });

  it('reads the dates of a chat of early 2023: epoch milliseconds in the header, month and day without a leading zero', async () => {
    const file = path.join(tempDir(), '1673323621108.jsonl');
    writeFileSync(file, [
      { user_name: 'You', character_name: 'Mira', create_date: 1674559900991, chat_metadata: { note_prompt: '' } },
      { name: 'Mira', is_user: false, is_name: true, send_date: '2023-4-21 @20h 02m 47s 124ms', mes: 'The archive opens at dawn.' },
      { name: 'You', is_user: true, is_name: true, send_date: '2023-4-21 @20h 03m 06s 446ms', mes: 'Then we wait by the gate.', extra: {} },
    ].map((line) => JSON.stringify(line)).join('\n') + '\n');
    const [session] = await sessionsOf(file);
    // SillyTavern lists the chat by its local creation time, as it names the files of later versions.
    const created = new Date(1674559900991);
    const two = (value: number) => String(value).padStart(2, '0');
    expect(session!.title).toBe(`Mira - ${created.getFullYear()}-${two(created.getMonth() + 1)}-${two(created.getDate())}@${two(created.getHours())}h${two(created.getMinutes())}m${two(created.getSeconds())}s`);
    expect(session!.messages.map((m) => m.timestamp)).toEqual([new Date(2023, 3, 21, 20, 2, 47).toISOString(), new Date(2023, 3, 21, 20, 3, 6).toISOString()]);
  });
});
