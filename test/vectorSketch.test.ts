/**
 * The vector sketch behind the near-duplicate check: its codes pick every stored vector within the
 * similarity floor and few others, and its journal is shared by processes, survives a record cut
 * short, and tells a session that must be read again.
 */
import { appendFileSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEAR_DUPLICATE_FLOOR } from '../shared/domain.js';
import { codeBits, CodeEncoder, maxDifferingBits } from '../electron/engine/duplicates/vectorCodes.js';
import { SKETCH_FILE, VectorSketch, type SketchChange } from '../electron/engine/duplicates/vectorSketch.js';
import { closeEntries } from '../electron/engine/duplicates/sketchScan.js';
import type { CodeSpace } from '../electron/engine/duplicates/codeSpace.js';
import { acquireWriteLock, assertWriteLock, LOCK_FILE } from '../electron/engine/files/writeLock.js';
import { seededRandom } from '../scripts/transcriptGenerator.js';
import { scratchDirs } from './helpers/engine.js';

const random = seededRandom(7);
const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const unit = (v: Float32Array) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const randomVector = (dim: number) => unit(Float32Array.from({ length: dim }, gaussian));
/** A unit vector at exactly cosine `similarity` from unit vector `v`. */
function at(v: Float32Array, similarity: number): Float32Array {
  const r = randomVector(v.length);
  const along = r.reduce((s, x, i) => s + x * v[i]!, 0);
  const orthogonal = unit(r.map((x, i) => x - along * v[i]!));
  return v.map((x, i) => similarity * x + Math.sqrt(1 - similarity * similarity) * orthogonal[i]!);
}
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

const dataDir = scratchDirs('sm-sketch-');
const MODEL = { model: 'test-model', dim: 384 };

describe('vector codes', () => {
  it('round the dimension up to a power of two, and bound the differing bits from the similarity', () => {
    expect([codeBits(384), codeBits(512), codeBits(768), codeBits(10)]).toEqual([512, 512, 1024, 128]);
    // A cosine of 0.9 is an angle of 25.8 degrees: 14% of bits differ on average, never the half of unrelated vectors.
    const limit = maxDifferingBits(512, NEAR_DUPLICATE_FLOOR);
    expect(limit).toBeGreaterThan(512 * 0.143);
    expect(limit).toBeLessThan(512 * 0.25);
    expect(maxDifferingBits(512, 1)).toBe(0);
  });

  it('let through every stored vector at the similarity floor or above, and few unrelated ones', async () => {
    const dir = dataDir();
    const sketch = new VectorSketch(dir, MODEL);
    await sketch.refresh();
    const queries = Array.from({ length: 40 }, () => randomVector(MODEL.dim));
    // For each query: copies at similarities from 0.90 to 1, and 200 unrelated vectors (cosine about 0).
    const stored: Array<{ chunkId: string; vector: Float32Array }> = [];
    queries.forEach((q, i) => {
      for (const s of [1, 0.99, 0.97, 0.95, 0.93, 0.91, 0.9]) stored.push({ chunkId: `near-${i}-${s}`, vector: at(q, s) });
      stored.push({ chunkId: `far-${i}`, vector: at(q, 0.6) });
    });
    for (let i = 0; i < 8000; i++) stored.push({ chunkId: `other-${i}`, vector: randomVector(MODEL.dim) });
    await sketch.append([{ sessionId: 'S', previous: '', fingerprint: 'f1', replace: true, removed: [], added: stored.map((x) => ({ chunkId: x.chunkId, code: sketch.encode(x.vector) })) }]);
    const found = sketch.candidates(queries, 'Q', NEAR_DUPLICATE_FLOOR).map((list) => list.map((e) => sketch.entry(e).chunkId));
    queries.forEach((q, i) => {
      const near = stored.filter((x) => cosine(q, x.vector) >= NEAR_DUPLICATE_FLOOR - 1e-6).map((x) => x.chunkId);
      expect(near).toHaveLength(7);
      expect(found[i]).toEqual(expect.arrayContaining(near));
      expect(found[i]).not.toContain(`far-${i}`);
      expect(found[i]!.filter((id) => id.startsWith('other-'))).toEqual([]);
    });
    // Asked for the closest only, each query gets its exact copy.
    expect(sketch.candidates(queries, 'Q', NEAR_DUPLICATE_FLOOR, 1).map((list) => list.map((e) => sketch.entry(e).chunkId))).toEqual(queries.map((_, i) => [`near-${i}-1`]));
    // A session's own chunks are never its candidates.
    expect(sketch.candidates(queries, 'S', NEAR_DUPLICATE_FLOOR).every((list) => list.length === 0)).toBe(true);
  });

  it('pad a dimension that is not a power of two, and give the same code in every process', () => {
    const v = randomVector(384);
    const a = new CodeEncoder(384).encode(v);
    expect(a).toHaveLength(16);
    expect(new CodeEncoder(384).encode(v)).toEqual(a);
    // The code of a scaled vector is the same: only the direction counts.
    expect(new CodeEncoder(384).encode(v.map((x) => x * 3))).toEqual(a);
  });
});

const change = (sketch: VectorSketch, sessionId: string, previous: string, fingerprint: string, ids: string[], more: Partial<SketchChange> = {}): SketchChange => ({
  sessionId,
  previous,
  fingerprint,
  replace: false,
  removed: [],
  added: ids.map((chunkId) => ({ chunkId, code: sketch.encode(randomVector(MODEL.dim)) })),
  ...more,
});
const idsOf = (sketch: VectorSketch, sessionId: string) =>
  sketch
    .candidates([randomVector(MODEL.dim)], 'nobody', -1)[0]!
    .map((e) => sketch.entry(e))
    .filter((x) => x.sessionId === sessionId)
    .map((x) => x.chunkId)
    .sort();

describe('the scan of a sketch holding copies', () => {
  it('compares each distinct code once and gives the candidates of a scan of every entry: in order, the closest past a cap, none of the own session or of removed chunks', async () => {
    const sketch = new VectorSketch(dataDir(), MODEL);
    await sketch.refresh();
    // Ten texts, each held by six sessions (copies: the same vector), and a near copy of each.
    const texts = Array.from({ length: 10 }, () => randomVector(MODEL.dim));
    const near = texts.map((v) => at(v, 0.97));
    for (let s = 0; s < 6; s++) {
      await sketch.append([{ sessionId: `S${s}`, previous: '', fingerprint: `f${s}`, replace: true, removed: [], added: texts.map((v, i) => ({ chunkId: `S${s}-${i}`, code: sketch.encode(v) })) }]);
    }
    await sketch.append([{ sessionId: 'N', previous: '', fingerprint: 'n', replace: true, removed: [], added: near.map((v, i) => ({ chunkId: `N-${i}`, code: sketch.encode(v) })) }]);
    // Enough queries for the grouped scan: the texts, their near copies, and unrelated vectors.
    const queries = [...texts.map((v) => at(v, 0.99)), ...near, randomVector(MODEL.dim), randomVector(MODEL.dim)];
    expect(sketch.candidates(queries, 'Q', NEAR_DUPLICATE_FLOOR)[0]).toHaveLength(7);
    // Then (the groups made) a session's copies removed (the chunks leave the sketch) and one written again.
    await sketch.append([{ sessionId: 'S2', previous: 'f2', fingerprint: 'g2', replace: false, removed: ['S2-0', 'S2-1'], added: [] }]);
    await sketch.append([{ sessionId: 'S3', previous: 'f3', fingerprint: 'g3', replace: false, removed: [], added: [{ chunkId: 'S3-4', code: sketch.encode(texts[4]!) }] }]);
    const inner = sketch as unknown as { encoder: CodeEncoder; space: CodeSpace; count: number; sessionIndex: Map<string, number> };
    const everyEntry = (queries: Float32Array[], sessionId: string, most: number) =>
      closeEntries({ encoder: inner.encoder, space: inner.space, count: inner.count }, inner.sessionIndex.get(sessionId) ?? -2, queries, NEAR_DUPLICATE_FLOOR, most).map((list) => list.map((e) => sketch.entry(e).chunkId));
    const grouped = (queries: Float32Array[], sessionId: string, most: number) => sketch.candidates(queries, sessionId, NEAR_DUPLICATE_FLOOR, most).map((list) => list.map((e) => sketch.entry(e).chunkId));
    for (const [sessionId, most] of [['Q', Infinity], ['Q', 3], ['S1', 4], ['N', 16]] as const) {
      const expected = everyEntry(queries, sessionId, most);
      expect(grouped(queries, sessionId, most)).toEqual(expected);
    }
    // What a query of a text finds: its copies in every session but the removed ones, and its near copy.
    const all = grouped(queries, 'Q', Infinity);
    expect([...all[0]!].sort()).toEqual(['N-0', 'S0-0', 'S1-0', 'S3-0', 'S4-0', 'S5-0']);
    expect(all[0]!.length).toBe(6);
    // Entries added after the groups were made join them.
    await sketch.append([{ sessionId: 'T', previous: '', fingerprint: 't', replace: true, removed: [], added: [{ chunkId: 'T-0', code: sketch.encode(texts[0]!) }] }]);
    expect(grouped(queries, 'Q', Infinity)).toEqual(everyEntry(queries, 'Q', Infinity));
    expect(grouped(queries, 'Q', Infinity)[0]).toContain('T-0');
  });
});

describe('the sketch journal', () => {
  it('is shared by processes: each reads what the other appended, and a rewrite under a new generation', async () => {
    const dir = dataDir();
    const a = new VectorSketch(dir, MODEL);
    const b = new VectorSketch(dir, MODEL);
    await a.refresh();
    await a.append([change(a, 'S', '', 'f1', ['c1', 'c2', 'c3'])]);
    await b.refresh();
    expect(b.fingerprints()).toEqual(new Map([['S', 'f1']]));
    expect(idsOf(b, 'S')).toEqual(['c1', 'c2', 'c3']);
    // b removes one chunk and rewrites another under the same id (an edited message); a adds a session.
    await b.append([change(b, 'S', 'f1', 'f2', ['c3', 'c4'], { removed: ['c1'] })]);
    await a.refresh();
    await a.append([change(a, 'T', '', 't1', ['d1'])]);
    await b.refresh();
    for (const sketch of [a, b]) {
      expect(idsOf(sketch, 'S')).toEqual(['c2', 'c3', 'c4']);
      expect(sketch.fingerprints()).toEqual(new Map([['S', 'f2'], ['T', 't1']]));
    }
    // A session gone: dropped everywhere.
    await b.append([{ sessionId: 'T', previous: 't1', fingerprint: '', replace: true, removed: [], added: [] }]);
    await a.refresh();
    expect(a.fingerprints()).toEqual(new Map([['S', 'f2']]));
    expect(a.size).toBe(3);
  });

  it('rewrites itself when it has grown to several times what it holds, and other processes read it again', async () => {
    const dir = dataDir();
    const a = new VectorSketch(dir, MODEL);
    const b = new VectorSketch(dir, MODEL);
    await a.refresh();
    await b.refresh();
    const ids = Array.from({ length: 1000 }, (_, i) => `chunk-${i}`);
    const added = ids.map((chunkId) => ({ chunkId, code: a.encode(randomVector(MODEL.dim)) }));
    let fingerprint = '';
    // The same session replaced again and again: the journal grows, what it holds does not.
    for (let round = 0; round < 80; round++) {
      await a.append([change(a, 'S', fingerprint, `f${round}`, [], { replace: true, added })]);
      fingerprint = `f${round}`;
    }
    expect(statSync(path.join(dir, SKETCH_FILE)).size).toBeLessThan(4 * 1024 * 1024 + 200_000);
    await b.refresh();
    expect(b.fingerprints()).toEqual(new Map([['S', 'f79']]));
    expect(b.size).toBe(1000);
    expect(idsOf(b, 'S')).toEqual([...ids].sort());
  });

  it('cuts off a record cut short by a crash, and marks a session whose records do not follow each other', async () => {
    const dir = dataDir();
    const file = path.join(dir, SKETCH_FILE);
    const a = new VectorSketch(dir, MODEL);
    await a.refresh();
    await a.append([change(a, 'S', '', 'f1', ['c1'])]);
    const whole = statSync(file).size;
    await a.append([change(a, 'S', 'f1', 'f2', ['c2'])]);
    truncateSync(file, statSync(file).size - 10);
    const b = new VectorSketch(dir, MODEL);
    await b.refresh();
    expect(b.fingerprints()).toEqual(new Map([['S', 'f1']]));
    expect(statSync(file).size).toBe(whole);
    // Garbage after the last record is cut off the same way; appending goes on after the last whole record.
    appendFileSync(file, Buffer.from('not a record at all'));
    await b.refresh();
    await b.append([change(b, 'T', '', 't1', ['d1'])]);
    const c = new VectorSketch(dir, MODEL);
    await c.refresh();
    expect(c.fingerprints()).toEqual(new Map([['S', 'f1'], ['T', 't1']]));
    // A change that does not follow from what the journal holds: the session is to be read again.
    await c.append([change(c, 'S', 'f7', 'f8', ['c9'])]);
    expect(c.fingerprints().get('S')).not.toBe('f8');
    expect(c.fingerprints().get('S')).not.toBe('f1');
  });

  it('cuts off a tail of zeros (a power loss after the file grew): no record, no session is read from it', async () => {
    const dir = dataDir();
    const file = path.join(dir, SKETCH_FILE);
    const a = new VectorSketch(dir, MODEL);
    await a.refresh();
    await a.append([change(a, 'S', '', 'f1', ['c1', 'c2'])]);
    const whole = statSync(file).size;
    appendFileSync(file, Buffer.alloc(4096));
    const b = new VectorSketch(dir, MODEL);
    await b.refresh();
    expect(b.fingerprints()).toEqual(new Map([['S', 'f1']]));
    expect(b.size).toBe(2);
    expect(statSync(file).size).toBe(whole);
    // Zeros in place of the last record's bytes (its length written, its payload not): cut off too.
    await b.append([change(b, 'T', '', 't1', ['d1'])]);
    const bytes = readFileSync(file);
    bytes.fill(0, whole + 8);
    writeFileSync(file, bytes);
    const c = new VectorSketch(dir, MODEL);
    await c.refresh();
    expect(c.fingerprints()).toEqual(new Map([['S', 'f1']]));
    expect(statSync(file).size).toBe(whole);
  });

  it('reads a journal of the earlier format (a checksum of the payload alone) as unusable: it starts over, to be rebuilt from the store', async () => {
    const dir = dataDir();
    const file = path.join(dir, SKETCH_FILE);
    const a = new VectorSketch(dir, MODEL);
    await a.refresh();
    await a.append([change(a, 'S', '', 'f1', ['c1'])]);
    const bytes = readFileSync(file);
    bytes.writeUInt32LE(1, 4); // the format field of the header
    writeFileSync(file, bytes);
    const b = new VectorSketch(dir, MODEL);
    await b.refresh();
    expect(b.fingerprints().size).toBe(0);
    await b.append([change(b, 'S', '', 'f1', ['c1'])]);
    const c = new VectorSketch(dir, MODEL);
    await c.refresh();
    expect(c.fingerprints()).toEqual(new Map([['S', 'f1']]));
  });

  it('keeps in memory only what live entries need: records and sessions gone are let go in a long-running process', async () => {
    const dir = dataDir();
    const a = new VectorSketch(dir, MODEL);
    await a.refresh();
    const held = a as unknown as { idSources: Buffer[]; sessionNames: string[] };
    // One session saved again and again (each save replaces its chunks), and sessions that come and go.
    for (let i = 0; i < 3000; i++) {
      await a.append([change(a, 'S', i === 0 ? '' : `f${i - 1}`, `f${i}`, [`c${i}`], { replace: true })]);
      await a.append([change(a, `gone-${i}`, '', 'g', ['x']), { sessionId: `gone-${i}`, previous: 'g', fingerprint: '', replace: true, removed: [], added: [] }]);
    }
    expect(a.fingerprints()).toEqual(new Map([['S', 'f2999']]));
    expect(idsOf(a, 'S')).toEqual(['c2999']);
    expect(held.idSources.length).toBeLessThan(2100);
    expect(held.sessionNames.length).toBeLessThan(1100);
    // What is left still works: candidates name the live chunk and its session.
    const vector = randomVector(MODEL.dim);
    await a.append([{ sessionId: 'T', previous: '', fingerprint: 't1', replace: true, removed: [], added: [{ chunkId: 'near', code: a.encode(vector) }] }]);
    expect(a.candidates([vector], 'Q', NEAR_DUPLICATE_FLOOR).flat().map((e) => a.entry(e))).toEqual([{ chunkId: 'near', sessionId: 'T' }]);
  });

  it('refuses to write once the write lock was lost to another process, and leaves the file as it was', async () => {
    const dir = dataDir();
    const file = path.join(dir, SKETCH_FILE);
    const release = await acquireWriteLock(dir, { waitMs: 0, updateMs: 200 });
    const a = new VectorSketch(dir, MODEL);
    await a.refresh();
    await a.append([change(a, 'S', '', 'f1', ['c1'])]);
    // Another process takes the lock over (here: the lock folder removed, as after a stale takeover).
    rmSync(path.join(dir, LOCK_FILE), { recursive: true, force: true });
    await expect.poll(() => { try { assertWriteLock(dir); return 'held'; } catch { return 'lost'; } }, { timeout: 5_000 }).toBe('lost');
    const before = readFileSync(file);
    await expect(a.append([change(a, 'S', 'f1', 'f2', ['c2'])])).rejects.toThrow(/write lock of .* was lost .*stopped writing/);
    await expect(a.compact(['S'])).rejects.toThrow(/was lost/);
    expect(readFileSync(file).equals(before)).toBe(true);
    // Releasing a lost lock leaves the new holder's lock alone; a fresh lock writes again.
    await release();
    const again = await acquireWriteLock(dir, { waitMs: 0 });
    try {
      await a.refresh();
      expect(a.fingerprints()).toEqual(new Map([['S', 'f1']]));
      await a.append([change(a, 'S', 'f1', 'f2', ['c2'])]);
      expect(a.fingerprints()).toEqual(new Map([['S', 'f2']]));
    } finally {
      await again();
    }
  });

  it('starts over when the file belongs to another model or is not a sketch', async () => {
    const dir = dataDir();
    const a = new VectorSketch(dir, MODEL);
    await a.refresh();
    await a.append([change(a, 'S', '', 'f1', ['c1'])]);
    const other = new VectorSketch(dir, { model: 'another-model', dim: 384 });
    await other.refresh();
    expect(other.fingerprints().size).toBe(0);
    expect(readFileSync(path.join(dir, SKETCH_FILE)).includes(Buffer.from('another-model'))).toBe(true);
    writeFileSync(path.join(dir, SKETCH_FILE), 'not a sketch');
    const again = new VectorSketch(dir, MODEL);
    await again.refresh();
    expect(again.fingerprints().size).toBe(0);
  });
});
