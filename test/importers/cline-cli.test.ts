import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, readAll, sessionsOf, triples } from './helpers.js';

/** Sessions in the shapes Cline's CLI 3.0.65 writes, with our own text (see PROVENANCE.md). */
const DATA = fixture('cline-cli', 'data');
const RESUMED = path.join(DATA, 'sessions', '1767261600000_k7pzm', '1767261600000_k7pzm.messages.json');
const WITH_TOOL = path.join(DATA, 'sessions', '1767265200000_x2bfq', '1767265200000_x2bfq.messages.json');

describe('Cline CLI sessions', () => {
  it("reads a session as one: the person's words without Cline's wrapper, the answers, ids, times, the title it was renamed to", async () => {
    const [session] = await sessionsOf(RESUMED);
    expect(session).toMatchObject({ sessionId: '1767261600000_k7pzm', source: 'cline', title: 'Night train to Vienna' });
    expect(session!.messages.map((message) => [message.msgId, message.role, message.content, message.timestamp])).toEqual([
      ['3f6c1e0a-9b2d-4c1e-8f3a-6d5e4c3b2a10', 'user', 'Which night train goes from Zürich to Vienna?', '2026-01-01T10:00:01.250Z'],
      ['msg_Tq8vLm2X', 'assistant', 'The Nightjet NJ 467 leaves Zürich HB at 21:40 and reaches Wien Hbf at 07:49.', '2026-01-01T10:00:03.900Z'],
      ['a81d2f47-5c3e-4b9a-9e0d-1f2a3b4c5d6e', 'user', 'Book the lower couchette, please.', '2026-01-01T10:04:09.100Z'],
      ['msg_Hc4nPz9K', 'assistant', 'Noted: a lower couchette berth on the NJ 467.', '2026-01-01T10:04:12.340Z'],
    ]);
  });

  it('keeps a tool call and its result, and the thinking, only when asked; names a file the person attached', async () => {
    const [plain] = await sessionsOf(WITH_TOOL);
    expect(triples(plain)).toEqual([
      ['6e0b9d3c-2a1f-4e8d-b7c6-5a4f3e2d1c0b', 'user', 'How many lines does @trips.md have?\n\n[file: trips.md]'],
      ['msg_Pm2gHt6Z', 'assistant', 'trips.md has 12 lines.'],
    ]);
    expect(plain!.title).toBe('How many lines does @trips.md have?');
    const [full] = await sessionsOf(WITH_TOOL, { include: ['tools'] });
    expect(triples(full)).toEqual([
      ['6e0b9d3c-2a1f-4e8d-b7c6-5a4f3e2d1c0b', 'user', 'How many lines does @trips.md have?\n\n[file: trips.md]'],
      ['msg_Wd7yRb3N', 'tool', '[tool call: run_commands] {"commands":["wc -l trips.md"]}'],
      ['msg_Jx5kVs1C', 'tool', '[tool result: run_commands] 12 trips.md'],
      ['msg_Pm2gHt6Z', 'assistant', 'trips.md has 12 lines.'],
    ]);
    const [thinking] = await sessionsOf(RESUMED, { include: ['thinking'] });
    expect(triples(thinking)[3]).toEqual(['msg_Hc4nPz9K#0', 'assistant', '[thinking] The person wants a lower berth in a couchette.']);
  });

  it("reads a sub-agent's messages, kept in its parent's folder, as its own session naming the parent", async () => {
    const [session] = await sessionsOf(path.join(path.dirname(WITH_TOOL), 'agent_1767265202300_q8wmzt.messages.json'));
    expect(session).toMatchObject({ sessionId: '1767265200000_x2bfq__agent_1767265202300_q8wmzt', parentSessionId: '1767265200000_x2bfq', source: 'cline', title: 'Count the lines of trips.md.' });
    expect(session!.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it("imports the CLI's data folder: each session's messages, not its record, the settings, caches, locks or logs", async () => {
    const results = await readAll([DATA]);
    expect(results.map((result) => ('format' in result ? [path.basename(result.file), result.format, result.sessions.length] : result.error.message))).toEqual([
      ['1767261600000_k7pzm.messages.json', 'cline', 1],
      ['1767265200000_x2bfq.messages.json', 'cline', 1],
      ['agent_1767265202300_q8wmzt.messages.json', 'cline', 1],
    ]);
  });
});
