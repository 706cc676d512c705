import { copyFileSync, appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../electron/importers/index.js';
import { hashEngineTestBed } from '../helpers/engine.js';
import { fixture, readAll, sessionsOf, tempDir } from './helpers.js';

/** A real log: aider 0.84.0 on Windows, from a public repository (see test/fixtures/import/aider/PROVENANCE.md). */
const LOG = fixture('aider', 'monochromatic', '.aider.chat.history.md');

/** aider writes its start times in the local time of the machine it runs on. */
const local = (date: string) => new Date(date.replace(' ', 'T')).toISOString();

describe('aider chat history', () => {
  it('makes one session per run of aider that has input, with the person, the model, and the start time', async () => {
    const sessions = await sessionsOf(LOG);
    // Ten runs; the first only installed a package and never took input.
    expect(sessions.map((session) => session.title)).toEqual([
      'What can you say about this package?',
      "what's this dir doing?",
      "What's this dir doing?",
      "What's this repo doing?",
      'What is this repo doing?',
      'What is this repo doing?',
      'Tell me what you know about this.',
      "What's this?",
      'Comment on my CONVENTIONS.md',
    ]);
    expect(sessions.every((session) => session.source === 'aider')).toBe(true);
    // Two runs asked the same question: their ids differ by start time.
    expect(new Set(sessions.map((session) => session.sessionId)).size).toBe(9);

    const conventions = sessions.at(-1)!;
    expect(conventions.sessionId).toMatch(/^aider:2025-06-02T13:02:14:[0-9a-f]{12}$/);
    expect(conventions.messages.map((message) => [message.msgId, message.role])).toEqual([
      ['1', 'user'],
      ['3', 'assistant'],
      ['5', 'user'],
      ['6', 'assistant'],
    ]);
    expect(conventions.messages[0]!.timestamp).toBe(local('2025-06-02 13:02:14'));
    // Multi-line input is one message; aider's trailing Markdown line breaks are gone.
    expect(conventions.messages[2]!.content).toBe("Comment on my CONVENTIONS.md\nI'm looking for suggestions, feedbacks. Everything.");
    expect(conventions.messages[3]!.content).toContain('<<<<<<< SEARCH');
    expect(conventions.messages[3]!.content).not.toContain('Tokens:');
  });

  it("leaves aider's own output and the model's reasoning out unless asked for", async () => {
    const plain = await sessionsOf(LOG);
    const thinkingRun = plain.find((session) => session.title === "What's this dir doing?")!;
    expect(thinkingRun.messages.map((message) => message.content.slice(0, 30))).toEqual(["What's this dir doing?", "You haven't shared the full co"]);

    const full = await sessionsOf(LOG, { include: ['tools', 'thinking'] });
    const same = full.find((session) => session.sessionId === thinkingRun.sessionId)!;
    expect(same.messages.some((message) => message.role === 'tool' && message.content.startsWith('[tool result: aider] C:\\Users\\user\\.local\\bin\\aider'))).toBe(true);
    expect(same.messages.some((message) => message.role === 'tool' && message.content.includes('TypeError: can\'t multiply sequence'))).toBe(true);
    // The reasoning of this run was empty: nothing is made of it.
    expect(same.messages.some((message) => message.content.startsWith('[thinking]'))).toBe(false);
    // Messages both reads share keep their ids and content.
    for (const message of thinkingRun.messages) expect(same.messages).toContainEqual(message);
  });

  it('keeps reasoning in <thinking-content-…> tags apart from the reply', async () => {
    const file = path.join(tempDir(), 'history.md');
    writeFileSync(file, '\n# aider chat started at 2026-03-01 09:00:00\n\n#### Which sort is stable?  \n\n<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nMerge sort keeps equal keys in order.\n\n</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nMerge sort is stable; quicksort usually is not.\n\n> Tokens: 1.2k sent, 40 received.  \n');
    const [plain] = await sessionsOf(file);
    expect(plain!.messages.map((message) => message.content)).toEqual(['Which sort is stable?', 'Merge sort is stable; quicksort usually is not.']);
    const [full] = await sessionsOf(file, { include: ['thinking'] });
    expect(full!.messages.map((message) => message.content)).toEqual(['Which sort is stable?', '[thinking] Merge sort keeps equal keys in order.', 'Merge sort is stable; quicksort usually is not.']);
  });

  it("keeps apart the <think> a reasoning model opens its reply with, but not the words <think> later in a reply", async () => {
    // As aider 0.82.2 wrote a local reasoning model's replies (AndrewJacop/Simple-Calulator).
    const file = path.join(tempDir(), 'history.md');
    writeFileSync(
      file,
      '# aider chat started at 2026-03-01 09:00:00\n\n#### please continue  \n\n<think>\nOkay, the SEARCH block failed to match.\n</think>\n\nThe SEARCH block now matches `getRandomPosition`.\n\n' +
        '#### what does <think> do in your replies?  \n\nA `<think>` tag marks reasoning.\n',
    );
    const [plain] = await sessionsOf(file);
    expect(plain!.messages.map((message) => message.content)).toEqual([
      'please continue',
      'The SEARCH block now matches `getRandomPosition`.',
      'what does <think> do in your replies?',
      'A `<think>` tag marks reasoning.',
    ]);
    const [full] = await sessionsOf(file, { include: ['thinking'] });
    expect(full!.messages[1]!.content).toBe('[thinking] Okay, the SEARCH block failed to match.');
  });

  it('treats file commands as tool calls and keeps the question of /ask', async () => {
    const file = path.join(tempDir(), 'history.md');
    writeFileSync(file, '# aider chat started at 2026-03-01 09:00:00\n\n#### /add src/sort.ts  \n> Added src/sort.ts to the chat  \n\n#### /ask why is this slow?  \n\nIt copies the array on every call.\n');
    const [session] = await sessionsOf(file);
    expect(session!.messages.map((message) => message.content)).toEqual(['why is this slow?', 'It copies the array on every call.']);
    const [withTools] = await sessionsOf(file, { include: ['tools'] });
    expect(withTools!.messages[0]).toMatchObject({ role: 'tool', content: '[tool call: /add] src/sort.ts' });
  });

  it("keeps the answers typed to aider's own questions out of the person's words", async () => {
    // As aider 0.86.2 writes them (April 2026): the question quoted, the typed answer as input, the question again.
    const file = path.join(tempDir(), 'history.md');
    writeFileSync(file, [
      '# aider chat started at 2026-04-22 23:13:03', '',
      '#### why is the same text inserted twice?  ', '',
      'Please add `reducer.ts` to the chat.', '',
      '> Tokens: 4.1k sent, 1.3k received.  ',
      '> frontend/src/store/slices/jobs/reducer.ts  ',
      "> Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: a  ", '',
      "#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all  ",
      "> Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: a  ", '',
      'The reducer keeps the last text after the key is released.', '',
    ].join('\n'));
    const [session] = await sessionsOf(file);
    expect(session!.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'why is the same text inserted twice?'],
      ['assistant', 'Please add `reducer.ts` to the chat.'],
      ['assistant', 'The reducer keeps the last text after the key is released.'],
    ]);
    const [withTools] = await sessionsOf(file, { include: ['tools'] });
    expect(withTools!.messages.filter((message) => message.content.includes('[Yes]: all')).map((message) => message.role)).toEqual(['tool']);
  });

  it('reads a multi-line input of older aider, one `#### ` paragraph a line, as one message', async () => {
    // aider 0.50 wrote every line of a pasted input as its own paragraph, a blank input line as `####`.
    const file = path.join(tempDir(), 'history.md');
    const lines = [
      '# aider chat started at 2024-08-21 11:24:03',
      '',
      '> Aider v0.50.1  ',
      '',
      '#### /add notes.md',
      '',
      '> Added notes.md to the chat',
      '',
      '#### check these steps for me',
      '',
      '####',
      '',
      '#### 1. Set the variables:',
      '',
      '#### ```',
      '',
      '#### API_TOKEN=your_token',
      '',
      '#### /usr/local/bin/app --check',
      '',
      '#### ```',
      '',
      'Step 1 looks right.',
      '',
      '#### /clear',
      '',
      '#### and step 2?',
      '',
      'Step 2 is missing a value.',
      '',
    ];
    writeFileSync(file, lines.join('\n'));
    const [session] = await sessionsOf(file);
    expect(session!.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'check these steps for me\n\n1. Set the variables:\n```\nAPI_TOKEN=your_token\n/usr/local/bin/app --check\n```'],
      ['assistant', 'Step 1 looks right.'],
      ['user', 'and step 2?'],
      ['assistant', 'Step 2 is missing a value.'],
    ]);
    const [withTools] = await sessionsOf(file, { include: ['tools'] });
    expect(withTools!.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      '[tool result: aider] Aider v0.50.1',
      '[tool call: /add] notes.md',
      '[tool result: aider] Added notes.md to the chat',
      '[tool call: /clear]',
    ]);
  });

  it('is recognised by content, before Markdown, and found in a folder although its name is hidden', async () => {
    expect(detectFormat(readFileSync(LOG))).toBe('aider');
    const dir = tempDir();
    mkdirSync(path.join(dir, 'project'));
    copyFileSync(LOG, path.join(dir, 'project', '.aider.chat.history.md'));
    writeFileSync(path.join(dir, 'project', '.aider.input.history'), '\n# 2025-06-02 11:49:34.000\n+What can you say about this package?\n');
    copyFileSync(LOG, path.join(dir, 'renamed notes.md'));
    const results = await readAll([dir]);
    expect(results.map((result) => [path.relative(dir, result.file), 'format' in result ? result.format : result.error.message])).toEqual([
      [path.join('project', '.aider.chat.history.md'), 'aider'],
      ['renamed notes.md', 'aider'],
    ]);
  });
});

describe('aider chat history saved again after it grew', () => {
  // The subject is what a grown log adds, not embedding: the hashing stand-in embeds, and no model loads.
  const bed = hashEngineTestBed();

  it('adds only the new turns and the new session', async () => {
    const file = path.join(tempDir(), '.aider.chat.history.md');
    copyFileSync(LOG, file);
    const engine = await bed.open(bed.dataDir());
    try {
      const saveAll = async () => {
        let added = 0;
        for (const session of await sessionsOf(file)) added += (await engine.save(session)).new;
        return added;
      };
      expect(await saveAll()).toBe(16);
      expect(await saveAll()).toBe(0);
      appendFileSync(file, '#### And what about the README?  \n\nThe README could say how to run the tests.\n\n> Tokens: 6.5k sent, 20 received.  \n');
      appendFileSync(file, '\n# aider chat started at 2025-06-02 13:08:34\n\n> C:\\Users\\user\\.local\\bin\\aider  \n\n#### Start over, please.  \n\nSure.\n');
      expect(await saveAll()).toBe(4);
    } finally {
      await engine.close();
    }
  });
});
