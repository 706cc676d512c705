import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorOf, fixture, sessionsOf, tempDir } from './helpers.js';

describe("the engine's own JSON", () => {
  it('reads one session, with and without message ids', async () => {
    expect(await sessionsOf(fixture('json', 'session.json'))).toEqual([
      {
        sessionId: 'notes-2025-02-14',
        title: "Valentine's dinner ideas",
        source: 'json',
        messages: [
          { msgId: 'n1', role: 'user', content: 'Ideas for a dinner at home?', timestamp: '2025-02-14T18:00:00Z' },
          { msgId: 'n2', role: 'assistant', content: 'Risotto, then a chocolate fondant.', timestamp: '2025-02-14T18:00:05Z' },
          { role: 'user', content: 'Vegetarian risotto, please.' },
        ],
      },
    ]);
  });

  it('reads an array of sessions, snake_case and camelCase, keeping a given source', async () => {
    expect(await sessionsOf(fixture('json', 'sessions.json'))).toEqual([
      {
        sessionId: 'script-export-1',
        source: 'json',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { msgId: 's1-u1', role: 'user', content: '2+2?' },
          { msgId: 's1-a1', role: 'assistant', content: '4' },
        ],
      },
      {
        sessionId: 'script-export-2',
        title: 'camelCase keys',
        source: 'chatgpt',
        messages: [
          { msgId: 's2-u1', role: 'user', content: '你好', timestamp: '2025-01-01T00:00:00+08:00' },
          { msgId: 's2-t1', role: 'tool', content: '[tool result: clock] 08:00' },
        ],
      },
    ]);
  });

  it('keeps who said each message: `speaker`, or `name` or a string `author` as other writers call it, never a tool\'s name', async () => {
    const file = path.join(tempDir(), 'names.json');
    const messages = [
      { role: 'user', content: 'I went to the support group.', speaker: 'Caroline' },
      { role: 'assistant', content: 'How was it?', name: 'Melanie' },
      { role: 'user', content: 'Good.', author: ' Caroline ' },
      // ChatGPT's `author` is an object: no name.
      { role: 'assistant', content: 'Glad to hear.', author: { role: 'assistant' } },
      { role: 'tool', content: '[tool result: clock] 08:00', name: 'clock' },
    ];
    writeFileSync(file, JSON.stringify({ session_id: 'chat', messages }));
    const [session] = await sessionsOf(file);
    expect(session!.messages.map((m) => m.speaker)).toEqual(['Caroline', 'Melanie', 'Caroline', undefined, undefined]);
  });

  it.each([
    ['{"session_id":"a","messages":[{"role":"user","content":"x","speaker":7}]}', 'messages[0].speaker must be a string (found number)'],
    ['{"session_id":"a","messages":[{"role":"user","content":"x"},{"role":"user","content":"y"},{"role":"user","content":"z"},{"role":"user","content":""}]}', 'messages[3].content must be a non-empty string'],
    ['{"session_id":"a","messages":[{"role":"user","content":7}]}', 'messages[0].content must be a non-empty string (found number)'],
    ['{"session_id":"a","messages":[{"role":"bot","content":"x"}]}', 'messages[0].role must be one of user, assistant, system, tool (found "bot")'],
    ['{"session_id":"a","messages":[{"content":"x"}]}', 'messages[0].role is missing'],
    ['{"session_id":"a","messages":[{"role":"user","content":"x","timestamp":"yesterday"}]}', 'messages[0].timestamp must be an ISO 8601 date-time (found "yesterday")'],
    ['{"session_id":"a","messages":[{"msg_id":"","role":"user","content":"x"}]}', 'messages[0].msg_id must be a non-empty string'],
    ['{"session_id":"a","messages":["hello"]}', 'messages[0] must be an object (found "hello")'],
    ['{"session_id":"a","messages":{}}', 'messages must be an array (found object)'],
    // Without a session id at all, a list of messages is read as the chat APIs write it (chat-messages.test.ts).
    ['{"session_id":null,"messages":[{"role":"user","content":""}]}', 'session_id must be a string (found null) (and 1 more problem)'],
    ['{"session_id":42,"messages":[]}', 'session_id must be a string (found number)'],
    ['[{"session_id":"a","messages":[{"role":"user","content":"x"}]},{"session_id":"b","messages":[{"role":"user"}]}]', '[1].messages[0].content is missing'],
  ])('names the exact problem: %s', async (json, problem) => {
    const file = path.join(tempDir(), 'a.json');
    writeFileSync(file, json);
    const error = await errorOf(file, undefined, { strict: true });
    expect(error.code).toBe('wrong-shape');
    expect(error.message).toBe(`${file}: ${problem}`);
  });
});
