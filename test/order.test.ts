/**
 * A session's stored order is the order a reader saw (electron/engine/save/order.ts): `show`, the chunk
 * texts and the archive record follow it for appends, mixed, truncated, branched, id-less and
 * timestamped inputs, inputs that reorder stored messages, overwrites, and a save killed half-way.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { MessageInput, SessionInput } from '../shared/domain.js';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import type { MemoryEngine } from '../electron/engine/engine.js';
import { placeMessages } from '../electron/engine/save/order.js';
import { HASH_EMBEDDER, runCli } from './helpers/cli.js';
import { openEngine, tempDir } from './helpers/engine.js';

// Order is the subject, not embedding: the engines embed with the hashing stand-in, which cuts
// chunks at the offline model's window as the model does, and loads no model.
const embedder = new HashEmbedder();
const cleanups: Array<() => void> = [];

afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

/** Message n of a conversation about one subject per five turns; odd numbers are the user's. */
function message(n: number, extra: Partial<MessageInput> = {}): MessageInput {
  const subjects = ['sourdough starter', 'bicycle gears', 'tax forms', 'piano scales'];
  const subject = subjects[Math.floor(n / 10) % subjects.length]!;
  return n % 2 === 1
    ? { msgId: `m${n}`, role: 'user', content: `Message ${n}: what should I know about ${subject}, part ${n}?`, ...extra }
    : { msgId: `m${n}`, role: 'assistant', content: `Message ${n}: about ${subject}, remember point ${n} and check it twice.`, ...extra };
}

function session(numbers: number[], map: (n: number) => MessageInput = (n) => message(n)): SessionInput {
  return { sessionId: 'ordered', title: 'Order', messages: numbers.map(map) };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function engineFor(): Promise<MemoryEngine> {
  const { dir, cleanup } = tempDir('sm-order-');
  cleanups.push(cleanup);
  return openEngine(dir, embedder);
}

/** The session as `show` lists it: message numbers, and every chunk's text in order. */
async function shown(engine: MemoryEngine): Promise<{ numbers: number[]; chunkNumbers: number[] }> {
  const detail = await engine.showSession('ordered');
  const numbers = detail.messages.map((m) => Number(/^Message (\d+)/.exec(m.content)![1]));
  const chunkNumbers = detail.chunks.flatMap((c) => [...c.text.matchAll(/Message (\d+):/g)].map((m) => Number(m[1])));
  return { numbers, chunkNumbers };
}

describe('placing new messages among stored ones', () => {
  it('the original design\'s mixed save: 1..10, then 1..5 + 11..15, gives 1..15', () => {
    const stored = range(1, 10).map((n, i) => ({ msgId: `m${n}`, seq: i }));
    const { order, seqs } = placeMessages(stored, [...range(1, 5), ...range(11, 15)].map((n) => ({ msgId: `m${n}` })));
    expect(order).toEqual(range(1, 15).map((n) => `m${n}`));
    for (const n of range(1, 10)) expect(seqs.get(`m${n}`)).toBe(n - 1); // nothing stored moves
  });

  it('a message inserted between stored neighbours that the input still holds lands between them', () => {
    const stored = range(1, 6).map((n, i) => ({ msgId: `m${n}`, seq: i }));
    const { order, seqs } = placeMessages(stored, ['m1', 'm2', 'm3', 'x', 'y', 'm4', 'm5', 'm6'].map((msgId) => ({ msgId })));
    expect(order).toEqual(['m1', 'm2', 'm3', 'x', 'y', 'm4', 'm5', 'm6']);
    expect(seqs.get('x')!).toBeGreaterThan(seqs.get('m3')!);
    expect(seqs.get('y')!).toBeLessThan(seqs.get('m4')!);
  });

  it('timestamps order messages by time, ties in input order, and untimed ones follow their predecessor', () => {
    const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, '0')}:00Z`;
    const input = [
      { msgId: 'c', timestamp: at(30) },
      { msgId: 'c-note' },
      { msgId: 'a', timestamp: at(10) },
      { msgId: 'b1', timestamp: at(20) },
      { msgId: 'b2', timestamp: at(20) },
      { msgId: 'bad-time', timestamp: 'not a time' },
    ];
    expect(placeMessages([], input).order).toEqual(['a', 'b1', 'b2', 'bad-time', 'c', 'c-note']);
  });

  it('an input that reorders stored messages does not reorder them; a new one goes after its predecessor', () => {
    const stored = ['m1', 'm2', 'm3'].map((msgId, seq) => ({ msgId, seq }));
    expect(placeMessages(stored, ['m3', 'm1', 'm2', 'n'].map((msgId) => ({ msgId }))).order).toEqual(['m1', 'm2', 'm3', 'n']);
    expect(placeMessages(stored, ['n', 'm1'].map((msgId) => ({ msgId }))).order).toEqual(['n', 'm1', 'm2', 'm3']);
  });

  it('a 20,000-message first save and an append to it are placed without quadratic work', () => {
    const many = range(1, 20_000).map((n) => ({ msgId: `m${n}`, timestamp: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString() }));
    const first = placeMessages([], many);
    expect(first.order[19_999]).toBe('m20000');
    const stored = many.map((m) => ({ msgId: m.msgId, seq: first.seqs.get(m.msgId)! }));
    const appended = placeMessages(stored, [...many, { msgId: 'new', timestamp: '2027-01-01T00:00:00Z' }]);
    expect(appended.order.at(-1)).toBe('new');
  });
});

describe('the stored order of a session', () => {
  it('append: new messages follow the stored ones', async () => {
    const engine = await engineFor();
    await engine.save(session(range(1, 10)));
    await engine.save(session(range(1, 16)));
    expect(await shown(engine)).toEqual({ numbers: range(1, 16), chunkNumbers: range(1, 16) });
    await engine.close();
  });

  it('mixed: 1..10, then 1..5 + 11..15: show, chunk texts and the record list 1..15', async () => {
    const engine = await engineFor();
    await engine.save(session(range(1, 10)));
    const report = await engine.save(session([...range(1, 5), ...range(11, 15)]));
    expect(report).toMatchObject({ new: 5, skipped: 5, updated: 0, deleted: 0 });
    expect(await shown(engine)).toEqual({ numbers: range(1, 15), chunkNumbers: range(1, 15) });
    const record = JSON.parse(await fs.readFile(path.join(engine.dataDir, '.archived_sessions.json'), 'utf8')) as { sessions: Record<string, { msg_range: string[] }> };
    expect(record.sessions.ordered!.msg_range).toEqual(['m1', 'm15']);
    await engine.close();
  });

  it('truncated: an input holding only the middle adds its new messages after what followed them', async () => {
    const engine = await engineFor();
    await engine.save(session(range(1, 10)));
    await engine.save(session([4, 5, 6, 31, 32]));
    expect((await shown(engine)).numbers).toEqual([...range(1, 10), 31, 32]);
    await engine.close();
  });

  it('branched: a regenerated branch after message 6 is kept after the stored conversation, in its own chunks', async () => {
    const engine = await engineFor();
    await engine.save(session(range(1, 10)));
    const branch = session([...range(1, 6), 41, 42], (n) => (n > 40 ? { ...message(n), msgId: `branch-${n}` } : message(n)));
    await engine.save(branch);
    const { numbers, chunkNumbers } = await shown(engine);
    expect(numbers).toEqual([...range(1, 10), 41, 42]);
    expect(chunkNumbers).toEqual(numbers);
    await engine.close();
  });

  it('an insertion in the middle of an input that still holds the rest lands in the middle, with its own chunk', async () => {
    const engine = await engineFor();
    await engine.save(session(range(1, 10)));
    const inserted = session([...range(1, 6), 51, 52, ...range(7, 10)]);
    await engine.save(inserted);
    const { numbers, chunkNumbers } = await shown(engine);
    expect(numbers).toEqual([...range(1, 6), 51, 52, ...range(7, 10)]);
    expect(chunkNumbers).toEqual(numbers);
    await engine.close();
  });

  it('id-less: the same order rules hold for derived ids', async () => {
    const engine = await engineFor();
    const idless = (n: number) => {
      const { msgId: _drop, ...rest } = message(n);
      return rest;
    };
    await engine.save(session(range(1, 10), idless));
    const report = await engine.save(session([...range(1, 5), ...range(11, 15)], idless));
    expect(report).toMatchObject({ new: 5, skipped: 5 });
    expect((await shown(engine)).numbers).toEqual(range(1, 15));
    await engine.close();
  });

  it('timestamps: messages go by time, and a late-arriving earlier message is placed by its time', async () => {
    const engine = await engineFor();
    const timed = (n: number) => message(n, { timestamp: new Date(Date.UTC(2026, 2, 1, 10, n)).toISOString() });
    await engine.save(session([3, 1, 2, 5, 4, 6], timed));
    expect((await shown(engine)).numbers).toEqual(range(1, 6));
    await engine.save(session([...range(1, 6), 8, 7, 20], timed));
    expect((await shown(engine)).numbers).toEqual([...range(1, 8), 20]);
    await engine.close();
  });

  it('sixty messages inserted one by one into the same gap keep their order, in show and in the chunks', async () => {
    const engine = await engineFor();
    await engine.save(session(range(1, 10)));
    // Each save puts the next new message between the last one inserted and message 7 (a turn
    // begins there, so the stored chunks end before it): every insertion halves what is left of
    // the gap, and fifty halvings exhaust a number's precision.
    const inserted = range(101, 160);
    for (const n of inserted) await engine.save(session([6, n, 7]));
    const { numbers, chunkNumbers } = await shown(engine);
    expect(numbers).toEqual([...range(1, 6), ...inserted, ...range(7, 10)]);
    expect(chunkNumbers).toEqual(numbers);
    await engine.close();
  });

  it('a message split into more than a thousand parts keeps its parts in order, before the message after it', async () => {
    const engine = await engineFor();
    // At use-lite-en's 128-token window: about 990 parts of the same filler (one text, embedded
    // once), then numbered lines in the parts from about 990 to 1,010.
    const filler = Array.from({ length: 12_900 }, () => 'The build went on.');
    const lines = Array.from({ length: 200 }, (_, i) => `Line ${i} of the build log.`);
    const long: SessionInput = {
      sessionId: 'ordered',
      messages: [message(1), { msgId: 'log', role: 'assistant', content: [...filler, ...lines].join(' ') }, message(3)],
    };
    await engine.save(long);
    const detail = await engine.showSession('ordered');
    expect(detail.messages.map((m) => m.msgId)).toEqual(['m1', 'log', 'm3']);
    expect(detail.chunks.length).toBeGreaterThan(1000);
    const text = detail.chunks.map((c) => c.text).join('\n');
    const lineNumbers = [...text.matchAll(/Line (\d+) of/g)].map((m) => Number(m[1]));
    expect(lineNumbers).toEqual(range(0, lines.length - 1));
    expect(text.indexOf('Message 1:')).toBeLessThan(text.indexOf('Line 0 of'));
    expect(text.indexOf('Message 3:')).toBeGreaterThan(text.lastIndexOf('Line '));
    await engine.close();
  });

  it('an input that reorders stored messages leaves the store as it was; an overwrite takes the new order', async () => {
    const engine = await engineFor();
    await engine.save(session(range(1, 8)));
    await engine.save(session([5, 6, 7, 8, 1, 2, 3, 4, 9]));
    expect((await shown(engine)).numbers).toEqual(range(1, 9));
    await engine.save(session([5, 6, 7, 8, 1, 2, 3, 4, 9]), { mode: 'overwrite' });
    const after = await shown(engine);
    expect(after.numbers).toEqual([5, 6, 7, 8, 1, 2, 3, 4, 9]);
    expect(after.chunkNumbers).toEqual(after.numbers);
    await engine.close();
  });
});

describe('order after a crash', () => {
  it('a mixed save killed after its first commit and run again gives the order of a clean run', async () => {
    const { dir, cleanup } = tempDir('sm-order-crash-');
    cleanups.push(cleanup);
    const first = path.join(dir, 'first.json');
    const mixed = path.join(dir, 'mixed.json');
    await fs.writeFile(first, JSON.stringify(session(range(1, 20))));
    await fs.writeFile(mixed, JSON.stringify(session([...range(1, 5), ...range(21, 60)])));
    // The subject is order after a kill, not embedding: the hashing stand-in embeds.
    const env = { SESSION_MEMORY_TEST_WRITE_BATCH: '2', ...HASH_EMBEDDER };
    const showNumbers = async (data: string) => {
      const show = await runCli(['--data', data, 'show', 'ordered', '--json'], env);
      expect(show.status, show.stderr).toBe(0);
      return (JSON.parse(show.stdout) as { messages: Array<{ content: string }> }).messages.map((m) => Number(/^Message (\d+)/.exec(m.content)![1]));
    };
    for (const data of [path.join(dir, 'clean'), path.join(dir, 'killed')]) {
      expect((await runCli(['--data', data, 'save', first], env)).status).toBe(0);
    }
    expect((await runCli(['--data', path.join(dir, 'clean'), 'save', mixed], env)).status).toBe(0);
    const killed = await runCli(['--data', path.join(dir, 'killed'), 'save', mixed], { ...env, SESSION_MEMORY_TEST_CRASH: 'committed:1' });
    expect(killed.signal).toBe('SIGKILL');
    expect((await runCli(['--data', path.join(dir, 'killed'), 'save', mixed], env)).status).toBe(0);
    const clean = await showNumbers(path.join(dir, 'clean'));
    expect(clean).toEqual(range(1, 60));
    expect(await showNumbers(path.join(dir, 'killed'))).toEqual(clean);
  });
});
