import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../electron/importers/index.js';
import { rewoundByTool } from '../../electron/importers/formats.js';
import { errorOf, fixture, readAll, sessionsOf, tempDir, triples } from './helpers.js';

// LM Studio 0.3.x's and Jan 0.6's layouts, with our own text (see each fixture folder's PROVENANCE.md).
const LMSTUDIO = fixture('lmstudio', 'home', '.lmstudio', 'conversations');
const TRIP = path.join(LMSTUDIO, '1765012345678.conversation.json');
const UNTITLED = path.join(LMSTUDIO, 'Trips', '1765098765432.conversation.json');
const THREAD_ID = '01JZ8K4W2Q9M3N5P7R1S3T5V7X';
const JAN_THREAD = fixture('jan', 'data', 'threads', THREAD_ID);
const JAN_MESSAGES = path.join(JAN_THREAD, 'messages.jsonl');

describe('LM Studio conversations', () => {
  it('reads the version each message shows, with its place and version as its id, the chat\'s name and times', async () => {
    const [session] = await sessionsOf(TRIP);
    expect(session).toMatchObject({ sessionId: '1765012345678', source: 'lmstudio', title: 'Night train to Vienna' });
    // The first answer's first version and the first wording of the second prompt are versions the person left.
    expect(triples(session)).toEqual([
      ['0:0', 'user', 'Which night train goes from Zürich to Vienna? My ticket is attached.\n\n[image]'],
      ['1:1', 'assistant', 'It is the Nightjet NJ 467: it leaves Zürich HB at 21:40 and reaches Wien Hbf at 07:49.'],
      ['2:1', 'user', 'Does the NJ 467 carry bicycles?'],
      ['3:0', 'assistant', 'Yes: six bicycle spaces, and a bicycle reservation is required.'],
    ]);
    expect(session!.messages.map((m) => m.timestamp)).toEqual(['2025-12-06T09:12:25.678Z', undefined, '2025-12-06T09:12:48.000Z', '2025-12-06T09:12:55.000Z']);
    // The system prompt is a setting, not dialogue.
    expect(session!.messages.some((m) => m.content.includes('careful travel assistant'))).toBe(false);
  });

  it('adds reasoning (a thinking block, or <think> in the text) and tool calls with their results only when asked', async () => {
    const [full] = await sessionsOf(TRIP, { include: ['tools', 'thinking'] });
    expect(triples(full)).toEqual([
      ['0:0', 'user', 'Which night train goes from Zürich to Vienna? My ticket is attached.\n\n[image]'],
      ['1:1#0', 'assistant', '[thinking] The ticket shows a Nightjet; the only Nightjet from Zürich to Vienna is NJ 467.'],
      ['1:1', 'assistant', 'It is the Nightjet NJ 467: it leaves Zürich HB at 21:40 and reaches Wien Hbf at 07:49.'],
      ['2:1', 'user', 'Does the NJ 467 carry bicycles?'],
      ['3:0#0', 'tool', '[tool call: search_timetable] {"train":"NJ 467","feature":"bicycles"}'],
      ['3:0#1', 'tool', '[tool result: search_timetable] [{"type":"text","text":"NJ 467: bicycle spaces 6, reservation required"}]'],
      ['3:0#3', 'assistant', '[thinking] The timetable says six spaces with a reservation.'],
      ['3:0', 'assistant', 'Yes: six bicycle spaces, and a bicycle reservation is required.'],
    ]);
    const [thinkingOnly] = await sessionsOf(TRIP, { include: ['thinking'] });
    expect(thinkingOnly!.messages.filter((m) => m.role === 'tool')).toEqual([]);
    expect(thinkingOnly!.messages.filter((m) => m.content.startsWith('[thinking]'))).toHaveLength(2);
  });

  it('switching to another version makes the version left a message the app no longer shows', async () => {
    const chat = JSON.parse(readFileSync(TRIP, 'utf8')) as { messages: Array<{ currentlySelected: number }> };
    chat.messages[1]!.currentlySelected = 0;
    const file = path.join(tempDir(), '1765012345678.conversation.json');
    writeFileSync(file, JSON.stringify(chat));
    const [session] = await sessionsOf(file);
    expect(triples(session)[1]).toEqual(['1:0', 'assistant', 'The EuroNight 40467 is the one; it stopped running in 2023.']);
    const dropped = rewoundByTool('lmstudio', [{ lineNo: 1, value: chat }])!;
    expect(['1:1', '1:1#0', '4:0'].map(dropped)).toEqual([true, true, true]);
    expect(['0:0', '1:0', '2:1', '3:0#1'].map(dropped)).toEqual([false, false, false, false]);
  });

  it('titles an unnamed chat by its first prompt, and a folder of chats is found with its sub-folders', async () => {
    const results = await readAll([LMSTUDIO]);
    expect(results.map((r) => ('format' in r ? [path.relative(LMSTUDIO, r.file), r.format, r.sessions[0]!.title] : r.error.message))).toEqual([
      ['1765012345678.conversation.json', 'lmstudio', 'Night train to Vienna'],
      [path.join('Trips', '1765098765432.conversation.json'), 'lmstudio', 'Packing list for a couchette:'],
    ]);
    const [untitled] = await sessionsOf(UNTITLED);
    expect(untitled!.sessionId).toBe('1765098765432');
  });

  it('refuses a chat cut off mid-write, naming the file and the byte, and one whose message is not an object', async () => {
    const text = readFileSync(TRIP, 'utf8');
    const cut = path.join(tempDir(), '1765012345678.conversation.json');
    const bytes = Buffer.from(text).subarray(0, 700);
    writeFileSync(cut, bytes);
    expect(await errorOf(cut)).toMatchObject({ file: cut, code: 'truncated', problem: 'truncated JSON at byte 700' });

    const chat = JSON.parse(text) as { messages: unknown[] };
    chat.messages[2] = { versions: 'lost', currentlySelected: 0 };
    const damaged = path.join(tempDir(), 'broken.conversation.json');
    writeFileSync(damaged, JSON.stringify(chat));
    expect(await errorOf(damaged)).toMatchObject({ file: damaged, code: 'wrong-shape', problem: 'messages[2].versions must be an array (found string)' });
  });
});

describe('Jan threads', () => {
  it('reads a thread\'s messages with Jan\'s ids and times, titled by its thread.json', async () => {
    const [session] = await sessionsOf(JAN_MESSAGES);
    expect(session).toMatchObject({ sessionId: THREAD_ID, source: 'jan', title: 'Bicycles on the night train' });
    expect(session!.messages.map((m) => [m.msgId, m.role, m.content, m.timestamp])).toEqual([
      ['01JZ8K5A0B1C2D3E4F5G6H7J8K', 'user', 'Can I take my bicycle on the Nightjet from Zürich to Vienna?', '2025-12-08T13:20:10.000Z'],
      ['01JZ8K5Q9R8S7T6V5W4X3Y2Z1A', 'assistant', 'Yes, the NJ 467 carries bicycles; book a bicycle space with your ticket.', '2025-12-08T13:20:30.000Z'],
      ['01JZ8K6B7C8D9E0F1G2H3J4K5L', 'user', 'How much does the bicycle space cost?\n\n[image]', '2025-12-08T13:21:00.000Z'],
      ['01JZ8K6Z5Y4X3W2V1T0S9R8Q7P', 'assistant', 'A bicycle space costs 12 euros each way.', '2025-12-08T13:21:30.000Z'],
    ]);
  });

  it('adds the tools a reply called and its reasoning only when asked', async () => {
    const [full] = await sessionsOf(JAN_MESSAGES, { include: ['tools', 'thinking'] });
    expect(triples(full).slice(0, 5)).toEqual([
      ['01JZ8K5A0B1C2D3E4F5G6H7J8K', 'user', 'Can I take my bicycle on the Nightjet from Zürich to Vienna?'],
      ['01JZ8K5Q9R8S7T6V5W4X3Y2Z1A#0', 'tool', '[tool call: fetch] {"url":"https://www.nightjet.com/en/bicycles"}'],
      ['01JZ8K5Q9R8S7T6V5W4X3Y2Z1A#1', 'tool', '[tool result: fetch] Bicycle spaces must be booked in advance.'],
      ['01JZ8K5Q9R8S7T6V5W4X3Y2Z1A#3', 'assistant', '[thinking] Look up the bicycle rules first.'],
      ['01JZ8K5Q9R8S7T6V5W4X3Y2Z1A', 'assistant', 'Yes, the NJ 467 carries bicycles; book a bicycle space with your ticket.'],
    ]);
    const [toolsOnly] = await sessionsOf(JAN_MESSAGES, { include: ['tools'] });
    expect(toolsOnly!.messages.filter((m) => m.content.startsWith('[thinking]'))).toEqual([]);
    expect(toolsOnly!.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it('a folder of threads gives each thread once, its thread.json read for the title and not as a transcript', async () => {
    const results = await readAll([fixture('jan', 'data')]);
    expect(results.map((r) => ('format' in r ? [path.basename(r.file), r.format, r.sessions[0]!.title] : r.error.message))).toEqual([['messages.jsonl', 'jan', 'Bicycles on the night train']]);
  });

  it('without its thread.json a thread is titled by its first prompt; a damaged line is skipped and named, the rest read', async () => {
    const lines = readFileSync(JAN_MESSAGES, 'utf8').split('\n').filter(Boolean);
    const folder = path.join(tempDir(), THREAD_ID);
    const file = path.join(folder, 'messages.jsonl');
    mkdirSync(folder);
    const wrongShape = JSON.stringify({ ...JSON.parse(lines[3]!), content: 'twelve euros' });
    writeFileSync(file, `${lines[0]}\n${lines[1]}\n{"id":"01JZ8K6B7C8D9E0F1G2H3J4K5L","role":"us\n${wrongShape}\n`);
    const [result] = await readAll([file]);
    if (!result || 'error' in result) throw new Error('expected the thread to be read');
    expect(result.sessions[0]!.title).toBe('Can I take my bicycle on the Nightjet from Zürich to Vienna?');
    expect(result.sessions[0]!.messages.map((m) => m.msgId)).toEqual(['01JZ8K5A0B1C2D3E4F5G6H7J8K', '01JZ8K5Q9R8S7T6V5W4X3Y2Z1A']);
    expect(result.skipped).toEqual([
      { file, line: 3, error: expect.stringMatching(/invalid JSON|truncated/) },
      { file, line: 4, error: 'line 4: content must be an array (found string)' },
    ]);
  });
});

describe('recognising LM Studio and Jan by content', () => {
  it('whatever the files are called', () => {
    expect(detectFormat(readFileSync(TRIP))).toBe('lmstudio');
    expect(detectFormat(readFileSync(JAN_MESSAGES))).toBe('jan');
    // One line of a thread alone is still Jan's.
    expect(detectFormat(readFileSync(JAN_MESSAGES, 'utf8').split('\n')[0]!)).toBe('jan');
    // A new chat LM Studio wrote before its first message is still LM Studio's; Jan's thread.json is no transcript.
    const { messages: _messages, ...settings } = JSON.parse(readFileSync(TRIP, 'utf8')) as Record<string, unknown>;
    expect(detectFormat(JSON.stringify({ ...settings, name: 'New Chat', messages: [] }))).toBe('lmstudio');
    expect(detectFormat(readFileSync(path.join(JAN_THREAD, 'thread.json')))).toBeUndefined();
  });
});
