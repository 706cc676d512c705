import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, readAll, sessionsOf, tempDir, errorOf } from './helpers.js';

const roleAndText = (messages: Array<{ role: string; content: string }>) => messages.map((message) => [message.role, message.content]);

describe('chat messages as APIs, fine-tuning files and datasets keep them', () => {
  it("reads the chat API's bare list of messages as one conversation named by its file, with tool calls kept when asked for", async () => {
    const [plain] = await sessionsOf(fixture('chat-messages', 'weather-porto.json'));
    expect(plain).toMatchObject({ sessionId: 'messages:weather-porto', source: 'chat-messages' });
    expect(roleAndText(plain!.messages)).toEqual([
      ['system', 'You are a travel assistant.'],
      ['user', "What's the weather in Porto tomorrow?\n\n[image]"],
      ['assistant', 'Clear, with a high of 19 °C.'],
    ]);
    const [full] = await sessionsOf(fixture('chat-messages', 'weather-porto.json'), { include: ['tools'] });
    expect(roleAndText(full!.messages).slice(2)).toEqual([
      ['tool', '[tool call: get_weather] {"city":"Porto"}'],
      // The tool's answer is named by the call it answers.
      ['tool', '[tool result: get_weather] {"high": 19, "sky": "clear"}'],
      ['assistant', 'Clear, with a high of 19 °C.'],
    ]);
  });

  it('reads a messages request with content blocks: text, thinking, tool use and results', async () => {
    const [session] = await sessionsOf(fixture('chat-messages', 'rename-column.json'));
    expect(roleAndText(session!.messages)).toEqual([
      ['user', 'Rename the column total to amount in orders.csv'],
      ['assistant', "I'll read the header."],
      ['assistant', 'Done: the header is now id,amount,date.'],
    ]);
    const [full] = await sessionsOf(fixture('chat-messages', 'rename-column.json'), { include: ['tools', 'thinking'] });
    expect(roleAndText(full!.messages)).toContainEqual(['assistant', '[thinking] I should read the header first.']);
    expect(roleAndText(full!.messages)).toContainEqual(['tool', '[tool result: read_file] id,total,date']);
  });

  it('reads a fine-tuning file, one conversation per line, each a session of its own', async () => {
    const sessions = await sessionsOf(fixture('chat-messages', 'finetune.jsonl'));
    expect(sessions.map((session) => [session.sessionId, session.messages.at(-1)!.content])).toEqual([
      ['messages:finetune#1', 'Oslo'],
      ['messages:finetune#2', 'Santiago'],
    ]);
  });

  it("reads LLaMA-Factory's parts, whose text is their value: text, images, reasoning, tool calls and results", async () => {
    const file = path.join(tempDir(), 'tool_use_demo.jsonl');
    const part = (type: string, value: string) => ({ type, value });
    const conversations = [
      { messages: [{ role: 'user', content: [part('text', 'hi')], loss_weight: 0.0 }, { role: 'assistant', content: [part('text', 'Hello! How can I help?')], loss_weight: 1.0 }] },
      {
        messages: [
          { role: 'user', content: [part('image_url', 'data/demo/1.jpg'), part('text', 'Which film is this poster from?')] },
          { role: 'assistant', content: [part('reasoning', 'The poster shows a spinning top.'), part('tool_call', '{"name": "get_movie_details", "arguments": {"title": "Inception"}}')] },
          { role: 'tool', content: [part('text', '{"title": "Inception", "release_year": 2010}')] },
          { role: 'assistant', content: [part('text', 'It is Inception (2010).')] },
        ],
        tools: '[]',
      },
    ];
    writeFileSync(file, conversations.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const plain = await sessionsOf(file);
    expect(plain.map((session) => roleAndText(session.messages))).toEqual([
      [['user', 'hi'], ['assistant', 'Hello! How can I help?']],
      [['user', '[image]\n\nWhich film is this poster from?'], ['assistant', 'It is Inception (2010).']],
    ]);
    const [, full] = await sessionsOf(file, { include: ['tools', 'thinking'] });
    expect(roleAndText(full!.messages)).toEqual([
      ['user', '[image]\n\nWhich film is this poster from?'],
      ['assistant', '[thinking] The poster shows a spinning top.'],
      ['tool', '[tool call: get_movie_details] {"title":"Inception"}'],
      ['tool', '[tool result: get_movie_details] {"title": "Inception", "release_year": 2010}'],
      ['assistant', 'It is Inception (2010).'],
    ]);
  });

  it("keeps a participant's name (the chat APIs' name) as the speaker, never a tool's", async () => {
    const file = path.join(tempDir(), 'group-chat.json');
    writeFileSync(file, JSON.stringify([
      { role: 'user', name: 'Priya', content: 'Can we move the launch to Thursday?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calendar', arguments: '{}' } }] },
      { role: 'tool', name: 'calendar', tool_call_id: 'c1', content: 'Thursday is free' },
      { role: 'user', name: 'Marco', content: 'Thursday works for me.' },
    ]));
    const [session] = await sessionsOf(file, { include: ['tools'] });
    expect(session!.messages.map((message) => [message.role, message.speaker ?? null, message.content])).toEqual([
      ['user', 'Priya', 'Can we move the launch to Thursday?'],
      ['tool', null, '[tool call: calendar] {}'],
      ['tool', null, '[tool result: calendar] Thursday is free'],
      ['user', 'Marco', 'Thursday works for me.'],
    ]);
  });

  it("reads ShareGPT's datasets by their ids, human and gpt turns", async () => {
    const sessions = await sessionsOf(fixture('chat-messages', 'sharegpt.json'));
    expect(sessions.map((session) => [session.sessionId, roleAndText(session.messages)])).toEqual([
      ['messages:QWJhY2t1', [['user', 'How do I undo the last git commit but keep the changes?'], ['assistant', 'git reset --soft HEAD~1']]],
      ['messages:Zm9vYmFy', [['system', 'You answer briefly.'], ['user', '什么是量子纠缠？'], ['assistant', '两个粒子的状态相互关联。']]],
    ]);
  });

  it("a damaged line of a fine-tuning file is left out and named, the other conversations saved; the engine's own format stays strict", async () => {
    const dir = tempDir();
    const file = path.join(dir, 'mixed.jsonl');
    writeFileSync(file, '{"messages":[{"role":"user","content":"one"},{"role":"assistant","content":"1"}]}\n{"messages":[{"role":"user","content":"two"\n{"messages":[{"role":"user","content":"three"},{"role":"assistant","content":"3"}]}\n');
    const [result] = await readAll([file]);
    if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
    expect(result.sessions.map((session) => session.messages[0]!.content)).toEqual(['one', 'three']);
    expect(result.skipped).toEqual([expect.objectContaining({ file, line: 2 })]);

    const own = path.join(dir, 'own.json');
    writeFileSync(own, JSON.stringify({ session_id: 's1', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }));
    expect((await errorOf(own)).problem).toBe('messages[0].content must be a non-empty string (found an array)');
    // A list with nothing said in it is refused as empty.
    const silent = path.join(dir, 'silent.json');
    writeFileSync(silent, '{"messages":[{"role":"user","content":""}]}');
    expect(await errorOf(silent)).toMatchObject({ code: 'empty', problem: 'no messages to import' });
  });
});

describe("LLaMA-Factory's preference datasets: the prompt and the answer preferred", () => {
  const write = (name: string, content: unknown) => {
    const file = path.join(tempDir(), name);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return file;
  };

  it('a DPO dataset in ShareGPT format gives each prompt with its chosen answer, never the rejected one', async () => {
    const file = write('dpo_rivers.json', [
      {
        conversations: [{ from: 'human', value: 'Name three rivers in Portugal.' }],
        chosen: { from: 'gpt', value: 'The Tejo, the Douro and the Mondego.' },
        rejected: { from: 'gpt', value: 'The Thames, the Seine and the Rhine.' },
      },
      {
        conversations: [
          { from: 'human', value: 'Which one reaches Porto?' },
          { from: 'gpt', value: 'The Douro.' },
          { from: 'human', value: 'Where does it rise?' },
        ],
        chosen: { from: 'gpt', value: 'In the Sierra de Urbión, in Spain.' },
        rejected: { from: 'gpt', value: 'In the Alps.' },
      },
    ]);
    const sessions = await sessionsOf(file);
    expect(sessions.map((session) => [session.sessionId, roleAndText(session.messages)])).toEqual([
      ['messages:dpo_rivers#1', [['user', 'Name three rivers in Portugal.'], ['assistant', 'The Tejo, the Douro and the Mondego.']]],
      ['messages:dpo_rivers#2', [['user', 'Which one reaches Porto?'], ['assistant', 'The Douro.'], ['user', 'Where does it rise?'], ['assistant', 'In the Sierra de Urbión, in Spain.']]],
    ]);
  });

  it('a preference dataset of chat API messages gives the chosen message as the answer', async () => {
    const file = write('dpo_openai.jsonl', [
      JSON.stringify({ messages: [{ role: 'system', content: 'Answer briefly.' }, { role: 'user', content: 'Is the Douro navigable?' }], chosen: { role: 'assistant', content: 'Yes, up to the Spanish border.' }, rejected: { role: 'assistant', content: 'No.' } }),
      JSON.stringify({ messages: [{ role: 'user', content: 'And the Tejo?' }], chosen: { role: 'assistant', content: 'Only its lower course.' }, rejected: { role: 'assistant', content: 'All of it.' } }),
      '',
    ].join('\n'));
    const sessions = await sessionsOf(file);
    expect(sessions.map((session) => roleAndText(session.messages))).toEqual([
      [['system', 'Answer briefly.'], ['user', 'Is the Douro navigable?'], ['assistant', 'Yes, up to the Spanish border.']],
      [['user', 'And the Tejo?'], ['assistant', 'Only its lower course.']],
    ]);
  });

  it('an Alpaca dataset gives the instruction and its input as the prompt, then the chosen answer (or the output)', async () => {
    const file = write('alpaca_pairs.json', [
      { instruction: 'Translate to English.', input: 'O rio Douro nasce em Espanha.', chosen: 'The Douro river rises in Spain.', rejected: 'The gold river is born in Spain.' },
      { instruction: 'Say which river flows through Lisbon.', input: '', chosen: 'The Tejo.', rejected: 'The Douro.' },
      {
        system: 'You are a geography tutor.',
        history: [['What is the longest river of Iberia?', 'The Tejo.']],
        instruction: 'How long is it?',
        input: '',
        output: 'About 1,000 km.',
      },
    ]);
    const sessions = await sessionsOf(file);
    expect(sessions.map((session) => [session.sessionId, roleAndText(session.messages)])).toEqual([
      ['messages:alpaca_pairs#1', [['user', 'Translate to English.\nO rio Douro nasce em Espanha.'], ['assistant', 'The Douro river rises in Spain.']]],
      ['messages:alpaca_pairs#2', [['user', 'Say which river flows through Lisbon.'], ['assistant', 'The Tejo.']]],
      ['messages:alpaca_pairs#3', [['system', 'You are a geography tutor.'], ['user', 'What is the longest river of Iberia?'], ['assistant', 'The Tejo.'], ['user', 'How long is it?'], ['assistant', 'About 1,000 km.']]],
    ]);
  });

  it('a KTO dataset keeps an answer tagged good and leaves out one tagged bad, keeping its prompt', async () => {
    // As LLaMA-Factory's example file: chat API messages, the tag in `label`.
    const openai = write('kto_rivers.json', [
      { messages: [{ role: 'user', content: 'Which river flows through Coimbra?' }, { role: 'assistant', content: 'The Mondego.' }], label: true },
      { messages: [{ role: 'user', content: 'Which river flows through Porto?' }, { role: 'assistant', content: 'The Danube.' }], label: false },
    ]);
    expect((await sessionsOf(openai)).map((session) => roleAndText(session.messages))).toEqual([
      [['user', 'Which river flows through Coimbra?'], ['assistant', 'The Mondego.']],
      [['user', 'Which river flows through Porto?']],
    ]);
    // As its README: ShareGPT turns, the tag in `kto_tag`; only the last answer is judged.
    const sharegpt = write('kto_sharegpt.jsonl', [
      JSON.stringify({ conversations: [{ from: 'human', value: 'Hi' }, { from: 'gpt', value: 'Hello!' }, { from: 'human', value: 'How long is the Tejo?' }, { from: 'gpt', value: '12 km.' }], kto_tag: false }),
      JSON.stringify({ conversations: [{ from: 'human', value: 'How long is the Douro?' }, { from: 'gpt', value: 'About 900 km.' }], kto_tag: true }),
      '',
    ].join('\n'));
    const alpaca = write('kto_alpaca.json', [{ instruction: 'How long is the Mondego?', input: '', output: '3 km.', kto_tag: false }]);
    expect((await sessionsOf(sharegpt)).map((session) => roleAndText(session.messages))).toEqual([
      [['user', 'Hi'], ['assistant', 'Hello!'], ['user', 'How long is the Tejo?']],
      [['user', 'How long is the Douro?'], ['assistant', 'About 900 km.']],
    ]);
    expect((await sessionsOf(alpaca)).map((session) => roleAndText(session.messages))).toEqual([[['user', 'How long is the Mondego?']]]);
  });

  it('a DPO file of the newer format gives its chosen messages', async () => {
    const part = (value: string) => [{ type: 'text', value }];
    const file = write('v1_dpo_rivers.jsonl', [
      JSON.stringify({
        chosen_messages: [{ role: 'user', content: part('Name a river of Lisbon.'), loss_weight: 0 }, { role: 'assistant', content: part('The Tejo.'), loss_weight: 1 }],
        rejected_messages: [{ role: 'user', content: part('Name a river of Lisbon.'), loss_weight: 0 }, { role: 'assistant', content: part('The Douro.'), loss_weight: 1 }],
      }),
      JSON.stringify({
        chosen_messages: [{ role: 'user', content: part('And of Porto?'), loss_weight: 0 }, { role: 'assistant', content: part('The Douro.'), loss_weight: 1 }],
        rejected_messages: [{ role: 'user', content: part('And of Porto?'), loss_weight: 0 }, { role: 'assistant', content: part('The Tejo.'), loss_weight: 1 }],
      }),
      '',
    ].join('\n'));
    expect((await sessionsOf(file)).map((session) => roleAndText(session.messages))).toEqual([
      [['user', 'Name a river of Lisbon.'], ['assistant', 'The Tejo.']],
      [['user', 'And of Porto?'], ['assistant', 'The Douro.']],
    ]);
  });
});
