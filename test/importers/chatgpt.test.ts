import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { asWrittenJson } from '../../electron/importers/exports/chatgpt.js';
import { readableAnswer } from '../../electron/importers/exports/chatgptMarkers.js';
import { fixture, sessionsOf, tempDir, triples } from './helpers.js';

const KYOTO = '6650a1b2-7c3d-4e5f-8a9b-0c1d2e3f4a5b';
const SHORT = '5f00aa11-2222-4333-8444-555566667777';

/** A node of an export's `mapping`, on one branch. */
const node = (id: string, parent: string | null, child: string | null, message: object | null) => ({ id, parent, children: child ? [child] : [], message });

/** A message as the export writes it. */
const said = (id: string, role: string, text: string, extra: object = {}) => ({ id, author: { role, name: null, metadata: {} }, create_time: 1761704170, content: { content_type: 'text', parts: [text] }, status: 'finished_successfully', weight: 1, recipient: 'all', metadata: {}, ...extra });

/** A one-conversation `conversations.json`. */
function exportOf(id: string, title: string, mapping: object, currentNode: string): string {
  const file = path.join(tempDir(), 'conversations.json');
  writeFileSync(file, JSON.stringify([{ title, create_time: 1761704170, update_time: 1761704180, id, current_node: currentNode, mapping }]));
  return file;
}

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

  it("files ChatGPT's hidden note in the person's place as context, not as their words", async () => {
    // As a real export of October 2025 holds it, where the custom instructions were.
    const mapping = {
      root: node('root', null, 'n-1', null),
      'n-1': node('n-1', 'root', 'u-1', said('n-1', 'user', 'Original custom instructions no longer available', { create_time: null, metadata: { is_visually_hidden_from_conversation: true, user_context_message_data: null, is_user_system_message: true } })),
      'u-1': node('u-1', 'n-1', 'a-1', said('u-1', 'user', 'Which ferry goes to Cacilhas?')),
      'a-1': node('a-1', 'u-1', null, said('a-1', 'assistant', 'The Transtejo ferry from Cais do Sodré.', { end_turn: true })),
    };
    const [session] = await sessionsOf(exportOf('690178ec-f2f0-8324-bd3b-00bc67ef63bd', 'Ferry', mapping, 'a-1'));
    expect(session!.title).toBe('Ferry');
    expect(session!.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'Original custom instructions no longer available'],
      ['user', 'Which ferry goes to Cacilhas?'],
      ['assistant', 'The Transtejo ferry from Cais do Sodré.'],
    ]);
  });

  it('shows an answer that is a list of files as the files\' descriptions', () => {
    // As a real export of October 2025 holds it: the marker describes two files, its reference lists one.
    const answer = '\ue200filenavlist\ue202369:0\ue205Notes on moving the alert table.\ue202369:1\ue205The API checks and the table split, with the test steps.\ue201';
    const metadata = { content_references: [{ matched_text: answer, start_idx: 0, end_idx: 120, type: 'file_navlist', alt: null, items: [{ name: '086003c0.md', description: 'Notes on moving the alert table.' }] }] };
    expect(readableAnswer(answer, metadata)).toBe('- Notes on moving the alert table.\n- The API checks and the table split, with the test steps.');
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

  it('keeps a canvas whose arguments the model wrote with a raw line break, or cut off at its token limit', async () => {
    // As real exports of 2025 hold them (both were confirmed: "Successfully created text document").
    const raw = '{"name": "Ferry notes", "type": "document", "content": "Cacilhas: every 20 minutes.\nSeixal: hourly."}';
    const cut = '{"name": "ferry_table", "type": "code/html", "content": "<table>\\n<tr><td>Cacilhas</td><td>20 min</td></tr>\\n<tr><td>Sei';
    const mapping = {
      root: node('root', null, 'u-1', null),
      'u-1': node('u-1', 'root', 'c-1', said('u-1', 'user', 'Write the ferry times in a canvas, then as a table.')),
      'c-1': node('c-1', 'u-1', 'c-2', said('c-1', 'assistant', raw, { recipient: 'canmore.create_textdoc' })),
      'c-2': node('c-2', 'c-1', 'a-1', said('c-2', 'assistant', cut, { recipient: 'canmore.create_textdoc', metadata: { finish_details: { type: 'max_tokens' } } })),
      'a-1': node('a-1', 'c-2', null, said('a-1', 'assistant', 'Both are in the canvas.')),
    };
    const [session] = await sessionsOf(exportOf('68cd24c4-c0d8-832c-938c-cabcbc6c0dda', 'Ferries', mapping, 'a-1'));
    expect(triples(session!)).toEqual([
      ['u-1', 'user', 'Write the ferry times in a canvas, then as a table.'],
      ['c-1', 'assistant', '[canvas: Ferry notes]\nCacilhas: every 20 minutes.\nSeixal: hourly.\n[/canvas]'],
      ['c-2', 'assistant', '[canvas: ferry_table]\n<table>\n<tr><td>Cacilhas</td><td>20 min</td></tr>\n<tr><td>Sei\n[/canvas]'],
      ['a-1', 'assistant', 'Both are in the canvas.'],
    ]);
  });

  it('reads JSON as a model writes it: raw control characters escaped, a cut string and what is open closed', () => {
    expect(JSON.parse(asWrittenJson('{"a": "x\ny\tz"}'))).toEqual({ a: 'x\ny\tz' });
    expect(JSON.parse(asWrittenJson('{"a": "x", "b": ["y", "z\\'))).toEqual({ a: 'x', b: ['y', 'z'] });
    expect(JSON.parse(asWrittenJson('{"a": "caf\\u00e'))).toEqual({ a: 'caf' });
    expect(JSON.parse(asWrittenJson('{"a": "x",'))).toEqual({ a: 'x' });
    expect(JSON.parse(asWrittenJson('{"a":'))).toEqual({ a: null });
    expect(() => JSON.parse(asWrittenJson('{"a": "x", "ke'))).toThrow();
    // Whole, valid JSON is left as it is.
    expect(asWrittenJson('{"a": "x\\ny"}')).toBe('{"a": "x\\ny"}');
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
