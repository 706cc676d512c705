import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, sessionsOf, tempDir, triples } from './helpers.js';

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

  it('reads a chat whose currentId names a deleted message along its newest message, as a repair of it does', async () => {
    const chats = JSON.parse(readFileSync(fixture('open-webui', 'chats.json'), 'utf8')) as Array<{ chat: { history: { currentId: string; messages: Record<string, { childrenIds?: string[] }> } } }>;
    const [whole] = await sessionsOf(fixture('open-webui', 'chats.json'));
    // Open WebUI cannot open such a chat; the damage seen in a real export also names a child that is gone.
    chats[0]!.chat.history.currentId = 'deleted-node-0000';
    chats[0]!.chat.history.messages.m4!.childrenIds = ['gone-0001'];
    // And a newer message left without its parent, which no repair can lead to.
    Object.assign(chats[0]!.chat.history.messages, { orphan: { id: 'orphan', parentId: 'ghost-parent', childrenIds: [], role: 'assistant', content: 'lost', timestamp: 1999999999 } });
    const file = path.join(tempDir(), 'chats.json');
    writeFileSync(file, JSON.stringify(chats));
    const [repaired] = await sessionsOf(file);
    expect(repaired!.messages).toEqual(whole!.messages);
  });

  it("reads reasoning and a tool's arguments written HTML-escaped, as Open WebUI of 2026 writes them", async () => {
    // The reply's shape as a real export of March 2026 holds it (grok-4.1-fast), with our own text.
    const reply = [
      '<details type="reasoning" done="true" duration="1">',
      '<summary>Thought for 1 seconds</summary>',
      '&gt; First, the user&#x27;s message: &quot;my friend told me the &#x27;under where&#x27; joke&quot;',
      '&gt; Keep it light; no &lt;policy&gt; talk.',
      '</details>',
      '<details type="tool_calls" done="true" id="call_1" name="search" arguments="{&quot;q&quot;: &quot;the &#x27;under where&#x27; joke&quot;}" result="&quot;It&#x27;s a pun.&quot;" files="">',
      '<summary>Tool Executed</summary>',
      '</details>',
      'Haha, the classic "underwear" pun? Peak dad-joke territory.',
    ].join('\n');
    const chat = {
      id: 'c0ffee00-0000-4000-8000-000000000001',
      title: 'test',
      chat: {
        history: {
          currentId: 'r1',
          messages: {
            q1: { id: 'q1', parentId: null, childrenIds: ['r1'], role: 'user', content: "my friend told me the 'under where' joke and it's awful", timestamp: 1773217735 },
            r1: { id: 'r1', parentId: 'q1', childrenIds: [], role: 'assistant', content: reply, timestamp: 1773217740 },
          },
        },
      },
    };
    const file = path.join(tempDir(), 'chat-export.json');
    writeFileSync(file, JSON.stringify([chat]));
    const [session] = await sessionsOf(file, { include: ['tools', 'thinking'] });
    expect(triples(session).slice(1)).toEqual([
      ['r1#1', 'assistant', "[thinking] First, the user's message: \"my friend told me the 'under where' joke\"\nKeep it light; no <policy> talk."],
      ['r1#3', 'tool', '[tool call: search] {"q":"the \'under where\' joke"}'],
      ['r1#4', 'tool', "[tool result: search] It's a pun."],
      ['r1', 'assistant', 'Haha, the classic "underwear" pun? Peak dad-joke territory.'],
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
