import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, sessionsOf, tempDir, triples } from './helpers.js';

const REPORT = 'c1a2b3c4-0001-4000-8000-000000000001';
const NUMBER = 'c1a2b3c4-0002-4000-8000-000000000002';

describe('Claude.ai export', () => {
  it('maps a linear conversation, with attachments marked in the text', async () => {
    const sessions = await sessionsOf(fixture('claude', 'conversations.json'));
    // The third conversation has no messages and is not handed out.
    expect(sessions.map((session) => [session.sessionId, session.title, session.source])).toEqual([
      [REPORT, 'Summarise a report', 'claude'],
      [NUMBER, 'Pick a number', 'claude'],
    ]);
    expect(sessions[0]!.messages).toEqual([
      {
        msgId: 'm-0001',
        role: 'user',
        content: 'Summarise the attached report.\n\n[attachment: report.txt]\nQ1 revenue grew 12%.\nCosts fell 3%.\n[/attachment]',
        timestamp: '2025-03-01T10:00:01.000Z',
      },
      { msgId: 'm-0002', role: 'assistant', content: 'Revenue grew 12% and costs fell 3%.\n\nThat is well above the 5% industry average.', timestamp: '2025-03-01T10:00:09.000Z' },
      { msgId: 'm-0003', role: 'user', content: '谢谢！这张照片呢？\n\n[file: photo.png]', timestamp: '2025-03-01T10:01:00.000Z' },
      { msgId: 'm-0004', role: 'assistant', content: '照片里是一张收入图表。', timestamp: '2025-03-01T10:01:05.000Z' },
    ]);
  });

  it('names a file whose text is attached once, though the export lists it under files too', async () => {
    // As a real export of February 2025 holds a PDF the person attached, with our own text.
    const conversation = {
      uuid: 'c1a2b3c4-0003-4000-8000-000000000003',
      name: 'A PDF',
      created_at: '2025-02-24T23:10:23.376Z',
      chat_messages: [
        {
          uuid: 'm-pdf',
          sender: 'human',
          text: 'Summarise this.',
          created_at: '2025-02-24T23:10:23.376Z',
          attachments: [{ file_name: 'PDF document.pdf', file_size: 20698, file_type: 'pdf', extracted_content: 'Title: The budget' }],
          files: [{ file_name: 'PDF document.pdf' }],
        },
      ],
    };
    const file = path.join(tempDir(), 'conversations.json');
    writeFileSync(file, JSON.stringify([conversation]));
    const [session] = await sessionsOf(file);
    expect(session!.messages.map((m) => m.content)).toEqual(['Summarise this.\n\n[attachment: PDF document.pdf]\nTitle: The budget\n[/attachment]']);
  });

  it("keeps Claude's artifacts (documents and code it wrote beside the chat) as part of its answers", async () => {
    const [session] = await sessionsOf(fixture('claude', 'artifacts.json'));
    expect(triples(session!)).toEqual([
      ['m-1', 'user', 'Write a token bucket rate limiter in Python.'],
      [
        'm-2',
        'assistant',
        'Here is a token bucket per API key.\n\n[artifact: limiter.py]\nclass TokenBucket:\n    def __init__(self, rate, burst):\n        self.rate = rate\n        self.tokens = burst\n[/artifact]\n\nRefill happens on each call.',
      ],
      ['m-3', 'user', 'Make the burst 20.'],
      ['m-4', 'assistant', '[artifact update: limiter]\nself.tokens = min(burst, 20)\n[/artifact update]\n\nThe burst is capped at 20 now.'],
    ]);
    // With tools included nothing more appears: the artifact tool's "OK" says nothing.
    const [withTools] = await sessionsOf(fixture('claude', 'artifacts.json'), { include: ['tools'] });
    expect(withTools!.messages).toEqual(session!.messages);
  });

  it('follows the current leaf of a tree-shaped conversation up to its root', async () => {
    const [, tree] = await sessionsOf(fixture('claude', 'conversations.json'));
    expect(triples(tree)).toEqual([
      ['t-0001', 'user', 'Pick a number.'],
      ['t-0003', 'assistant', '42.'],
      ['t-0004', 'user', 'Why 42?'],
      ['t-0005', 'assistant', 'Douglas Adams.'],
    ]);
  });

  it('splits thinking, tool calls and tool results out of a message when asked', async () => {
    const [report] = await sessionsOf(fixture('claude', 'conversations.json'), { include: ['tools', 'thinking'] });
    expect(triples(report).slice(1, 5)).toEqual([
      ['m-0002#0', 'assistant', '[thinking] The user wants a short summary; compare with the industry.'],
      ['m-0002', 'assistant', 'Revenue grew 12% and costs fell 3%.\n\nThat is well above the 5% industry average.'],
      ['m-0002#2', 'tool', '[tool call: web_search] {"query":"industry average revenue growth Q1"}'],
      ['m-0002#3', 'tool', '[tool result: web_search] Industry average: 5%'],
    ]);
  });

  it('gives a later export the same ids for the earlier messages, plus the new ones', async () => {
    const before = await sessionsOf(fixture('claude', 'conversations.json'));
    const after = await sessionsOf(fixture('claude', 'conversations-later.json'));
    for (const [index, added] of [
      [0, [['m-0005', 'user', 'One more question: what about Q2?'], ['m-0006', 'assistant', 'The report only covers Q1.']]],
      [1, [['t-0007', 'user', 'Ha, of course.']]],
    ] as const) {
      const earlier = before[index]!;
      const later = after[index]!;
      expect(later.sessionId).toBe(earlier.sessionId);
      expect(later.messages.slice(0, earlier.messages.length)).toEqual(earlier.messages);
      expect(triples(later).slice(earlier.messages.length)).toEqual(added);
    }
  });
});
