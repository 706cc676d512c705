import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { detectFormat } from '../../electron/importers/index.js';
import { fixture, sessionsOf } from './helpers.js';

const EXPORT = fixture('deepseek', 'conversations.json');

describe('DeepSeek export', () => {
  it('keeps the newest answer, without citation marks, reasoning or searches, with the files named', async () => {
    const [session] = await sessionsOf(EXPORT);
    expect(session).toMatchObject({ sessionId: '3f9a2c1e-7b4d-4e8f-a1c2-5d6e7f8a9b0c', title: '杭州周末行程', source: 'deepseek' });
    expect(session!.messages).toEqual([
      { msgId: '1', role: 'user', content: '[file: itinerary.pdf]\n\n帮我规划杭州周末两天的行程，参考附件。', timestamp: '2026-04-04T02:00:01.000Z' },
      // The regenerated answer (node 3), not the first one (node 2).
      { msgId: '3', role: 'assistant', content: '第一天：西湖和雷峰塔。第二天：灵隐寺，7:00开门。', timestamp: '2026-04-04T02:01:00.000Z' },
      { msgId: '4', role: 'user', content: 'Which day is better for the tea fields in Longjing?', timestamp: '2026-04-04T02:05:00.000Z' },
      { msgId: '5', role: 'assistant', content: 'Day two: Longjing village is close to Lingyin Temple.', timestamp: '2026-04-04T02:05:30.000Z' },
    ]);
  });

  it('keeps the reasoning and the searches when asked for, with ids of their own', async () => {
    const [session] = await sessionsOf(EXPORT, { include: ['thinking', 'tools'] });
    const extras = session!.messages.filter((message) => message.msgId?.startsWith('3#'));
    expect(extras.map((message) => [message.role, message.content])).toEqual([
      ['assistant', '[thinking] 用户想要两天的行程，先查一下灵隐寺的开放时间。'],
      ['tool', '[tool result: search] 灵隐寺开放时间 — https://example.org/lingyin — 每天7:00-18:00'],
    ]);
    expect(session!.messages.find((message) => message.msgId === '3')!.content).toBe('第一天：西湖和雷峰塔。第二天：灵隐寺，7:00开门。');
  });

  it('is told apart from a ChatGPT export, whose tree it shares', () => {
    expect(detectFormat(readFileSync(EXPORT))).toBe('deepseek');
    expect(detectFormat(readFileSync(fixture('chatgpt', 'conversations.json')))).toBe('chatgpt');
  });
});
