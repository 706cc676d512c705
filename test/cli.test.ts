import { afterAll, describe, it, vi } from 'vitest';
import { promises as fs, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { realisticConversation } from '../scripts/transcriptGenerator.js';
import { collect, HASH_EMBEDDER, jsonLines, REPO, runCli, startCli } from './helpers/cli.js';
import { tempDir } from './helpers/engine.js';
import { folderSnapshot } from './helpers/files.js';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((c) => c()));

function workDir(): string {
  const { dir, cleanup } = tempDir('sm-cli-');
  cleanups.push(cleanup);
  return dir;
}

async function writeTranscript(dir: string, name: string, body: unknown): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, typeof body === 'string' ? body : JSON.stringify(body));
  return file;
}

/**
 * For the tests whose subject is not embedding (the command line's options, bad input, importing,
 * the vector index's upkeep, a killed save): the hashing stand-in embeds, so a run loads no model.
 * Saving and search, near duplicates and the model's download error run with the real model.
 */
function hashCli(args: string[], env: Record<string, string> = {}) {
  return runCli(args, { ...HASH_EMBEDDER, ...env });
}

const REPORT_FIELDS = ['sessionId', 'mode', 'skippedSession', 'total', 'new', 'updated', 'skipped', 'deleted', 'chunksWritten', 'chunksDeleted', 'chunkIds', 'embeddingsComputed', 'sharedMessages', 'redacted', 'nearDuplicates', 'durationMs', 'warnings'];

function transcript(count: number, sessionId = 'cli-session') {
  return {
    session_id: sessionId,
    title: 'CLI conversation',
    messages: Array.from({ length: count }, (_, i) => ({
      msg_id: `m${i}`,
      role: i % 2 ? 'assistant' : 'user',
      content: i % 2 ? `Answer ${i} about sourdough starters and feeding schedules.` : `Question ${i}: how often should I feed the sourdough starter?`,
    })),
  };
}

// Each test runs the CLI in processes of its own, on folders of its own, and most of its time is spent
// starting them and waiting on them: two tests at a time (describe.concurrent), so that one test's
// process runs while the other's starts or is read; not more on a two-core machine. Each asserts with
// its own `expect` (the test context's), as tests running at the same time must.
vi.setConfig({ maxConcurrency: 2 });

describe.concurrent('session-memory CLI', () => {
  it('saves, re-saves, appends and reports with the documented JSON fields', async ({ expect }) => {
    const dir = workDir();
    const data = path.join(dir, 'data');
    const file = await writeTranscript(dir, 'chat.json', transcript(10));
    const first = await runCli(['--data', data, 'save', file, '--json']);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const [report] = jsonLines(first.stdout);
    expect(Object.keys(report!)).toEqual(REPORT_FIELDS);
    expect(report).toMatchObject({ sessionId: 'cli-session', mode: 'incremental', skippedSession: false, total: 10, new: 10 });

    const again = await runCli(['--data', data, 'save', file, '--json']);
    expect(jsonLines(again.stdout)[0]).toMatchObject({ skippedSession: true, skipped: 10, embeddingsComputed: 0 });

    const longer = await writeTranscript(dir, 'longer.json', transcript(15));
    const human = await runCli(['--data', data, 'save', longer]);
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/cli-session: 15 messages: 5 new, 0 updated, 10 skipped -> \d+ chunks/);

    const sessions = JSON.parse((await runCli(['--data', data, 'sessions', '--json'])).stdout);
    expect(sessions).toEqual([expect.objectContaining({ sessionId: 'cli-session', title: 'CLI conversation', messageCount: 15, saves: 3 })]);
    expect(Object.keys(sessions[0])).toEqual(expect.arrayContaining(['sessionId', 'title', 'messageCount', 'chunkCount', 'archivedAt', 'lastSavedAt', 'saves']));

    const show = JSON.parse((await runCli(['--data', data, 'show', 'cli-session', '--json'])).stdout);
    expect(show.messages).toHaveLength(15);
    expect(Object.keys(show.messages[0])).toEqual(expect.arrayContaining(['msgId', 'role', 'content', 'contentHash', 'chunkId']));
    expect(Object.keys(show.chunks[0])).toEqual(expect.arrayContaining(['chunkId', 'text', 'msgIds', 'createdAt']));

    const history = JSON.parse((await runCli(['--data', data, 'history', 'cli-session', '--json'])).stdout);
    expect(history.map((e: { new: number; at: string }) => e.new)).toEqual([10, 0, 5]);
    expect(history[0].at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const hits = JSON.parse((await runCli(['--data', data, 'search', 'feeding a sourdough starter', '--limit', '3', '--json'])).stdout);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(Object.keys(hits[0])).toEqual(expect.arrayContaining(['chunkId', 'sessionId', 'text', 'score', 'msgIds']));

    const verify = await runCli(['--data', data, 'verify', '--json']);
    expect(verify.status).toBe(0);
    expect(JSON.parse(verify.stdout)).toEqual({ ok: true, sessions: 1, messages: 15, chunks: expect.any(Number), problems: [], retention: expect.objectContaining({ state: 'none' }) });
  });

  it('duplicates lists what two sessions both hold, as text and as the documented JSON, and a dismissed cluster stays away', async ({ expect }) => {
    const dir = workDir();
    const data = path.join(dir, 'data');
    const original = transcript(12, 'original');
    // The same answers pasted into another conversation, under other ids and after another opening.
    const copy = {
      session_id: 'copy',
      title: 'Pasted notes',
      messages: [{ msg_id: 'c0', role: 'user', content: 'Which sourdough notes did I keep from last spring? Paste them here.' }, ...original.messages.slice(4, 10).map((m, i) => ({ ...m, msg_id: `c${i + 1}` }))],
    };
    expect((await runCli(['--data', data, 'save', await writeTranscript(dir, 'a.json', original)])).status).toBe(0);
    const saved = await runCli(['--data', data, 'save', await writeTranscript(dir, 'b.json', copy)]);
    expect(saved.stdout).toMatch(/; \d+ already in other sessions, see `duplicates`/);

    const listed = await runCli(['--data', data, 'duplicates', '--json']);
    expect(listed.status).toBe(0);
    const listing = JSON.parse(listed.stdout);
    expect(listing).toMatchObject({ threshold: 0.95, dismissed: 0 });
    expect(listing.total).toBeGreaterThan(0);
    const [first] = listing.clusters;
    expect(Object.keys(first)).toEqual(['id', 'similarity', 'chunks']);
    expect(Object.keys(first.chunks[0])).toEqual(['chunkId', 'sessionId', 'sessionTitle', 'text']);
    expect(new Set(first.chunks.map((c: { sessionId: string }) => c.sessionId))).toEqual(new Set(['original', 'copy']));

    const human = await runCli(['--data', data, 'duplicates', '--limit', '1']);
    expect(human.stdout).toMatch(new RegExp(`^${listing.total} clusters? at similarity 0.95 or above`));
    expect(human.stdout).toContain(`${first.id}  similarity`);
    expect(human.stdout).toContain('copy (Pasted notes)');

    expect((await runCli(['--data', data, 'duplicates', '--dismiss', first.id])).stdout).toMatch(new RegExp(`^Dismissed ${first.id}`));
    const after = JSON.parse((await runCli(['--data', data, 'duplicates', '--json'])).stdout);
    expect(after.total).toBe(listing.total - 1);
    expect(after.dismissed).toBe(1);

    const bad = await runCli(['--data', data, 'duplicates', '--threshold', '0.5']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--threshold must be a similarity from 0.9 to 1, not "0.5"/);
  });

  it('--session supplies the id, --mode overwrite and --sync-deletes work from the command line', async ({ expect }) => {
    const dir = workDir();
    const data = path.join(dir, 'data');
    const { session_id: _drop, ...noId } = transcript(6);
    const file = await writeTranscript(dir, 'noid.json', noId);
    const saved = jsonLines((await hashCli(['--data', data, 'save', file, '--session', 'named', '--json'])).stdout)[0];
    expect(saved).toMatchObject({ sessionId: 'named', new: 6 });
    const shorter = await writeTranscript(dir, 'short.json', { messages: transcript(4).messages });
    const synced = jsonLines((await hashCli(['--data', data, 'save', shorter, '--session', 'named', '--sync-deletes', '--json'])).stdout)[0];
    expect(synced).toMatchObject({ deleted: 2, skipped: 4 });
    const over = jsonLines((await hashCli(['--data', data, 'save', file, '--session', 'named', '--mode', 'overwrite', '--json'])).stdout)[0];
    expect(over).toMatchObject({ mode: 'overwrite', new: 2, skipped: 4 });
  });

  it('save says when the store needs a vector index, and optimize builds it', async ({ expect }) => {
    const dir = workDir();
    const data = path.join(dir, 'data');
    // A threshold of 280 chunks stands in for the 50k of a real store (the index needs 256 rows to train).
    const env = { SESSION_MEMORY_TEST_VECTOR_INDEX_MIN_ROWS: '280' };
    const empty = await hashCli(['--data', data, 'optimize'], env);
    expect(empty.stdout).toContain('Nothing to do');
    const small = await hashCli(['--data', data, 'save', await writeTranscript(dir, 'a.json', transcript(20, 'a'))], env);
    expect(small.status).toBe(0);
    expect(small.stderr).not.toContain('vector index');
    const large = await hashCli(['--data', data, 'save', await writeTranscript(dir, 'b.json', transcript(1200, 'b'))], env);
    expect(large.status).toBe(0);
    expect(large.stderr).toMatch(/no vector index yet.*session-memory optimize/);
    const optimized = await hashCli(['--data', data, 'optimize', '--json'], env);
    expect(optimized.status).toBe(0);
    expect(JSON.parse(optimized.stdout)).toMatchObject({ vectorIndexBuilt: true });
    const again = await hashCli(['--data', data, 'save', await writeTranscript(dir, 'c.json', transcript(4, 'c'))], env);
    expect(again.stderr).not.toContain('vector index');
    expect((await hashCli(['--data', data, 'verify'], env)).status).toBe(0);
    expect((await hashCli(['--data', data, 'optimize'], env)).stdout).toMatch(/^store compacted in [\d.]+ s \(\d+ chunks\)\./);
  });

  it('when the default model cannot be downloaded, the error says so and names the offline model and the local-folder option', async ({ expect }) => {
    const dir = workDir();
    const file = await writeTranscript(dir, 'chat.json', transcript(2));
    // A hub address where nothing listens: the download fails at once, with or without internet.
    const result = await runCli(['--data', path.join(dir, 'data'), '--model', 'Xenova/paraphrase-multilingual-MiniLM-L12-v2', 'save', file], { SESSION_MEMORY_HUB_URL: 'http://127.0.0.1:9/' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/could not be downloaded.*--model use-lite-en.*--model <folder>/);
  });

  it('bad input exits non-zero with one line naming the file and the problem, and writes nothing', async ({ expect }) => {
    const dir = workDir();
    const data = path.join(dir, 'data');
    const good = await writeTranscript(dir, 'good.json', transcript(4));
    expect((await hashCli(['--data', data, 'save', good])).status).toBe(0);
    const before = JSON.parse((await hashCli(['--data', data, 'verify', '--json'])).stdout);

    const cases: Array<[string, unknown, RegExp]> = [
      ['invalid.json', '{"session_id": "x", "messages": [', /invalid\.json: .*(truncated|JSON)/i],
      ['empty-content.json', { session_id: 'x', messages: [{ role: 'user', content: '' }] }, /empty-content\.json: .*messages\[0\]\.content/],
      ['bad-role.json', { session_id: 'x', messages: [{ role: 'robot', content: 'hi' }] }, /bad-role\.json: .*role/],
    ];
    for (const [name, body, pattern] of cases) {
      const file = await writeTranscript(dir, name, body);
      const result = await hashCli(['--data', data, 'save', file]);
      expect(result.status, name).not.toBe(0);
      expect(result.stderr.trim().split('\n'), name).toHaveLength(1);
      expect(result.stderr, name).toMatch(pattern);
    }
    const missing = await hashCli(['--data', data, 'save', path.join(dir, 'nope.json')]);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/nope\.json/);
    const mode = await hashCli(['--data', data, 'save', good, '--mode', 'sideways']);
    expect(mode.status).not.toBe(0);
    expect(mode.stderr.trim().split('\n')).toHaveLength(1);
    expect(mode.stderr).toMatch(/sideways/);
    // An array with one bad session writes none of them.
    const mixed = await writeTranscript(dir, 'mixed.json', [transcript(3, 'fine'), { session_id: 'broken', messages: [{ role: 'user', content: '  ' }] }]);
    const mixedResult = await hashCli(['--data', data, 'save', mixed]);
    expect(mixedResult.status).not.toBe(0);
    expect(mixedResult.stderr).toMatch(/mixed\.json: sessions\[1\]\.messages\[0\]\.content/);
    const after = JSON.parse((await hashCli(['--data', data, 'verify', '--json'])).stdout);
    expect(after).toEqual(before);
  });

  it('import: every format in a folder, a dry run that writes nothing, a later export that adds only what is new, failed files reported', async ({ expect }) => {
    const dir = workDir();
    const data = path.join(dir, 'data');
    const fixtures = path.join(REPO, 'test', 'fixtures', 'import');
    const inbox = path.join(dir, 'inbox');
    await fs.mkdir(inbox);
    await fs.copyFile(path.join(fixtures, 'chatgpt', 'conversations.json'), path.join(inbox, 'conversations.json'));
    await fs.copyFile(path.join(fixtures, 'markdown', 'kyoto-notes.md'), path.join(inbox, 'kyoto-notes.md'));
    await fs.copyFile(path.join(fixtures, 'bad', 'truncated-conversations.json'), path.join(inbox, 'broken.json'));

    const dry = await hashCli(['--data', data, 'import', inbox, '--dry-run', '--json']);
    expect(dry.status).toBe(1); // one file failed
    const dryLines = jsonLines(dry.stdout);
    const failed = dryLines.filter((l) => 'error' in l && !('sessionId' in l));
    expect(failed).toEqual([{ file: path.join(inbox, 'broken.json'), error: expect.stringMatching(/broken\.json: /) }]);
    const previews = dryLines.filter((l) => 'sessionId' in l);
    expect(previews.length).toBeGreaterThan(1);
    expect(previews.every((p) => Number(p.new) > 0 && p.chunksWritten !== undefined)).toBe(true);
    // The data folder did not exist: a preview does not create it (nor a store in it).
    await expect(fs.stat(data)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(JSON.parse((await hashCli(['--data', data, 'sessions', '--json'])).stdout)).toEqual([]);

    const real = await hashCli(['--data', data, 'import', inbox, '--json']);
    const saved = jsonLines(real.stdout).filter((l) => 'sessionId' in l);
    expect(saved.map((s) => [s.sessionId, s.new])).toEqual(previews.map((p) => [p.sessionId, p.new]));

    const later = await hashCli(['--data', data, 'import', path.join(fixtures, 'chatgpt', 'conversations-later.json'), '--json']);
    expect(later.status).toBe(0);
    const laterReports = jsonLines(later.stdout);
    expect(laterReports.some((r) => Number(r.skipped) > 0 && Number(r.new) > 0)).toBe(true);
  });

  it('import --dry-run touches no file of the data folder, even when the near-duplicate files are behind the store', async ({ expect }) => {
    const dir = workDir();
    const data = path.join(dir, 'data');
    expect((await hashCli(['--data', data, 'save', await writeTranscript(dir, 'a.json', transcript(12, 'first'))])).status).toBe(0);
    expect((await hashCli(['--data', data, 'save', await writeTranscript(dir, 'b.json', transcript(12, 'second'))])).status).toBe(0);
    const fresh = await writeTranscript(dir, 'c.json', { ...transcript(12, 'third'), messages: transcript(12).messages.map((m, i) => ({ ...m, content: `${m.content} (third copy, ${i})` })) });
    const sketch = path.join(data, 'vector-sketch.bin');

    // A data folder from before the vector sketch: a save would build it; a preview must not.
    await fs.rm(sketch);
    const before = folderSnapshot(data);
    const dry = await hashCli(['--data', data, 'import', fresh, '--dry-run', '--json']);
    expect(dry.status).toBe(0);
    expect(jsonLines(dry.stdout)).toEqual([expect.objectContaining({ sessionId: 'third', new: 12 })]);
    expect(folderSnapshot(data)).toEqual(before);

    // A journal whose last record was cut short: the next writer cuts it off; a preview leaves it.
    expect((await hashCli(['--data', data, 'save', await writeTranscript(dir, 'b2.json', transcript(14, 'second'))])).status).toBe(0);
    await fs.appendFile(sketch, Buffer.from([7, 0, 0]));
    const cut = folderSnapshot(data);
    expect((await hashCli(['--data', data, 'import', fresh, '--dry-run', '--json'])).status).toBe(0);
    expect(folderSnapshot(data)).toEqual(cut);
  });

  it('import: a damaged conversation is skipped and named (exit 3), the rest imported; --strict refuses the file (exit 1) and writes nothing', async ({ expect }) => {
    const dir = workDir();
    const fixtures = path.join(REPO, 'test', 'fixtures', 'import');
    const exportFile = JSON.parse(await fs.readFile(path.join(fixtures, 'chatgpt', 'conversations.json'), 'utf8')) as Array<Record<string, unknown>>;
    const damaged = await writeTranscript(dir, 'conversations.json', [exportFile[0], { ...exportFile[1], mapping: undefined }, exportFile[2]]);
    const logLines = (await fs.readFile(path.join(fixtures, 'claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl'), 'utf8')).split('\n');
    logLines.splice(2, 0, '{"type":"user","message":{"role":"user","content":"cut off');
    const log = await writeTranscript(dir, 'session.jsonl', logLines.join('\n'));

    const strictData = path.join(dir, 'strict');
    const strict = await hashCli(['--data', strictData, 'import', damaged, '--strict', '--json']);
    expect(strict.status).toBe(1);
    expect(jsonLines(strict.stdout)).toEqual([{ file: damaged, error: expect.stringMatching(/conversations\.json: .*\[1\]\.mapping/) }]);
    expect(JSON.parse((await hashCli(['--data', strictData, 'sessions', '--json'])).stdout)).toEqual([]);

    const data = path.join(dir, 'data');
    const json = await hashCli(['--data', data, 'import', damaged, log, '--json']);
    expect(json.status).toBe(3);
    const lines = jsonLines(json.stdout);
    expect(lines.filter((l) => !('sessionId' in l))).toEqual([
      { file: damaged, session: exportFile[1]!.id, error: expect.stringMatching(/\[1\]\.mapping/) },
      { file: log, line: 3, error: expect.stringMatching(/line 3|JSON/) },
    ]);
    const saved = lines.filter((l) => 'sessionId' in l).map((l) => l.sessionId);
    expect(saved).toContain(exportFile[0]!.id);
    expect(saved).toHaveLength(2);
    const sessions = JSON.parse((await hashCli(['--data', data, 'sessions', '--json'])).stdout) as Array<{ sessionId: string; messageCount: number }>;
    expect(sessions.map((s) => s.sessionId).sort()).toEqual([...saved].sort());

    // Without --json: one readable line per skipped part on stderr, and the same exit code.
    const readable = await hashCli(['--data', path.join(dir, 'readable'), 'import', damaged, '--dry-run']);
    expect(readable.status).toBe(3);
    expect(readable.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^session-memory: skipped .*conversations\\.json, conversation ${exportFile[1]!.id}: \\[1\\]\\.mapping`))]);
  });

  it('import: an export cut off by an interrupted download imports its complete conversations and names the cut (exit 3); the complete file later adds only the rest', async ({ expect }) => {
    const dir = workDir();
    const data = path.join(dir, 'data');
    const complete = await fs.readFile(path.join(REPO, 'test', 'fixtures', 'import', 'chatgpt', 'conversations-later.json'));
    const ids = (JSON.parse(complete.toString('utf8')) as Array<{ id: string }>).map((c) => c.id);
    const end = complete.length - 300;
    const cut = await writeTranscript(dir, 'conversations.json', complete.subarray(0, end).toString('utf8'));

    const readable = await hashCli(['--data', data, 'import', cut]);
    expect(readable.status).toBe(3);
    expect(readable.stdout).toContain(`${cut} (chatgpt, 2 sessions, 1 damaged part skipped)`);
    expect(readable.stderr.trim().split('\n')).toEqual([
      `session-memory: skipped ${cut}, conversation [2]: truncated: the file is cut off at byte ${end}, after 2 complete conversations; this last, partial conversation was not imported (a fresh export or copy of the file brings it and the rest)`,
    ]);
    const stored = JSON.parse((await hashCli(['--data', data, 'sessions', '--json'])).stdout) as Array<{ sessionId: string; messageCount: number }>;
    expect(stored.map((s) => s.sessionId).sort()).toEqual(ids.slice(0, 2).sort());

    const whole = await hashCli(['--data', data, 'import', await writeTranscript(dir, 'conversations-complete.json', complete.toString('utf8')), '--json']);
    expect(whole.status).toBe(0);
    expect(jsonLines(whole.stdout).map((r) => [r.sessionId, r.new])).toEqual([[ids[0], 0], [ids[1], 0], [ids[2], 2]]);
    const after = JSON.parse((await hashCli(['--data', data, 'sessions', '--json'])).stdout) as Array<{ sessionId: string; messageCount: number }>;
    expect(after).toHaveLength(3);
    for (const before of stored) expect(after.find((s) => s.sessionId === before.sessionId)?.messageCount).toBe(before.messageCount);
  });

  it('save names the damaged lines it skipped (exit 3) and never deletes a stored message because its line was unreadable', async ({ expect }) => {
    const dir = workDir();
    const data = path.join(dir, 'data');
    const source = path.join(REPO, 'test', 'fixtures', 'import', 'claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl');
    const main = '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d';
    expect((await hashCli(['--data', data, 'save', source])).status).toBe(0);
    const stored = JSON.parse((await hashCli(['--data', data, 'show', main, '--json'])).stdout) as { messages: Array<{ msgId: string; content: string }> };
    expect(stored.messages.length).toBeGreaterThan(3);

    // The last message's line damaged on disk (cut short in the middle, as by a full disk).
    const lines = (await fs.readFile(source, 'utf8')).split('\n');
    const last = lines.findLastIndex((l) => l.trim());
    lines[last] = lines[last]!.slice(0, 80);
    const damaged = await writeTranscript(dir, 'damaged.jsonl', lines.join('\n'));

    const overwrite = await hashCli(['--data', data, 'save', damaged, '--mode', 'overwrite', '--json']);
    expect(overwrite.status).toBe(3);
    const out = jsonLines(overwrite.stdout);
    expect(out[0]).toEqual({ file: damaged, line: last + 1, error: expect.any(String) });
    expect(out[1]).toMatchObject({ sessionId: main, mode: 'incremental', deleted: 0, chunksDeleted: 0, warnings: [expect.stringMatching(/saved incrementally without deleting, not in overwrite mode as asked: 1 damaged line of .*damaged\.jsonl was skipped/)] });

    const synced = await hashCli(['--data', data, 'save', damaged, '--sync-deletes']);
    expect(synced.status).toBe(3);
    expect(synced.stderr).toContain(`session-memory: skipped ${damaged}, line ${last + 1}: `);
    expect(synced.stderr).toMatch(/warning: saved incrementally without deleting, not with deletes synced as asked/);

    const after = JSON.parse((await hashCli(['--data', data, 'show', main, '--json'])).stdout) as typeof stored;
    expect(after.messages.map((m) => [m.msgId, m.content])).toEqual(stored.messages.map((m) => [m.msgId, m.content]));

    // A whole file still overwrites as asked.
    const whole = jsonLines((await hashCli(['--data', data, 'save', source, '--mode', 'overwrite', '--json'])).stdout);
    expect(whole).toEqual([expect.objectContaining({ sessionId: main, mode: 'overwrite', warnings: [] })]);
  });

  it('import: a folder passes over the transcripts in it that hold no message (exit 0), a file named alone and holding none is refused (exit 1)', async ({ expect }) => {
    const dir = workDir();
    const folder = path.join(dir, 'claude');
    await fs.mkdir(folder);
    const main = '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d';
    await fs.copyFile(path.join(REPO, 'test', 'fixtures', 'import', 'claude-code', `${main}.jsonl`), path.join(folder, `${main}.jsonl`));
    // Claude Code leaves a log of a session opened and closed without a prompt; Gemini CLI a chat
    // file holding only its own context when a resume starts in another minute.
    const opened = await writeTranscript(folder, '9d1c2b3a-0000-4000-8000-000000000001.jsonl', '{"type":"summary","summary":"New session","leafUuid":"x"}\n');
    const header = { sessionId: '80635437-eb46-4542-bb1f-01ef2dcb525d', projectHash: 'ab', startTime: '2026-12-04T18:21:02.120Z', lastUpdated: '2026-12-04T18:21:02.120Z', kind: 'main' };
    const context = { id: 'd049', timestamp: '2026-12-04T18:21:02.120Z', type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }] };
    const resumed = await writeTranscript(folder, 'session-2026-12-04T18-21-80635437.jsonl', `${JSON.stringify(header)}\n${JSON.stringify({ $set: { messages: [context] } })}\n`);

    const data = path.join(dir, 'data');
    const json = await hashCli(['--data', data, 'import', folder, '--json']);
    expect(json.status).toBe(0);
    const lines = jsonLines(json.stdout);
    expect(lines.filter((l) => !('sessionId' in l))).toEqual([
      { file: opened, passedOver: 'no messages to import' },
      { file: resumed, passedOver: 'no messages to import' },
    ]);
    expect(lines.filter((l) => 'sessionId' in l).map((l) => l.sessionId)).toEqual([main]);
    const readable = await hashCli(['--data', path.join(dir, 'readable'), 'import', folder]);
    expect(readable.status).toBe(0);
    expect(readable.stderr).toContain(`session-memory: passed over ${resumed}: no messages to import`);

    const alone = await hashCli(['--data', data, 'import', resumed]);
    expect(alone.status).toBe(1);
    expect(alone.stderr).toContain(`session-memory: ${resumed}: no messages to import`);
  });

  it("import: a Claude Code project folder gives the main session and each subagent's own session, which names it in sessions --json", async ({ expect }) => {
    const data = path.join(workDir(), 'data');
    const result = await hashCli(['--data', data, 'import', path.join(REPO, 'test', 'fixtures', 'import', 'claude-code'), '--json']);
    expect(result.status).toBe(0);
    const sessions = JSON.parse((await hashCli(['--data', data, 'sessions', '--json'])).stdout) as Array<{ sessionId: string; title: string; parentSessionId?: string }>;
    const main = '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d';
    expect(sessions.map((s) => [s.sessionId, s.parentSessionId ?? null]).sort()).toEqual([
      [main, null],
      [`${main}:agent-a7f3e9c1`, main],
    ]);
    const readable = await hashCli(['--data', data, 'sessions']);
    expect(readable.stdout).toMatch(new RegExp(`${main}:agent-a7f3e9c1  Subagent: Find every test .*, from ${main}\\n`));
  });

  it('a save killed half-way (SIGKILL) and run again leaves exactly what one clean run leaves', async ({ expect }) => {
    const dir = workDir();
    // The stand-in embeds in no time, so the save is commits alone: 1,600 messages in batches of 16
    // (about 110 commits) keep it running for a second or more after the fourth, for the kill to land.
    const file = await writeTranscript(dir, 'long.json', realisticConversation('crash-session', 1600, 3));
    const clean = path.join(dir, 'clean');
    const cleanRun = await hashCli(['--data', clean, 'save', file, '--json'], { SESSION_MEMORY_TEST_WRITE_BATCH: '16' });
    expect(cleanRun.status).toBe(0);
    const expected = JSON.parse((await hashCli(['--data', clean, 'show', 'crash-session', '--json'])).stdout);

    const crashed = path.join(dir, 'crashed');
    const versions = path.join(crashed, 'lancedb', 'chunks.lance', '_versions');
    const child = startCli(['--data', crashed, 'save', file, '--json'], { SESSION_MEMORY_TEST_WRITE_BATCH: '16', ...HASH_EMBEDDER });
    const done = collect(child);
    // Kill it once a few commits have landed, well before the end.
    const killedAfter = await new Promise<number>((resolve) => {
      const timer = setInterval(() => {
        const count = existsSync(versions) ? readdirSync(versions).length : 0;
        if (count >= 4) {
          child.kill('SIGKILL');
          clearInterval(timer);
          resolve(count);
        }
      }, 5);
    });
    const killed = await done;
    expect(killed.signal).toBe('SIGKILL');
    expect(killedAfter).toBeGreaterThanOrEqual(4);
    const partial = JSON.parse((await hashCli(['--data', crashed, 'show', 'crash-session', '--json'])).stdout);
    expect(partial.messages.length).toBeGreaterThan(0);
    expect(partial.messages.length).toBeLessThan(expected.messages.length);

    const rerun = await hashCli(['--data', crashed, 'save', file, '--json']);
    expect(rerun.status).toBe(0);
    const report = jsonLines(rerun.stdout)[0]!;
    expect(report.skipped).toBe(partial.messages.length);
    expect(report.new).toBe(1600 - partial.messages.length);
    const actual = JSON.parse((await hashCli(['--data', crashed, 'show', 'crash-session', '--json'])).stdout);
    expect(actual.messages.map((m: { msgId: string; contentHash: string; chunkId: string }) => [m.msgId, m.contentHash, m.chunkId])).toEqual(
      expected.messages.map((m: { msgId: string; contentHash: string; chunkId: string }) => [m.msgId, m.contentHash, m.chunkId]),
    );
    expect(actual.chunks.map((c: { chunkId: string; text: string }) => [c.chunkId, c.text])).toEqual(expected.chunks.map((c: { chunkId: string; text: string }) => [c.chunkId, c.text]));
    const verify = JSON.parse((await hashCli(['--data', crashed, 'verify', '--json'])).stdout);
    expect(verify).toMatchObject({ ok: true, messages: 1600, problems: [] });
  });
});
