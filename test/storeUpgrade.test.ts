import * as lancedb from '@lancedb/lancedb';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { CJK_COLUMN, cjkText } from '../electron/engine/store/store.js';
import { ARCHIVE_RECORD_FILE } from '../electron/engine/record/archiveRecord.js';
import type { MemoryEngine } from '../electron/engine/engine.js';
import { openEngine, packChunkPlaces, tempDir } from './helpers/engine.js';

// The subject is how older stores are upgraded, not embedding: the hashing stand-in embeds, and no model loads.

/** The store's full-text search on its own, as a search reads it. */
const textSearch = (engine: MemoryEngine, text: string, limit: number) => engine.store.searching((reads) => reads.textSearch(text, limit));

describe('cjkText', () => {
  it('keeps the runs of scripts written without spaces, and nothing of other text', () => {
    expect(cjkText('The mortgage rate went up.')).toBe('');
    expect(cjkText('user: 利率上升会影响房贷。 OK?')).toBe('利率上升会影响房贷。');
    expect(cjkText('東京で 寿司 を食べた and ramen')).toBe('東京で 寿司 を食べた');
    expect(cjkText('데이터베이스를 ok สวัสดี')).toBe('데이터베이스를 สวัสดี');
  });
});

/**
 * Turns a store written by this version back into the layout of stores written before the word
 * index: no text_cjk column, one n-gram index over all text, no layout in the meta table.
 */
async function makeOldLayout(storeDir: string): Promise<void> {
  const db = await lancedb.connect(storeDir);
  const chunks = await db.openTable('chunks');
  const text = (await chunks.listIndices()).find((i) => i.columns[0] === 'text')!;
  await chunks.dropIndex(text.name);
  const cjk = (await chunks.listIndices()).find((i) => i.columns[0] === CJK_COLUMN)!;
  await chunks.dropIndex(cjk.name);
  await chunks.dropColumns([CJK_COLUMN]);
  await chunks.createIndex('text', { config: lancedb.Index.fts({ baseTokenizer: 'ngram', ngramMinLength: 2, ngramMaxLength: 3, lowercase: true, stem: false, removeStopWords: false, withPosition: false }) });
  const meta = await db.openTable('meta');
  await meta.delete(`key = 'fts_layout'`);
  db.close();
}

async function layout(storeDir: string): Promise<{ columns: string[]; indexes: string[]; recorded: boolean; rows: Array<{ text: string; cjk: string }> }> {
  const db = await lancedb.connect(storeDir);
  try {
    const chunks = await db.openTable('chunks');
    const columns = (await chunks.schema()).fields.map((f) => f.name);
    const indexes = (await chunks.listIndices()).map((i) => `${i.columns.join(',')}:${i.indexType}`).sort();
    const rows = columns.includes(CJK_COLUMN)
      ? ((await chunks.query().select(['text', CJK_COLUMN]).toArray()) as Array<Record<string, unknown>>).map((r) => ({ text: String(r.text), cjk: String(r[CJK_COLUMN]) }))
      : [];
    const meta = await db.openTable('meta');
    const recorded = (await meta.query().where(`key = 'fts_layout'`).toArray()).length === 1;
    return { columns, indexes, recorded, rows };
  } finally {
    db.close();
  }
}

describe('a store written before the word index', () => {
  let embedder: HashEmbedder;
  beforeAll(async () => {
    embedder = new HashEmbedder();
  });
  afterAll(async () => {
    await embedder.close();
  });

  const session = {
    sessionId: 'money',
    messages: [
      { msgId: 'm1', role: 'user' as const, content: 'The central bank raised interest rates again.' },
      { msgId: 'm2', role: 'assistant' as const, content: '利率上升会影响房贷。東京の家賃も上がった。' },
      { msgId: 'm3', role: 'user' as const, content: 'Should I refinance the mortgage before the next increase?' },
      { msgId: 'm4', role: 'assistant' as const, content: 'Compare the fixed offers first; 固定利率 can be cheaper over five years.' },
    ],
  };

  /** A store holding `session`, in the layout of stores written before the word index. */
  async function oldStore(): Promise<{ dir: string; storeDir: string; cleanup: () => void }> {
    const { dir, cleanup } = tempDir();
    const engine = await openEngine(dir, embedder);
    await engine.save(session);
    await engine.close();
    const storeDir = path.join(dir, 'lancedb');
    await makeOldLayout(storeDir);
    return { dir, storeDir, cleanup };
  }

  it('is still searched as it is, and the next save converts it, keeping every message and finding Chinese and English words', async () => {
    const { dir, storeDir, cleanup } = await oldStore();
    try {
      const old = await layout(storeDir);
      expect(old.columns).not.toContain(CJK_COLUMN);
      expect(old.recorded).toBe(false);

      // Searching does not write: the old n-gram index answers.
      const engine = await openEngine(dir, embedder);
      expect((await textSearch(engine, '房贷', 5)).map((h) => h.text).join('\n')).toContain('房贷');

      // A save converts the store first (this one adds a message).
      const report = await engine.save({ ...session, messages: [...session.messages, { msgId: 'm5', role: 'user' as const, content: '谢谢，我再想想。' }] });
      expect(report.new).toBe(1);
      const now = await layout(storeDir);
      expect(now.columns).toContain(CJK_COLUMN);
      expect(now.recorded).toBe(true);
      expect(now.indexes).toEqual(expect.arrayContaining([`${CJK_COLUMN}:FTS`, 'text:FTS']));
      // The column computed for the old rows (SQL) is what new rows get (JavaScript).
      expect(now.rows.length).toBeGreaterThan(0);
      for (const row of now.rows) expect(row.cjk).toBe(cjkText(row.text));

      expect((await textSearch(engine, '房贷', 5))[0]!.text).toContain('房贷');
      expect((await textSearch(engine, '東京', 5))[0]!.text).toContain('東京');
      expect((await textSearch(engine, 'refinancing mortgages', 5))[0]!.text).toContain('refinance the mortgage');
      expect((await textSearch(engine, '谢谢', 5))[0]!.text).toContain('谢谢');
      const verify = await engine.verify();
      expect(verify.problems).toEqual([]);
      expect(verify.messages).toBe(5);
      await engine.close();
    } finally {
      cleanup();
    }
  });

  it('finishes a conversion that stopped half-way (column added, layout not yet recorded)', async () => {
    const { dir, storeDir, cleanup } = await oldStore();
    try {
      // The first step of the conversion only: the column, but the old index and no record of the layout.
      const db = await lancedb.connect(storeDir);
      const chunks = await db.openTable('chunks');
      await chunks.addColumns([{ name: CJK_COLUMN, valueSql: "''" }]);
      db.close();

      const engine = await openEngine(dir, embedder);
      await engine.save(session);
      const now = await layout(storeDir);
      expect(now.recorded).toBe(true);
      expect(now.indexes).toEqual(expect.arrayContaining([`${CJK_COLUMN}:FTS`, 'text:FTS']));
      expect((await textSearch(engine, 'increases', 5))[0]!.text).toContain('next increase');
      expect((await engine.verify()).problems).toEqual([]);
      await engine.close();
    } finally {
      cleanup();
    }
  });
});

describe('a session started from another one (a Claude Code subagent)', () => {
  let embedder: HashEmbedder;
  beforeAll(async () => {
    embedder = new HashEmbedder();
  });
  afterAll(async () => {
    await embedder.close();
  });

  const main = { sessionId: 'main', title: 'Fix the date test', messages: [{ msgId: 'c1', role: 'user' as const, content: 'The date test fails; can you fix it?' }] };
  const subagent = {
    sessionId: 'main:agent-a1',
    title: 'Subagent: find the tests',
    parentSessionId: 'main',
    messages: [
      { msgId: 's1', role: 'user' as const, content: 'Find every test that fixes a time zone.' },
      { msgId: 's2', role: 'assistant' as const, content: 'Two: test/date.test.ts and test/format.test.ts.' },
    ],
  };

  it('names its parent in the session list, also after the archive record is rebuilt, and in a store from before parents', async () => {
    const { dir, cleanup } = tempDir();
    try {
      let engine = await openEngine(dir, embedder);
      await engine.save(main);
      await engine.close();
      // The sessions table as stores before this layout have it: no parent column.
      const db = await lancedb.connect(path.join(dir, 'lancedb'));
      const sessions = await db.openTable('sessions');
      await sessions.dropColumns(['parent_session_id']);
      db.close();

      engine = await openEngine(dir, embedder);
      expect((await engine.listSessions()).map((s) => [s.sessionId, s.parentSessionId])).toEqual([['main', undefined]]);
      await engine.save(subagent);
      const listed = async () => new Map((await engine.listSessions()).map((s) => [s.sessionId, s.parentSessionId]));
      expect(await listed()).toEqual(new Map([['main', undefined], ['main:agent-a1', 'main']]));
      // A later save without the field keeps what is recorded.
      const { parentSessionId: _omitted, ...withoutParent } = subagent;
      await engine.save({ ...withoutParent, messages: [...subagent.messages, { msgId: 's3', role: 'user' as const, content: 'Thanks.' }] });
      await engine.close();

      rmSync(path.join(dir, ARCHIVE_RECORD_FILE));
      engine = await openEngine(dir, embedder);
      expect(await listed()).toEqual(new Map([['main', undefined], ['main:agent-a1', 'main']]));
      // A listing rebuilds the record in memory only: it is written by the next writer, under the lock.
      expect(existsSync(path.join(dir, ARCHIVE_RECORD_FILE))).toBe(false);
      expect((await engine.save(main)).skippedSession).toBe(true);
      expect(existsSync(path.join(dir, ARCHIVE_RECORD_FILE))).toBe(true);
      expect((await engine.verify()).problems).toEqual([]);
      await engine.close();
    } finally {
      cleanup();
    }
  });
});

describe('a store written when chunk order was one packed number', () => {
  let embedder: HashEmbedder;
  beforeAll(async () => {
    embedder = new HashEmbedder();
  });
  afterAll(async () => {
    await embedder.close();
  });

  const steps = Array.from({ length: 40 }, (_, i) => `Step ${i} of the migration went fine.`).join(' ');
  const base = [
    { msgId: 'm1', role: 'user' as const, content: 'Message 1: how did the database migration go?' },
    { msgId: 'm2', role: 'assistant' as const, content: `Message 2: ${steps}` },
    { msgId: 'm3', role: 'user' as const, content: 'Message 3: and the rollback plan?' },
  ];
  const inserted = (n: number) => ({ msgId: `m2-${n}`, role: 'assistant' as const, content: `Message 2.${n}: one more note about the index rebuild, number ${n}.` });
  /** Message numbers and step numbers as the chunk texts list them, in order. */
  const chunkOrder = async (engine: Awaited<ReturnType<typeof openEngine>>) =>
    (await engine.showSession('migration')).chunks.flatMap((c) => [...c.text.matchAll(/Message ([\d.]+):|Step (\d+) of/g)].map((m) => m[1] ?? `step ${m[2]}`));

  it('reads in order, before and after the next save gives it a part column', async () => {
    const { dir, cleanup } = tempDir();
    try {
      let engine = await openEngine(dir, embedder);
      await engine.save({ sessionId: 'migration', messages: base });
      // An insertion between 2 and 3: a fractional position (packed as 1500).
      await engine.save({ sessionId: 'migration', messages: [base[1]!, inserted(1), base[2]!] });
      const expected = ['1', '2', ...Array.from({ length: 40 }, (_, i) => `step ${i}`), '2.1', '3'];
      expect(await chunkOrder(engine)).toEqual(expected);
      expect((await engine.showSession('migration')).chunks.length).toBeGreaterThan(3);
      await engine.close();

      // Back to the earlier layout: `seq` packs position * 1000 + part, and there is no part column.
      await packChunkPlaces(dir);

      engine = await openEngine(dir, embedder);
      expect(await chunkOrder(engine)).toEqual(expected);
      // The next save adds the column (old rows marked as packed) and writes the pair for new rows.
      await engine.save({ sessionId: 'migration', messages: [inserted(1), inserted(2), base[2]!] });
      expect(await chunkOrder(engine)).toEqual([...expected.slice(0, -1), '2.2', '3']);
      expect((await engine.showSession('migration')).messages.map((m) => m.msgId)).toEqual(['m1', 'm2', 'm2-1', 'm2-2', 'm3']);
      const verify = await engine.verify();
      expect(verify.problems).toEqual([]);
      await engine.close();
    } finally {
      cleanup();
    }
  });
});
