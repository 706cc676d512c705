/**
 * A rewind is a rewind: where a tool's file is the whole conversation, what the tool itself dropped
 * (Gemini CLI's /rewind, a Claude Code branch the person left) goes from memory at the next sync or
 * hook, and nothing goes when lines of the file were damaged.
 */
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SaveReport } from '../../shared/domain.js';
import type { MemoryEngine } from '../../electron/engine/engine.js';
import { SourceCursors } from '../../electron/sources/cursors.js';
import { syncFile } from '../../electron/sources/sync.js';
import { hashEngineTestBed } from '../helpers/engine.js';
import { fixture, tempDir } from './helpers.js';

// The subject is what a rewind removes, not embedding: the hashing stand-in embeds (the searches look for
// a message's own words), and no model loads.
const bed = hashEngineTestBed();

interface Synced {
  reports: SaveReport[];
  errors: string[];
  skipped: string[];
}

/** One sync of one file, as `sync` and `hook` do it (cursors kept in `cursorDir`). */
async function sync(engine: MemoryEngine, cursorDir: string, file: string, include?: Array<'tools' | 'thinking'>): Promise<Synced> {
  const synced: Synced = { reports: [], errors: [], skipped: [] };
  await syncFile('test', file, 'files', {
    cursors: await SourceCursors.load(cursorDir),
    engine: async () => engine,
    ...(include ? { include } : {}),
    onReport: (_source, _file, report) => synced.reports.push(report),
    onError: (_source, _file, message) => synced.errors.push(message),
    onSkipped: (_source, part) => synced.skipped.push(`line ${part.line}: ${part.error}`),
  });
  return synced;
}

/** The ids of the session's stored messages, sorted. */
async function storedIds(engine: MemoryEngine, sessionId: string): Promise<string[]> {
  return (await engine.showSession(sessionId)).messages.map((m) => m.msgId).sort();
}

async function found(engine: MemoryEngine, query: string, sessionId: string): Promise<string> {
  const hits = await engine.search(query);
  return hits.filter((hit) => hit.sessionId === sessionId).map((hit) => hit.text).join('\n');
}

async function setUp(): Promise<{ engine: MemoryEngine; cursors: string; dir: string }> {
  return { engine: await bed.open(bed.dataDir()), cursors: tempDir(), dir: tempDir() };
}

describe('a rewind in the tool removes what it dropped from memory', () => {
  // Gemini CLI up to 0.2x kept a chat as one JSON document and rewrote it on /rewind without the
  // messages from the chosen one on (its chatRecordingService.rewindTo). Our own text, its layout.
  it('Gemini CLI .json chat: the rewound messages go at the next sync; tool parts saved earlier stay', async () => {
    const { engine, cursors, dir } = await setUp();
    const sessionId = '6a0d2c4e-1f3b-4c5d-9e7f-8a9b0c1d2e3f';
    const message = (id: string, type: 'user' | 'gemini', content: string, extra: object = {}) => ({ id, timestamp: '2025-09-02T07:10:00.000Z', type, content, ...extra });
    const asked = message('m1', 'user', 'How long is the walk from Rossio to the castle?');
    const answered = message('m2', 'gemini', 'About twenty minutes, uphill through the Mouraria.', {
      toolCalls: [{ id: 'c1', name: 'google_web_search', args: { query: 'Rossio to castle walk' }, result: [{ functionResponse: { id: 'c1', name: 'google_web_search', response: { output: '1.1 km' } } }], status: 'success' }],
    });
    const chat = (messages: object[]) => JSON.stringify({ sessionId, projectHash: 'a'.repeat(64), startTime: '2025-09-02T07:10:00.000Z', lastUpdated: '2025-09-02T07:20:00.000Z', messages }, null, 2);
    const file = path.join(dir, 'session-2025-09-02T07-10-6a0d2c4e.json');
    writeFileSync(file, chat([asked, answered, message('m3', 'user', 'Where do we eat sardines afterwards?'), message('m4', 'gemini', 'The tascas below the castle grill sardines every evening in June.')]));
    // Saved once with the tool call and its result.
    expect((await sync(engine, cursors, file, ['tools'])).errors).toEqual([]);
    expect(await storedIds(engine, sessionId)).toEqual(['m1', 'm2', 'm2#1', 'm2#2', 'm3', 'm4']);
    expect(await found(engine, 'sardines grilled in the tascas', sessionId)).toContain('sardines');

    // /rewind to m3, then a different question: Gemini CLI rewrites the file without m3 and m4.
    writeFileSync(file, chat([asked, answered, message('m5', 'user', 'Is the castle open on Mondays?'), message('m6', 'gemini', 'Yes, every day from nine in the morning.')]));
    const { reports, errors } = await sync(engine, cursors, file);
    expect(errors).toEqual([]);
    expect(reports).toMatchObject([{ sessionId, deleted: 2, new: 2 }]);
    // The tool parts are still in the file (this sync left them out): they stay.
    expect(await storedIds(engine, sessionId)).toEqual(['m1', 'm2', 'm2#1', 'm2#2', 'm5', 'm6']);
    expect(await found(engine, 'sardines grilled in the tascas', sessionId)).not.toContain('sardines');
  });

  // Gemini CLI since 0.3x appends: `{"$rewindTo": id}` drops that message and those after it.
  it('Gemini CLI .jsonl chat: the messages a $rewindTo dropped go; those a $set of the list leaves out stay', async () => {
    const { engine, cursors, dir } = await setUp();
    const sessionId = '80635437-eb46-4542-bb1f-01ef2dcb525d';
    const file = path.join(dir, 'session-2026-12-04T18-20-80635437.jsonl');
    copyFileSync(fixture('gemini-cli', 'home', 'tmp', 'work', 'chats', path.basename(file)), file);
    await sync(engine, cursors, file);
    const kept = ['1ebbdda2-e1a8-4dc1-bc71-92b1b29f4c29', 'f7ad6d4b-758e-46f6-bf06-0b4b8b61f9e5'];
    expect(await storedIds(engine, sessionId)).toEqual([...kept, '91dcf77c-603d-4f65-ae20-6be2fa8ec7df', '2d77d4bc-af43-4726-b725-06f49d84db37'].sort());

    appendFileSync(
      file,
      [
        { $rewindTo: '91dcf77c-603d-4f65-ae20-6be2fa8ec7df' },
        { id: 'b7c1e2d3-0000-4000-8000-000000000001', timestamp: '2026-12-04T18:25:00.000Z', type: 'user', content: [{ text: 'Which stop is closest to the cathedral?' }] },
        { id: 'b7c1e2d3-0000-4000-8000-000000000002', timestamp: '2026-12-04T18:25:01.000Z', type: 'gemini', content: 'Get off tram 28 at Sé, right in front of the cathedral.' },
      ]
        .map((line) => JSON.stringify(line) + '\n')
        .join(''),
    );
    expect((await sync(engine, cursors, file)).reports).toMatchObject([{ sessionId, deleted: 2, new: 2 }]);
    expect(await storedIds(engine, sessionId)).toEqual([...kept, 'b7c1e2d3-0000-4000-8000-000000000001', 'b7c1e2d3-0000-4000-8000-000000000002'].sort());

    // Gemini CLI also rewrites the whole list (`$set`) when it compresses the chat: that is no rewind.
    const lines = readFileSync(file, 'utf8');
    appendFileSync(file, JSON.stringify({ $set: { messages: [{ id: 'b7c1e2d3-0000-4000-8000-000000000002', timestamp: '2026-12-04T18:25:01.000Z', type: 'gemini', content: 'Get off tram 28 at Sé, right in front of the cathedral.' }] } }) + '\n');
    expect(readFileSync(file, 'utf8').length).toBeGreaterThan(lines.length);
    expect((await sync(engine, cursors, file)).reports).toMatchObject([{ sessionId, deleted: 0 }]);
    expect(await storedIds(engine, sessionId)).toHaveLength(4);
  });
});

/** Claude Code's lines: `[uuid, parent, type, text]`. */
function claudeCodeLog(sessionId: string, lines: Array<[string, string | null, 'user' | 'assistant', string]>): string {
  return lines
    .map(([uuid, parentUuid, type, text], i) =>
      JSON.stringify({
        parentUuid,
        isSidechain: false,
        userType: 'external',
        cwd: '/home/ana/bread',
        sessionId,
        version: '2.1.332',
        type,
        message: type === 'user' ? { role: 'user', content: text } : { id: `msg_${uuid}`, type: 'message', role: 'assistant', content: [{ type: 'text', text }] },
        uuid,
        timestamp: `2026-11-30T10:0${i}:00.000Z`,
      }),
    )
    .map((line) => line + '\n')
    .join('');
}

describe('a Claude Code branch the person left', () => {
  const sessionId = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';
  const first: Array<[string, string | null, 'user' | 'assistant', string]> = [
    ['p1', null, 'user', 'Which flour do I need for a rye loaf?'],
    ['a1', 'p1', 'assistant', 'Dark rye flour, with a little bread flour for lift.'],
    ['p2', 'a1', 'user', 'How long should it proof?'],
    ['a2', 'p2', 'assistant', 'About two hours under a linen cloche in a warm kitchen.'],
  ];
  // Esc Esc back to p2, and another question: Claude Code appends it as a sibling of p2.
  const branch: Array<[string, string | null, 'user' | 'assistant', string]> = [
    ['p3', 'a1', 'user', 'Can I bake it in a Dutch oven?'],
    ['a3', 'p3', 'assistant', 'Yes: preheat the pot, then bake covered for forty minutes.'],
  ];

  it('is removed at the next sync; the branch taken stays', async () => {
    const { engine, cursors, dir } = await setUp();
    const file = path.join(dir, `${sessionId}.jsonl`);
    writeFileSync(file, claudeCodeLog(sessionId, first));
    await sync(engine, cursors, file);
    expect(await storedIds(engine, sessionId)).toEqual(['a1', 'a2', 'p1', 'p2']);

    appendFileSync(file, claudeCodeLog(sessionId, branch));
    const { reports, skipped } = await sync(engine, cursors, file);
    expect(skipped).toEqual([]);
    expect(reports).toMatchObject([{ sessionId, deleted: 2, new: 2 }]);
    expect(await storedIds(engine, sessionId)).toEqual(['a1', 'a3', 'p1', 'p3']);
    expect(await found(engine, 'proof under a linen cloche', sessionId)).not.toContain('cloche');
    expect(await found(engine, 'bake rye in a Dutch oven', sessionId)).toContain('Dutch oven');
  });

  it('stays when a line of the file is damaged: what the file does not show may only be unreadable', async () => {
    const { engine, cursors, dir } = await setUp();
    const file = path.join(dir, `${sessionId}.jsonl`);
    writeFileSync(file, claudeCodeLog(sessionId, first));
    await sync(engine, cursors, file);

    // A line cut off by a crash, then the branch.
    appendFileSync(file, '{"parentUuid":"a2","isSidechain":false,"type":"user","message":{"role":"us\n' + claudeCodeLog(sessionId, branch));
    const { reports, skipped } = await sync(engine, cursors, file);
    expect(skipped).toEqual([expect.stringMatching(/^line 5: /)]);
    expect(reports).toMatchObject([{ sessionId, deleted: 0, new: 2 }]);
    expect(reports[0]!.warnings.join('\n')).toMatch(/damaged line .* skipped, so stored messages the file does not show are kept/);
    expect(await storedIds(engine, sessionId)).toEqual(['a1', 'a2', 'a3', 'p1', 'p2', 'p3']);
    expect(await found(engine, 'proof under a linen cloche', sessionId)).toContain('cloche');
  });

  it('is removed while the next line is still being written: that line is no damage', async () => {
    const { engine, cursors, dir } = await setUp();
    const file = path.join(dir, `${sessionId}.jsonl`);
    writeFileSync(file, claudeCodeLog(sessionId, first));
    await sync(engine, cursors, file);
    appendFileSync(file, claudeCodeLog(sessionId, branch) + '{"parentUuid":"a3","isSidechain":false,"type":"user","message":{"role":"user","content":"And the');
    const { reports, skipped } = await sync(engine, cursors, file);
    expect(skipped).toEqual([]);
    expect(reports).toMatchObject([{ sessionId, deleted: 2, new: 2, warnings: [] }]);
    expect(await storedIds(engine, sessionId)).toEqual(['a1', 'a3', 'p1', 'p3']);
  });

  it('is not a branch where two tool results sit side by side: nothing goes', async () => {
    const { engine, cursors, dir } = await setUp();
    const file = path.join(dir, `${sessionId}.jsonl`);
    const line = (uuid: string, parentUuid: string | null, type: 'user' | 'assistant', content: unknown) =>
      JSON.stringify({ parentUuid, isSidechain: false, sessionId, type, message: { role: type, content }, uuid, timestamp: '2026-11-30T10:00:00.000Z' }) + '\n';
    writeFileSync(
      file,
      line('p1', null, 'user', 'Read both recipes and compare them.') +
        line('t1', 'p1', 'assistant', [{ type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'rye.md' } }]) +
        line('t2', 't1', 'assistant', [{ type: 'tool_use', id: 'tu2', name: 'Read', input: { file_path: 'spelt.md' } }]) +
        // Each result names its own call's line as parent: the chain forks here.
        line('r1', 't1', 'user', [{ type: 'tool_result', tool_use_id: 'tu1', content: 'Rye: rest ninety minutes.' }]),
    );
    await sync(engine, cursors, file, ['tools']);
    const before = await storedIds(engine, sessionId);
    expect(before).toContain('r1');
    appendFileSync(file, line('r2', 't2', 'user', [{ type: 'tool_result', tool_use_id: 'tu2', content: 'Spelt: rest forty minutes.' }]) + line('a1', 'r2', 'assistant', [{ type: 'text', text: 'Rye rests longer than spelt.' }]));
    const { reports } = await sync(engine, cursors, file, ['tools']);
    expect(reports).toMatchObject([{ sessionId, deleted: 0 }]);
    expect(await storedIds(engine, sessionId)).toEqual(expect.arrayContaining([...before, 'r2', 'a1']));
  });
});
