import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import type { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { ARCHIVE_RECORD_FILE } from '../electron/engine/record/archiveRecord.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import { conversation, openEngine, startTestEmbedder, tempDir } from './helpers/engine.js';
import { TEST_MODELS_DIR, testModelDir } from './helpers/model.js';

let embedder: WorkerEmbedder;
const dirs: Array<() => void> = [];

beforeAll(async () => {
  embedder = await startTestEmbedder();
});

afterAll(async () => {
  await embedder.close();
  for (const cleanup of dirs) cleanup();
});

async function freshEngine(): Promise<{ engine: MemoryEngine; dir: string }> {
  const { dir, cleanup } = tempDir();
  dirs.push(cleanup);
  return { engine: await openEngine(dir, embedder), dir };
}

/** Every stored message of a session, as `show` reports it. */
async function storedContents(engine: MemoryEngine, sessionId: string): Promise<Map<string, string>> {
  const detail = await engine.showSession(sessionId);
  return new Map(detail.messages.map((m) => [m.msgId, m.content]));
}

describe('the original design\'s cases', () => {
  it('first save of 10 messages stores all of them in chunks, each embedded once', async () => {
    const { engine } = await freshEngine();
    const report = await engine.save(conversation(10));
    expect(report).toMatchObject({ sessionId: 'session-a', mode: 'incremental', skippedSession: false, total: 10, new: 10, updated: 0, skipped: 0, deleted: 0 });
    expect(report.chunksWritten).toBeGreaterThan(1);
    expect(report.chunksWritten).toBeLessThan(10);
    expect(report.embeddingsComputed).toBe(report.chunksWritten);
    expect(report.chunkIds).toHaveLength(report.chunksWritten);
    const detail = await engine.showSession('session-a');
    expect(detail.messages.map((m) => m.msgId)).toEqual(conversation(10).messages.map((m) => m.msgId));
    expect(new Set(detail.chunks.map((c) => c.chunkId))).toEqual(new Set(report.chunkIds));
    expect(await engine.verify()).toMatchObject({ ok: true, sessions: 1, messages: 10 });
    await engine.close();
  });

  it('re-saving the same session is recognised at once: nothing embedded or written', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(10));
    const report = await engine.save(conversation(10));
    expect(report).toMatchObject({ skippedSession: true, total: 10, new: 0, skipped: 10, chunksWritten: 0, embeddingsComputed: 0 });
    await engine.close();
  });

  it('appending 5 messages processes only those 5; earlier chunks are untouched', async () => {
    const { engine } = await freshEngine();
    const first = await engine.save(conversation(10));
    const report = await engine.save(conversation(15));
    expect(report).toMatchObject({ skippedSession: false, total: 15, new: 5, updated: 0, skipped: 10, chunksDeleted: 0 });
    expect(report.embeddingsComputed).toBe(report.chunksWritten);
    expect(report.chunkIds.some((id) => first.chunkIds.includes(id))).toBe(false);
    const detail = await engine.showSession('session-a');
    expect(detail.messages).toHaveLength(15);
    expect(detail.chunks.map((c) => c.chunkId)).toEqual(expect.arrayContaining(first.chunkIds));
    await engine.close();
  });

  it('a mix of 5 stored and 5 new messages stores only the new ones', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(10));
    const mixed: SessionInput = { ...conversation(0), messages: [...conversation(10).messages.slice(5), ...conversation(5, { start: 10 }).messages] };
    const report = await engine.save(mixed);
    expect(report).toMatchObject({ total: 10, new: 5, skipped: 5, updated: 0, deleted: 0 });
    expect((await engine.showSession('session-a')).messages).toHaveLength(15);
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });

  it('the archive survives a restart', async () => {
    const { engine, dir } = await freshEngine();
    await engine.save(conversation(10));
    await engine.close();
    const reopened = await openEngine(dir, embedder);
    const report = await reopened.save(conversation(10));
    expect(report.skippedSession).toBe(true);
    expect((await reopened.listSessions()).map((s) => [s.sessionId, s.messageCount, s.saves])).toEqual([['session-a', 10, 2]]);
    await reopened.close();
  });
});

describe('the original design\'s flaws, fixed', () => {
  it('a message from the middle of a chunk is recognised, not stored again', async () => {
    const { engine } = await freshEngine();
    // Short turns on one topic: several share a chunk.
    const short = (n: number): SessionInput => ({
      sessionId: 'short',
      messages: Array.from({ length: n }, (_, i) => ({ msgId: `s${i}`, role: i % 2 ? 'assistant' : 'user', content: i % 2 ? `Water the garden soil, note ${i}.` : `Garden soil question ${i}?` })),
    });
    const first = await engine.save(short(10));
    const detail = await engine.showSession('short');
    const wide = detail.chunks.find((c) => c.msgIds.length >= 3);
    expect(wide, 'the test needs a chunk of three or more messages').toBeDefined();
    const middle = wide!.msgIds[1]!;
    // Only the middle message and one new one: the old design saw the middle one as new.
    const input = short(11);
    const report = await engine.save({ ...input, messages: input.messages.filter((m) => m.msgId === middle || m.msgId === 's10') });
    expect(report).toMatchObject({ new: 1, skipped: 1, updated: 0 });
    const after = await engine.showSession('short');
    expect(after.messages.filter((m) => m.msgId === middle)).toHaveLength(1);
    expect(after.chunks.filter((c) => c.msgIds.includes(middle)).map((c) => c.chunkId)).toEqual([wide!.chunkId]);
    expect(first.chunkIds).toContain(wide!.chunkId);
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });

  it('an edit of the same length is detected, and the old text is gone from the store', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(10));
    const edited = conversation(10);
    const original = edited.messages[4]!.content;
    const replaced = original.replace('Question 4', 'Querying 4'); // same length
    expect(replaced.length).toBe(original.length);
    edited.messages[4] = { ...edited.messages[4]!, content: replaced };
    const report = await engine.save(edited);
    expect(report).toMatchObject({ new: 0, updated: 1, skipped: 9 });
    expect(report.embeddingsComputed).toBe(1);
    expect(report.chunksWritten).toBe(1);
    const detail = await engine.showSession('session-a');
    expect(detail.messages.find((m) => m.msgId === 'msg-4')!.content).toBe(replaced);
    expect(detail.chunks.some((c) => c.text.includes('Question 4'))).toBe(false);
    expect(detail.chunks.filter((c) => c.text.includes('Querying 4'))).toHaveLength(1);
    const hits = await engine.search('Question 4', { limit: 50 });
    expect(hits.some((h) => h.text.includes('Question 4:'))).toBe(false);
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });

  it('an id-less transcript saved twice is stored once', async () => {
    const { engine } = await freshEngine();
    const first = await engine.save(conversation(8, { withIds: false }));
    expect(first.new).toBe(8);
    const again = await engine.save(conversation(8, { withIds: false }));
    expect(again.skippedSession).toBe(true);
    const grown = await engine.save(conversation(10, { withIds: false }));
    expect(grown).toMatchObject({ new: 2, skipped: 8 });
    expect((await engine.showSession('session-a')).messages).toHaveLength(10);
    await engine.close();
  });

  it('an id repeated inside one input is stored once, with a warning', async () => {
    const { engine } = await freshEngine();
    const input = conversation(6);
    input.messages.push({ ...input.messages[2]!, content: 'a different text under a repeated id' });
    const report = await engine.save(input);
    expect(report.total).toBe(6);
    expect(report.new).toBe(6);
    expect(report.warnings).toEqual([expect.stringContaining('msg-2 appears again at messages[6]')]);
    const stored = await storedContents(engine, 'session-a');
    expect(stored.size).toBe(6);
    expect(stored.get('msg-2')).toBe(input.messages[2]!.content);
    await engine.close();
  });
});

describe('the same input again', () => {
  it('is recognised from one hash of the text as given; other options or any change look again', async () => {
    const { engine } = await freshEngine();
    const input = conversation(6);
    input.messages.push({ ...input.messages[2]!, content: 'a different text under a repeated id' });
    expect((await engine.save(input)).warnings).toHaveLength(1);
    // Recognised before its messages are read: the warning about them was given at its first save.
    const again = await engine.save(input);
    expect(again).toMatchObject({ skippedSession: true, total: 6, skipped: 6, warnings: [], embeddingsComputed: 0 });
    // An input that holds fewer messages than the store (saved without sync-deletes) reports its own total.
    const part = { ...input, messages: input.messages.slice(0, 3) };
    expect(await engine.save(part)).toMatchObject({ skippedSession: false, total: 3, new: 0, skipped: 3 });
    expect(await engine.save(part)).toMatchObject({ skippedSession: true, total: 3, skipped: 3 });
    // Another option that shapes what is stored, or any change of the text, goes through the checks.
    expect((await engine.save(input, { syncDeletes: true })).warnings).toHaveLength(1);
    expect((await engine.save(input, { redact: false })).warnings).toHaveLength(1);
    const edited = { ...input, messages: input.messages.map((m, i) => (i === 4 ? { ...m, content: `${m.content} (edited)` } : m)) };
    expect(await engine.save(edited)).toMatchObject({ skippedSession: false, updated: 1 });
    // The first input now differs from what is stored: it is saved again, not skipped.
    expect(await engine.save(input)).toMatchObject({ skippedSession: false, updated: 1 });
    await engine.close();
  });
});

describe('modes', () => {
  it('overwrite replaces the session\'s chunks; texts already embedded are not embedded again', async () => {
    const { engine } = await freshEngine();
    const first = await engine.save(conversation(10));
    const same = await engine.save(conversation(10), { mode: 'overwrite' });
    expect(same).toMatchObject({ mode: 'overwrite', skippedSession: false, embeddingsComputed: 0 });
    expect(new Set(same.chunkIds)).toEqual(new Set(first.chunkIds));

    const shorter = await engine.save(conversation(6), { mode: 'overwrite' });
    expect(shorter).toMatchObject({ total: 6, deleted: 4 });
    expect(shorter.chunksDeleted).toBeGreaterThan(0);
    const detail = await engine.showSession('session-a');
    expect(detail.messages.map((m) => m.msgId)).toEqual(['msg-0', 'msg-1', 'msg-2', 'msg-3', 'msg-4', 'msg-5']);
    expect(detail.chunks.every((c) => c.msgIds.every((id) => Number(id.slice(4)) < 6))).toBe(true);
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });

  it('skip-if-archived skips a session that is archived at all, even with new messages', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(10));
    const report = await engine.save(conversation(14), { mode: 'skip-if-archived' });
    expect(report).toMatchObject({ skippedSession: true, new: 0, chunksWritten: 0, embeddingsComputed: 0 });
    expect((await engine.showSession('session-a')).messages).toHaveLength(10);
    const other = await engine.save(conversation(4, { sessionId: 'session-b' }), { mode: 'skip-if-archived' });
    expect(other).toMatchObject({ skippedSession: false, new: 4 });
    await engine.close();
  });

  it('sync-deletes removes stored messages absent from the input, with their chunks', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(10));
    const input = conversation(10);
    input.messages = input.messages.filter((m) => m.msgId !== 'msg-3' && m.msgId !== 'msg-7');
    const without = await engine.save(input);
    expect(without).toMatchObject({ deleted: 0, skipped: 8 });
    const report = await engine.save(input, { syncDeletes: true });
    expect(report).toMatchObject({ deleted: 2, new: 0, updated: 0, skipped: 8 });
    expect(report.chunksDeleted).toBeGreaterThan(0);
    const detail = await engine.showSession('session-a');
    expect(detail.messages.map((m) => m.msgId)).not.toContain('msg-3');
    expect(detail.chunks.some((c) => c.text.includes('Answer 3:') || c.text.includes('Answer 7:'))).toBe(false);
    expect(detail.messages).toHaveLength(8);
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });

  it('a dry run reports what a save would do and writes nothing', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(10));
    const preview = await engine.save(conversation(14), { dryRun: true });
    expect(preview).toMatchObject({ dryRun: true, new: 4, skipped: 10 });
    expect(preview.chunksWritten).toBeGreaterThan(0);
    expect((await engine.showSession('session-a')).messages).toHaveLength(10);
    expect(await engine.history('session-a')).toHaveLength(1);
    const preview2 = await engine.save(conversation(3, { sessionId: 'never-saved' }), { dryRun: true });
    expect(preview2).toMatchObject({ new: 3, dryRun: true });
    expect((await engine.listSessions()).map((s) => [s.sessionId, s.messageCount])).toEqual([['session-a', 10]]);
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });
});

describe('progress', () => {
  it('every save ends its progress with done: a first save, an unchanged re-save, an edit, a dry run', async () => {
    const { engine } = await freshEngine();
    const phases = async (job: (onProgress: (p: { phase: string }) => void) => Promise<unknown>) => {
      const seen: string[] = [];
      await job((p) => seen.push(p.phase));
      return seen;
    };
    const first = await phases((onProgress) => engine.save(conversation(10), { onProgress }));
    expect(first[0]).toBe('reading');
    expect(first).toContain('embedding');
    expect(first.at(-1)).toBe('done');
    // Already archived: nothing to embed or write, and still a bar that reaches its end.
    expect(await phases((onProgress) => engine.save(conversation(10), { onProgress }))).toEqual(['reading', 'done']);
    const edited = conversation(10);
    edited.messages[3] = { ...edited.messages[3]!, content: 'An edited answer about compost.' };
    expect((await phases((onProgress) => engine.save(edited, { onProgress }))).at(-1)).toBe('done');
    expect((await phases((onProgress) => engine.save(conversation(12), { onProgress, dryRun: true }))).at(-1)).toBe('done');
    await engine.close();
  });
});

describe('readers and compaction in another process', () => {
  it('compaction keeps the versions of the last hour, which another process may still be reading', async () => {
    const { engine } = await freshEngine();
    for (let i = 1; i <= 3; i++) await engine.save(conversation(4 * i));
    const tables = engine.store as unknown as Record<'chunks' | 'sessions', { optimize: (options: { cleanupOlderThan: Date }) => Promise<unknown> }>;
    const cutoffs: number[] = [];
    for (const name of ['chunks', 'sessions'] as const) {
      const table = tables[name];
      const real = table.optimize.bind(table);
      table.optimize = async (options) => {
        cutoffs.push(options.cleanupOlderThan.getTime());
        return real(options);
      };
    }
    const now = Date.now();
    await engine.store.optimize();
    expect(cutoffs).toHaveLength(2);
    for (const cutoff of cutoffs) expect(now - cutoff).toBeGreaterThanOrEqual(60 * 60_000 - 1_000);
    // The store still reads whole after compaction.
    expect((await engine.showSession('session-a')).messages).toHaveLength(12);
    await engine.close();
  });

  it('a read that fails on missing files is tried once more on the newest version (a version being committed, a few times); only a second failure is damage', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(6));
    const store = engine.store as unknown as { sessionChunks: (id: string) => Promise<unknown> };
    const real = store.sessionChunks.bind(store);
    let failures = 1;
    let message = 'lance error: Not found: /data/lancedb/chunks.lance/data/0101.lance';
    store.sessionChunks = async (id) => {
      if (failures-- > 0) throw new Error(message);
      return real(id);
    };
    expect((await engine.showSession('session-a')).messages).toHaveLength(6);
    // A version another machine is committing to a shared store, not readable for a moment, is waited for.
    failures = 3;
    message = 'lance error: LanceError(IO): Object at location memory/chunks.lance/_versions/18446744073709551610.manifest not found: Error performing HEAD';
    expect((await engine.showSession('session-a')).messages).toHaveLength(6);
    failures = 2;
    message = 'lance error: Not found: /data/lancedb/chunks.lance/data/0101.lance';
    await expect(engine.showSession('session-a')).rejects.toMatchObject({ code: 'store_damaged', message: expect.stringMatching(/^reading session session-a: the store's files are damaged or missing/) });
    await engine.close();
  });
});

describe('ids the store could not keep as given', () => {
  it('a message id that starts with a byte order mark is refused with one line, and nothing is written', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(4));
    const input = conversation(6);
    input.messages[5] = { ...input.messages[5]!, msgId: '\uFEFFmsg-5' };
    await expect(engine.save(input)).rejects.toThrow(/messages\[5\]\.msgId must not start with U\+FEFF/);
    expect((await engine.showSession('session-a')).messages).toHaveLength(4);
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });
});

describe('a text is embedded once, whichever session holds it', () => {
  it('a copy of a conversation under another id (a fork, id-less) embeds only the chunks with new text', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(40, { withIds: false, sessionId: 'original' }));
    const fork = conversation(30, { withIds: false, sessionId: 'fork' });
    fork.messages.push(...conversation(10, { withIds: false, start: 100 }).messages);
    const report = await engine.save(fork);
    const original = new Set((await engine.showSession('original')).chunks.map((c) => c.text));
    const forkChunks = (await engine.showSession('fork')).chunks;
    const newTexts = new Set(forkChunks.map((c) => c.text).filter((text) => !original.has(text)));
    expect(report.chunksWritten).toBe(forkChunks.length);
    expect(newTexts.size).toBeLessThan(forkChunks.length);
    expect(report.embeddingsComputed).toBe(newTexts.size);
    // The fork's reused vectors are the original's: its search finds both sessions' copies, the
    // fork's as a copy of the original's result (each memory once), or as its own with --all-copies.
    const query = conversation(1).messages[0]!.content;
    const hits = await engine.search(query, { limit: 10 });
    expect(new Set(hits.flatMap((h) => [h.sessionId, ...h.alsoIn.map((a) => a.sessionId)]))).toEqual(new Set(['original', 'fork']));
    expect(hits.filter((h) => h.alsoIn.some((a) => a.sessionId === 'fork')).length).toBeGreaterThan(0);
    const allCopies = await engine.search(query, { limit: 10, collapse: false });
    expect(new Set(allCopies.slice(0, 2).map((h) => h.sessionId))).toEqual(new Set(['original', 'fork']));
    await engine.close();
  });

  it('a dry run of the copy counts only the embeddings it would compute', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(20, { sessionId: 'original' }));
    const report = await engine.save(conversation(20, { sessionId: 'copy' }), { dryRun: true });
    expect(report).toMatchObject({ new: 20, embeddingsComputed: 0 });
    expect(report.chunksWritten).toBeGreaterThan(0);
    await engine.close();
  });
});

describe('search shows each memory once', () => {
  it('copies of a conversation in other sessions are one result that names them; without collapsing each copy is its own', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(12, { sessionId: 'first' }));
    await engine.save(conversation(12, { sessionId: 'copy-1' }));
    await engine.save(conversation(12, { sessionId: 'copy-2' }));
    const query = 'how should I think about the budget';
    const hits = await engine.search(query, { limit: 5 });
    const texts = hits.map((h) => h.text);
    expect(new Set(texts).size).toBe(texts.length);
    const top = hits[0]!;
    expect(new Set(top.alsoIn.map((c) => c.sessionId))).toEqual(new Set(['first', 'copy-1', 'copy-2'].filter((s) => s !== top.sessionId)));
    // The list is filled with distinct results up to the limit.
    const distinctChunks = new Set((await engine.showSession('first')).chunks.map((c) => c.text)).size;
    expect(hits).toHaveLength(Math.min(5, distinctChunks));
    const all = await engine.search(query, { limit: 15, collapse: false });
    expect(all.filter((h) => h.text === top.text)).toHaveLength(3);
    expect(all.every((h) => h.alsoIn.length === 0)).toBe(true);
    await engine.close();
  });

  it('when copies crowd the best candidates, the list is still filled with distinct results', async () => {
    const { engine } = await freshEngine();
    // Twelve copies of one short conversation rank above everything else for its question...
    for (let c = 0; c < 12; c++) await engine.save(conversation(4, { sessionId: `copy-${c}` }));
    // ...and one long conversation holds the other, distinct memories.
    await engine.save(conversation(60, { sessionId: 'long', start: 500, topicEvery: 2 }));
    const hits = await engine.search(conversation(1).messages[0]!.content, { limit: 6 });
    expect(hits).toHaveLength(6);
    expect(new Set(hits.map((h) => h.text)).size).toBe(6);
    const copies = hits.find((h) => h.sessionId.startsWith('copy-'))!;
    expect(copies.alsoIn.length).toBeGreaterThanOrEqual(11);
    await engine.close();
  });

  it('how many times a conversation was saved does not change how the other memories rank', async () => {
    const searchAfter = async (copies: number) => {
      const { engine } = await freshEngine();
      await engine.save(conversation(60, { sessionId: 'long', start: 500, topicEvery: 2 }));
      for (let c = 0; c < copies; c++) await engine.save(conversation(4, { sessionId: `copy-${c}` }));
      // Asked in words no text holds, so that it is found by meaning alone: the word statistics of the
      // full-text side (how many texts hold a word) change with every copy, and with them its scores.
      const hits = await engine.search('advice on irrigating a vegetable plot', { limit: 8 });
      await engine.close();
      return hits;
    };
    const [once, many] = [await searchAfter(1), await searchAfter(12)];
    // The same results with the same scores, the copied texts among them (each once, naming its copies).
    expect(many.map((h) => [h.text, h.score])).toEqual(once.map((h) => [h.text, h.score]));
    expect(many.filter((h) => h.sessionId.startsWith('copy-')).every((h) => h.alsoIn.length === 11)).toBe(true);
    expect(once.some((h) => h.sessionId === 'long') && once.some((h) => h.sessionId === 'copy-0')).toBe(true);
  });
});

describe('the archive record', () => {
  it('a corrupt record is rebuilt from the store with a warning, and still skips what is archived', async () => {
    const { engine, dir } = await freshEngine();
    await engine.save(conversation(10));
    await fs.writeFile(path.join(dir, ARCHIVE_RECORD_FILE), '{"format": 1, "sessions": [garbage');
    const report = await engine.save(conversation(10));
    expect(report.warnings).toEqual([expect.stringContaining('not valid JSON')]);
    expect(report).toMatchObject({ new: 0, skipped: 10, chunksWritten: 0, embeddingsComputed: 0 });
    const record = JSON.parse(await fs.readFile(path.join(dir, ARCHIVE_RECORD_FILE), 'utf8'));
    expect(record.sessions['session-a']).toMatchObject({ session_id: 'session-a', message_count: 10, msg_range: ['msg-0', 'msg-9'] });
    expect(record.sessions['session-a'].chunk_count).toBe((await engine.showSession('session-a')).chunks.length);
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });

  it('names no chunk: every save rewrites it, so its size follows the sessions, not the chunks; a record from before, naming them, is read', async () => {
    const { engine, dir } = await freshEngine();
    const file = path.join(dir, ARCHIVE_RECORD_FILE);
    const saved = await engine.save(conversation(40));
    const text = await fs.readFile(file, 'utf8');
    expect(saved.chunkIds.length).toBeGreaterThan(3);
    for (const chunkId of saved.chunkIds) expect(text).not.toContain(chunkId);
    const small = text.length;
    expect((await engine.save(conversation(400))).chunksWritten).toBeGreaterThan(30);
    expect((await fs.readFile(file, 'utf8')).length).toBeLessThan(small + 200);
    // A record as earlier versions wrote it, with each session's chunk ids: still the fast path.
    const record = JSON.parse(await fs.readFile(file, 'utf8'));
    record.sessions['session-a'].chunk_ids = (await engine.showSession('session-a')).chunks.map((c) => c.chunkId);
    await engine.close();
    await fs.writeFile(file, JSON.stringify(record));
    const reopened = await openEngine(dir, embedder);
    const again = await reopened.save(conversation(400));
    expect(again).toMatchObject({ skippedSession: true, warnings: [] });
    await reopened.close();
  });

  it('listings and dry runs rebuild a broken record in memory only; the next save, under the write lock, writes it', async () => {
    const { engine, dir } = await freshEngine();
    await engine.save(conversation(10));
    const broken = '{"format": 1, "sessions": [garbage';
    await fs.writeFile(path.join(dir, ARCHIVE_RECORD_FILE), broken);
    expect((await engine.listSessions()).map((s) => [s.sessionId, s.messageCount])).toEqual([['session-a', 10]]);
    expect(await engine.save(conversation(12), { dryRun: true })).toMatchObject({ new: 2, skipped: 10 });
    expect(await fs.readFile(path.join(dir, ARCHIVE_RECORD_FILE), 'utf8')).toBe(broken);
    expect(await engine.save(conversation(10))).toMatchObject({ skippedSession: true });
    expect(JSON.parse(await fs.readFile(path.join(dir, ARCHIVE_RECORD_FILE), 'utf8')).sessions['session-a']).toMatchObject({ message_count: 10 });
    await engine.close();
  });

  it('a stale record (the store moved on without it) is not trusted', async () => {
    const { engine, dir } = await freshEngine();
    await engine.save(conversation(10));
    const stale = await fs.readFile(path.join(dir, ARCHIVE_RECORD_FILE), 'utf8');
    await engine.save(conversation(12));
    await fs.writeFile(path.join(dir, ARCHIVE_RECORD_FILE), stale); // as if the last save died before updating it
    const verify = await engine.verify();
    expect(verify.ok).toBe(false);
    expect(verify.problems.join('\n')).toContain('describes store version');
    const report = await engine.save(conversation(10));
    expect(report.warnings.join('\n')).toContain('rebuilt it from the store');
    expect(report).toMatchObject({ skippedSession: false, new: 0, skipped: 10 });
    expect((await engine.verify()).ok).toBe(true);
    await engine.close();
  });
});

describe('store', () => {
  it('remembers its model: opening it with another one is a clear error', async () => {
    const { engine, dir } = await freshEngine();
    await engine.save(conversation(2));
    await engine.close();
    await expect(MemoryEngine.open({ dataDir: dir, model: 'Xenova/paraphrase-multilingual-MiniLM-L12-v2' })).rejects.toThrow(/built with the embedding model "use-lite-en".*--model use-lite-en/);
  });

  it('opens with the folder the offline model is built in as with its name; a renamed copy of it is a clear error', async () => {
    const { engine, dir } = await freshEngine();
    await engine.save(conversation(2));
    await engine.close();
    const folder = await testModelDir();
    const reopened = await MemoryEngine.open({ dataDir: dir, model: folder, modelsDir: TEST_MODELS_DIR });
    expect((await reopened.search('message', { limit: 1 })).length).toBe(1);
    await reopened.close();
    const scratch = tempDir();
    dirs.push(scratch.cleanup);
    const renamed = path.join(scratch.dir, 'my-model');
    await fs.cp(folder, renamed, { recursive: true });
    await expect(MemoryEngine.open({ dataDir: dir, model: renamed, modelsDir: TEST_MODELS_DIR })).rejects.toThrow(`${renamed} holds the offline model use-lite-en under another name; use --model use-lite-en`);
  });

  it('search finds English by meaning and Chinese by words, one result per chunk, optionally in one session', async () => {
    const { engine } = await freshEngine();
    await engine.save({
      sessionId: 'pets',
      messages: [
        { msgId: 'p1', role: 'user', content: 'My cat keeps sleeping on the sofa all afternoon.' },
        { msgId: 'p2', role: 'assistant', content: 'Cats nap a lot; a warm couch is a favourite spot.' },
      ],
    });
    await engine.save({
      sessionId: 'money',
      messages: [
        { msgId: 'm1', role: 'user', content: 'The central bank raised interest rates again.' },
        { msgId: 'm2', role: 'assistant', content: '利率上升会影响房贷。' },
      ],
    });
    const byMeaning = await engine.search('kitten resting on a couch');
    expect(byMeaning[0]!.sessionId).toBe('pets');
    expect(new Set(byMeaning.map((h) => h.chunkId)).size).toBe(byMeaning.length);
    const chinese = await engine.search('房贷');
    expect(chinese[0]!.sessionId).toBe('money');
    expect(chinese[0]!.text).toContain('房贷');
    const scoped = await engine.search('interest rates', { sessionId: 'pets' });
    expect(scoped.every((h) => h.sessionId === 'pets')).toBe(true);
    await engine.close();
  });

  it('history lists every save with its counts', async () => {
    const { engine } = await freshEngine();
    await engine.save(conversation(10));
    await engine.save(conversation(10));
    await engine.save(conversation(12));
    const history = await engine.history('session-a');
    expect(history.map((e) => [e.new, e.skipped, e.skippedSession])).toEqual([
      [10, 0, false],
      [0, 10, true],
      [2, 10, false],
    ]);
    expect(history[0]).toMatchObject({ mode: 'incremental', model: 'use-lite-en' });
    expect(history[0]!.chunkIdsWritten.length).toBe(history[0]!.chunksWritten);
    await engine.close();
  });

  it('a chunk can be inspected with its vector and its nearest neighbours', async () => {
    const { engine } = await freshEngine();
    const report = await engine.save(conversation(12));
    const detail = await engine.inspectChunk(report.chunkIds[0]!);
    expect(detail.vector).toHaveLength(512);
    expect(detail.model).toBe('use-lite-en');
    expect(detail.similar.length).toBeGreaterThan(0);
    expect(detail.similar.map((s) => s.chunkId)).not.toContain(detail.chunkId);
    await engine.close();
  });
});
