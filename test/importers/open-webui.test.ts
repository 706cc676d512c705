import { describe, expect, it } from 'vitest';
import { fixture, sessionsOf, triples } from './helpers.js';

const WEATHER = '0b7e6c1a-9a61-4b8e-9c57-3f2f0d1e2a01';
const OLD = '5d1c2b3a-0000-4000-8000-00000000beef';

describe('Open WebUI export', () => {
  it('follows currentId up the message tree, and reads the older linear form', async () => {
    const sessions = await sessionsOf(fixture('open-webui', 'chats.json'));
    expect(sessions.map((session) => [session.sessionId, session.title, session.source])).toEqual([
      [WEATHER, 'Weather 天气', 'open-webui'],
      [OLD, 'Old chat', 'open-webui'],
    ]);
    expect(sessions[0]!.messages).toEqual([
      { msgId: 'm1', role: 'user', content: "What's the weather in Paris?", timestamp: '2024-06-10T06:13:20.000Z' },
      // The regenerated first answer (m2-first) is a sibling branch; the reasoning and tool blocks are left out.
      { msgId: 'm2', role: 'assistant', content: 'It is sunny and 22 °C in Paris.', timestamp: '2024-06-10T06:13:30.000Z' },
      { msgId: 'm3', role: 'user', content: 'Und morgen? 明天呢？', timestamp: '2024-06-10T06:14:20.000Z' },
      { msgId: 'm4', role: 'assistant', content: 'Rain, 15 °C.', timestamp: '2024-06-10T06:14:25.000Z' },
    ]);
    expect(sessions[1]!.messages).toEqual([
      { msgId: 'o1', role: 'user', content: 'Hello', timestamp: '2020-09-13T12:26:40.000Z' },
      { msgId: 'o2', role: 'assistant', content: 'Hi! How can I help?', timestamp: '2020-09-13T12:26:45.000Z' },
    ]);
  });

  it('turns reasoning and tool-call blocks into thinking and tool messages when asked', async () => {
    const [weather] = await sessionsOf(fixture('open-webui', 'chats.json'), { include: ['tools', 'thinking'] });
    expect(triples(weather).slice(1, 5)).toEqual([
      ['m2#1', 'assistant', '[thinking] The user wants the current weather.\nI will call the weather tool.'],
      ['m2#3', 'tool', '[tool call: get_weather] {"city":"Paris"}'],
      ['m2#4', 'tool', '[tool result: get_weather] Sunny, 22 °C'],
      ['m2', 'assistant', 'It is sunny and 22 °C in Paris.'],
    ]);
  });

  it('gives a later export the same ids for the earlier messages, plus the new ones', async () => {
    const [before] = await sessionsOf(fixture('open-webui', 'chats.json'));
    const [after] = await sessionsOf(fixture('open-webui', 'chats-later.json'));
    expect(after!.messages.slice(0, before!.messages.length)).toEqual(before!.messages);
    expect(triples(after).slice(before!.messages.length)).toEqual([
      ['m5', 'user', 'Thanks!'],
      ['m6', 'assistant', "You're welcome."],
    ]);
  });

  it('reads a single-chat export as Open WebUI writes it: empty id, Unix-second timestamps, a flat copy beside the tree', async () => {
    const [bare] = await sessionsOf(fixture('open-webui', 'chat-export-1733210000.json'));
    const [wrapped] = await sessionsOf(fixture('open-webui', 'chat-export-wrapped.json'));
    expect(bare!.source).toBe('open-webui');
    expect(bare!.title).toBe('🧠 Sourdough starter');
    expect(bare!.sessionId).toMatch(/^open-webui-[0-9a-f]{16}$/);
    // The same chat gets the same session id in either shape, so saving it again adds nothing.
    expect(wrapped!.sessionId).toBe(bare!.sessionId);
    expect(wrapped!.messages).toEqual(bare!.messages);
    expect(bare!.messages.map((m) => [m.role, m.timestamp])).toEqual([
      ['user', '2024-12-03T06:56:40.000Z'],
      ['assistant', '2024-12-03T06:56:52.000Z'],
      ['user', '2024-12-03T06:58:20.000Z'],
    ]);
    expect(bare!.messages[0]!.msgId).toBe('a1f0c2d4-1111-4a4a-9b9b-000000000001');
  });
});
