/** Grok, LibreChat and Google AI Studio exports, in the shapes those tools write. */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { detectFormat } from '../../electron/importers/index.js';
import { fixture, readAll, sessionsOf, tempDir, triples } from './helpers.js';

describe('Grok export', () => {
  const FILE = fixture('grok', 'prod-grok-backend.json');

  it('is recognised by content, and each conversation follows the branch that ends at its leaf', async () => {
    expect(detectFormat(readFileSync(FILE))).toBe('grok');
    const sessions = await sessionsOf(FILE);
    // The empty conversation has nothing to import.
    expect(sessions.map((s) => [s.sessionId, s.title, s.source])).toEqual([
      ['a3f0c1d2-7e6b-4c5a-9d8e-1f2a3b4c5d6e', 'Bread hydration', 'grok'],
      ['c1d2e3f4-1111-4111-8111-111111111113', 'Linear chat without links', 'grok'],
    ]);
    // r3 is a regenerated answer on another branch; "ASSISTANT" and "Human" in any case; a MongoDB date.
    expect(sessions[0]!.messages.map((m) => [m.msgId, m.role, m.timestamp])).toEqual([
      ['r1', 'user', '2025-04-02T18:00:00.000Z'],
      ['r2', 'assistant', '2025-04-02T18:00:20.000Z'],
      ['r4', 'user', '2025-04-02T18:05:00.000Z'],
      ['r5', 'assistant', '2025-04-02T18:05:00.000Z'],
    ]);
    // Without parent links, the order of the times.
    expect(sessions[1]!.messages.map((m) => m.content)).toEqual(['What is the capital of France?', 'Paris.']);
  });

  it('keeps the thinking trace out unless asked, and a dry run counts the conversations', async () => {
    const [withThinking] = await sessionsOf(FILE, { include: ['thinking'] });
    expect(triples(withThinking).slice(-2)).toEqual([
      ['r5#0', 'assistant', '[thinking] Whole wheat absorbs more water than white flour.'],
      ['r5', 'assistant', 'Add about 5% more water: bran absorbs it.'],
    ]);
  });

  it('a damaged conversation is skipped and named by its id', async () => {
    const document = JSON.parse(readFileSync(FILE, 'utf8')) as { conversations: Array<Record<string, unknown>> };
    document.conversations[2] = { ...document.conversations[2], responses: 'lost' };
    const file = path.join(tempDir(), 'prod-grok-backend.json');
    writeFileSync(file, JSON.stringify(document));
    const [result] = await readAll([file]);
    if (!result || 'error' in result) throw new Error(JSON.stringify(result));
    expect(result.sessions.map((s) => s.sessionId)).toEqual(['a3f0c1d2-7e6b-4c5a-9d8e-1f2a3b4c5d6e']);
    expect(result.skipped).toEqual([{ file, session: 'c1d2e3f4-1111-4111-8111-111111111113', error: expect.stringMatching(/^conversations\[2\]\.responses must be an array/) }]);
  });
});

describe('LibreChat export', () => {
  it('follows the latest branch of the children tree (a regenerated answer replaces the first one)', async () => {
    const file = fixture('librechat', 'LibreChat-Kitchen knife care.json');
    expect(detectFormat(readFileSync(file))).toBe('librechat');
    const [session] = await sessionsOf(file);
    expect(session).toMatchObject({ sessionId: '6a7b8c9d-1e2f-4a3b-8c4d-5e6f7a8b9c0d', title: 'Kitchen knife care', source: 'librechat' });
    expect(session!.messages.map((m) => [m.msgId, m.role, m.content])).toEqual([
      ['m1', 'user', "How often should I sharpen a chef's knife?"],
      ['m2b', 'assistant', 'Hone it weekly and sharpen it two or three times a year.'],
      ['m3', 'user', 'Whetstone or pull-through sharpener?'],
      ['m4', 'assistant', 'A whetstone: it removes less steel.'],
    ]);
    const [withThinking] = await sessionsOf(file, { include: ['thinking'] });
    expect(triples(withThinking).at(-2)).toEqual(['m4#0', 'assistant', '[thinking] The person wants a simple answer.']);
  });

  it('reads a flat export (recursive: false) by its parent ids', async () => {
    const [session] = await sessionsOf(fixture('librechat', 'flat-export.json'));
    expect(session!.messages.map((m) => m.content)).toEqual(['Name a green vegetable.', 'Broccoli.']);
  });
});

describe('Google AI Studio prompt', () => {
  const FILE = fixture('ai-studio', 'Dead Sea salt');

  it('is read from a file without an extension, titled by its name, with the system instruction and without thoughts', async () => {
    expect(detectFormat(readFileSync(FILE))).toBe('ai-studio');
    const [session] = await sessionsOf(FILE);
    expect(session).toMatchObject({ title: 'Dead Sea salt', source: 'ai-studio' });
    expect(session!.sessionId).toMatch(/^ai-studio-[0-9a-f]{16}$/);
    expect(session!.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'Answer like a patient geography teacher.'],
      ['user', 'Why is the Dead Sea so salty?'],
      ['assistant', 'Because water flows in but never flows out: it evaporates and leaves the salt behind.'],
      ['user', '[image]'],
      ['user', 'Is this photo of it?'],
      ['assistant', 'Yes: the white crust on the shore is salt.'],
    ]);
  });

  it('includes the thoughts with --include thinking, and keeps its session when the prompt grows', async () => {
    const [withThinking] = await sessionsOf(FILE, { include: ['thinking'] });
    expect(withThinking!.messages[2]).toEqual({ role: 'assistant', content: '[thinking] **Considering evaporation**\n\nThe lake has no outlet, so the water only leaves by evaporating.' });
    const prompt = JSON.parse(readFileSync(FILE, 'utf8')) as { chunkedPrompt: { chunks: unknown[] } };
    prompt.chunkedPrompt.chunks.push({ text: 'Can I float in it?', role: 'user' });
    const grown = path.join(tempDir(), 'Dead Sea salt (copy)');
    writeFileSync(grown, JSON.stringify(prompt));
    const [original] = await sessionsOf(FILE);
    const [later] = await sessionsOf(grown);
    expect(later!.sessionId).toBe(original!.sessionId);
    expect(later!.messages).toHaveLength(original!.messages.length + 1);
  });
});

describe('Gemini Apps activity from Google Takeout', () => {
  const FILE = fixture('gemini', 'Takeout', 'My Activity', 'Gemini Apps', 'MyActivity.json');

  it('groups the records into sessions by time, turns HTML answers into text, and leaves other products out', async () => {
    expect(detectFormat(readFileSync(FILE))).toBe('gemini');
    const sessions = await sessionsOf(FILE);
    expect(sessions.map((s) => [s.title, s.source, s.messages.length])).toEqual([
      // The record whose time cannot be read stays beside the record after it in the file (the older one).
      ['Which herbs grow well indoors?', 'gemini', 5],
      ["Translate 'good morning' into Japanese", 'gemini', 2],
    ]);
    const [herbs, japanese] = sessions as [(typeof sessions)[0], (typeof sessions)[0]];
    expect(herbs.messages.map((m) => [m.role, m.content, m.timestamp ?? null])).toEqual([
      ['user', 'Which herbs grow well indoors?', '2025-03-01T10:00:00.000Z'],
      ['assistant', 'Basil, mint and chives. See this guide.\n\nwater: twice a week', '2025-03-01T10:00:00.000Z'],
      ['user', 'How do I keep basil alive indoors?', '2025-03-01T10:12:00.000Z'],
      ['assistant', 'Three things matter:\n\n * A sunny window\n * Water when the top soil is dry\n * Pinch off the flowers', '2025-03-01T10:12:00.000Z'],
      ['user', 'And how do I say thank you?', null],
    ]);
    expect(japanese.messages[1]!.content).toBe('おはようございます (ohayō gozaimasu)');
    expect(herbs.sessionId).toMatch(/^gemini-[0-9a-f]{16}$/);
  });

  it('a later Takeout that adds records continues the latest session under the same ids', async () => {
    const records = JSON.parse(readFileSync(FILE, 'utf8')) as unknown[];
    const later = [{ header: 'Gemini Apps', products: ['Gemini Apps'], title: 'Prompted And good night?', time: '2025-03-02T08:03:00.000Z', safeHtmlItem: [{ html: '<p>おやすみなさい</p>' }] }, ...records];
    const file = path.join(tempDir(), 'MyActivity.json');
    writeFileSync(file, JSON.stringify(later));
    const before = await sessionsOf(FILE);
    const after = await sessionsOf(file);
    expect(after.map((s) => s.sessionId)).toEqual(before.map((s) => s.sessionId));
    expect(after[1]!.messages.slice(0, 2)).toEqual(before[1]!.messages);
    expect(after[1]!.messages.slice(2).map((m) => m.content)).toEqual(['And good night?', 'おやすみなさい']);
  });

  it("keeps a canvas Gemini wrote as its answer, and leaves out what the person did in the app (a feature used, a draft picked, feedback)", async () => {
    // Records in the shapes of a real Takeout of 2025-2026, with our own text.
    const record = (title: string, time: string, extra: Record<string, unknown> = {}) => ({ header: 'Gemini Apps', title, time, products: ['Gemini Apps'], activityControls: ['Gemini Apps Activity'], ...extra });
    const file = path.join(tempDir(), 'MyActivity.json');
    writeFileSync(
      file,
      JSON.stringify([
        record('Gave feedback: Bad response (Unspecified)', '2026-02-24T19:30:00.000Z'),
        record('Created Gemini Canvas titled Sourdough Schedule', '2026-02-24T18:52:00.000Z', { subtitles: [{ name: '# Sourdough Schedule\n\nFeed the starter at 8 am and 8 pm.' }] }),
        record('Prompted Make me a sourdough feeding schedule as a document', '2026-02-24T18:51:00.000Z', { safeHtmlItem: [{ html: '<p>Here is a schedule in a canvas.</p>' }] }),
        record('Selected preferred draft', '2026-02-24T18:50:30.000Z'),
        record('Used an Assistant feature', '2026-02-24T18:50:00.000Z'),
        record('Used an Assistant feature', '2026-02-20T09:00:00.000Z'),
      ]),
    );
    const sessions = await sessionsOf(file);
    // The feature used alone on Feb 20 was a session of its own, titled "Used an Assistant feature".
    expect(sessions.map((s) => [s.title, s.messages.map((m) => [m.role, m.content])])).toEqual([
      [
        'Make me a sourdough feeding schedule as a document',
        [
          ['user', 'Make me a sourdough feeding schedule as a document'],
          ['assistant', 'Here is a schedule in a canvas.'],
          ['assistant', '[canvas: Sourdough Schedule]\n# Sourdough Schedule\n\nFeed the starter at 8 am and 8 pm.\n[/canvas]'],
        ],
      ],
    ]);
  });

  it('a Takeout activity file of another product is not taken for Gemini', () => {
    expect(detectFormat(JSON.stringify([{ header: 'Search', title: 'Searched for basil', time: '2025-03-01T10:05:00.000Z', products: ['Search'] }]))).toBeUndefined();
  });
});
