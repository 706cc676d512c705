import { describe, expect, it } from 'vitest';
import { fixture, sessionsOf, triples } from './helpers.js';

const KYOTO = '6650a1b2-7c3d-4e5f-8a9b-0c1d2e3f4a5b';
const SHORT = '5f00aa11-2222-4333-8444-555566667777';

describe('ChatGPT export', () => {
  it('keeps the branch the person last saw, without regenerations, edits or hidden messages', async () => {
    const sessions = await sessionsOf(fixture('chatgpt', 'conversations.json'));

    // The third conversation holds only a hidden system message: nothing to import.
    expect(sessions.map((session) => [session.sessionId, session.title, session.source])).toEqual([
      [KYOTO, 'Kyoto weekend 京都', 'chatgpt'],
      [SHORT, 'Short question', 'chatgpt'],
    ]);
    expect(sessions[0]!.messages).toEqual([
      { msgId: 'ctx-0', role: 'system', content: 'I live in Berlin.\n\nAnswer briefly.' },
      { msgId: 'u-1', role: 'user', content: 'Plan a weekend in Kyoto.', timestamp: '2024-05-29T16:26:50.500Z' },
      { msgId: 'a-1', role: 'assistant', content: 'Day 1: Fushimi Inari.\nDay 2: Arashiyama.', timestamp: '2024-05-29T16:27:00.000Z' },
      // An image, typed text and a voice transcription, in part order.
      { msgId: 'u-2', role: 'user', content: '[image]\nWhat temple is this?\n这是哪座寺庙？', timestamp: '2024-05-29T16:27:20.000Z' },
      { msgId: 'a-2', role: 'assistant', content: 'That is Kinkaku-ji (金閣寺). It is open 8 hours a day.', timestamp: '2024-05-29T16:27:28.000Z' },
    ]);
    expect(triples(sessions[1])).toEqual([
      ['b-u', 'user', 'How many days in a leap year?'],
      ['b-a', 'assistant', '366.'],
    ]);
  });

  it("turns the markers ChatGPT writes into its answers into what its app shows: sources, names, links", async () => {
    // Its last reference, a list of sources after the answer, names a blank as its matched text: the answer keeps its spaces.
    const [session] = await sessionsOf(fixture('chatgpt', 'markers.json'));
    expect(session!.messages.at(-1)!.content).toBe(
      'Tram 28 runs from about 6:00 to 23:00 ([carris.pt](https://www.carris.pt/en/tram-28/)). ' +
        'The lift was designed by Raoul Mesnier du Ponsard ([Wikipedia](https://en.wikipedia.org/wiki/Santa_Justa_Lift)). ' +
        'Tickets: [Carris](https://www.carris.pt). Older answers cited like this.',
    );
    // The question is the person's own text: left as it is.
    expect(session!.messages[0]!.content).toBe('When does the Lisbon tram 28 run, and who designed the Santa Justa lift?');
  });

  it('keeps a canvas the model wrote, and its rewrites, as part of its answers', async () => {
    const [session] = await sessionsOf(fixture('chatgpt', 'canvas.json'));
    expect(triples(session!)).toEqual([
      ['u-1', 'user', 'Draft a short cover letter for the Atelier Tejo design job in a canvas.'],
      ['a-1', 'assistant', '[canvas: Cover Letter – Lisbon Studio]\nDear hiring team,\n\nI am applying for the product designer role at Atelier Tejo. For six years I have designed booking flows for ferry operators.\n[/canvas]'],
      ['a-2', 'assistant', 'I drafted the letter in the canvas.'],
      ['u-2', 'user', 'Address it to Ms. Pereira and mention Transtejo.'],
      ['a-3', 'assistant', '[canvas update]\nDear Ms. Pereira,\n\nI am applying for the product designer role at Atelier Tejo. For six years I have designed booking flows for ferry operators, most recently for Transtejo.\n[/canvas update]'],
      ['a-5', 'assistant', 'Done: it now greets Ms. Pereira and names Transtejo.'],
    ]);
    // The tool's replies and the model's comments on the canvas stay tool traffic.
    const [withTools] = await sessionsOf(fixture('chatgpt', 'canvas.json'), { include: ['tools'] });
    expect(triples(withTools!).filter(([, role]) => role === 'tool').map(([id, , content]) => [id, content.slice(0, 40)])).toEqual([
      ['t-1', '[tool result: canmore.create_textdoc] Su'],
      ['t-3', '[tool result: canmore.update_textdoc] Su'],
      ['a-4', '[tool call: canmore.comment_textdoc] {"c'],
    ]);
  });

  it('includes thinking, tool calls and tool results when asked', async () => {
    const [kyoto] = await sessionsOf(fixture('chatgpt', 'conversations.json'), { include: ['tools', 'thinking'] });
    expect(triples(kyoto)).toEqual([
      ['ctx-0', 'system', 'I live in Berlin.\n\nAnswer briefly.'],
      ['u-1', 'user', 'Plan a weekend in Kyoto.'],
      ['a-1', 'assistant', 'Day 1: Fushimi Inari.\nDay 2: Arashiyama.'],
      ['u-2', 'user', '[image]\nWhat temple is this?\n这是哪座寺庙？'],
      ['a-2-thoughts', 'assistant', '[thinking] Identifying the temple\nA golden pavilion over a pond: Kinkaku-ji.'],
      ['a-2-recap', 'assistant', '[thinking] Thought for 4 seconds'],
      ['a-2-search', 'tool', '[tool call: browser] search("Kinkaku-ji opening hours")'],
      ['a-2-browse', 'tool', '[tool result: browser] Kinkaku-ji: open 9:00-17:00'],
      ['a-2-code', 'tool', '[tool call: python] print(17 - 9)'],
      ['a-2-exec', 'tool', '[tool result: python] 8'],
      ['a-2', 'assistant', 'That is Kinkaku-ji (金閣寺). It is open 8 hours a day.'],
    ]);
  });

  it('includes only what was asked for', async () => {
    const [thinkingOnly] = await sessionsOf(fixture('chatgpt', 'conversations.json'), { include: ['thinking'] });
    expect(thinkingOnly!.messages.map((message) => message.msgId)).toEqual(['ctx-0', 'u-1', 'a-1', 'u-2', 'a-2-thoughts', 'a-2-recap', 'a-2']);
    const [toolsOnly] = await sessionsOf(fixture('chatgpt', 'conversations.json'), { include: ['tools'] });
    expect(toolsOnly!.messages.map((message) => message.msgId)).toEqual(['ctx-0', 'u-1', 'a-1', 'u-2', 'a-2-search', 'a-2-browse', 'a-2-code', 'a-2-exec', 'a-2']);
  });

  it('gives a later export the same ids for the earlier messages, plus the new ones', async () => {
    const before = await sessionsOf(fixture('chatgpt', 'conversations.json'));
    const after = await sessionsOf(fixture('chatgpt', 'conversations-later.json'));
    const byId = new Map(after.map((session) => [session.sessionId, session]));

    const kyotoBefore = before.find((session) => session.sessionId === KYOTO)!;
    const kyotoAfter = byId.get(KYOTO)!;
    expect(kyotoAfter.messages.slice(0, kyotoBefore.messages.length)).toEqual(kyotoBefore.messages);
    expect(triples(kyotoAfter).slice(kyotoBefore.messages.length)).toEqual([
      ['u-3', 'user', 'Thanks! 谢谢'],
      ['a-3', 'assistant', "You're welcome. Enjoy Kyoto!"],
    ]);
    expect(byId.get(SHORT)).toEqual(before.find((session) => session.sessionId === SHORT));
    expect(after.map((session) => session.sessionId)).toEqual(['7a00cc33-4444-4555-8666-777788889999', KYOTO, SHORT]);
  });
});
