/**
 * `npx tsx scripts/bench-sketch.ts [--sessions 500] [--chunks-per-session 210] [--distinct 4000]`
 *
 * The near-duplicate check's code comparisons (vectorSketch.ts, sketchScan.ts) on a sketch of the
 * large store `npm run bench` fills (500 sessions of real passages, cached under .cache/bench by that
 * benchmark; a passage sits in several sessions when there are more chunks than passages): batches of
 * 32 queries (real passages' vectors, as a save's embedded batches: the last 256 passages, which the
 * sketch does not hold, as a save's new text), each distinct code compared once against every entry
 * compared, in alternating order, and batches of 2 (a turn's save) against every entry. Prints the
 * medians and checks the two ways give the same candidates.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { NEAR_DUPLICATE_FLOOR } from '../shared/domain.js';
import { closeEntries, VectorSketch } from '../electron/engine/duplicates/index.js';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '500' }, 'chunks-per-session': { type: 'string', default: '210' }, distinct: { type: 'string', default: '4000' } } });
const SESSIONS = Number(values.sessions);
const PER = Number(values['chunks-per-session']);
const DIM = 512;
const base = path.resolve(`.cache/bench/passages-v1-use-lite-en-${DIM}-${values.distinct}`);
const raw = readFileSync(`${base}.f32`);
const all = Array.from({ length: raw.length / (DIM * 4) }, (_, i) => new Float32Array(raw.buffer.slice(raw.byteOffset + i * DIM * 4, raw.byteOffset + (i + 1) * DIM * 4)));
// The last 256 passages are the queries: text new to the sketch, as a save's.
const QUERIES = 256;
const vectors = all.slice(0, all.length - QUERIES);
const fresh = all.slice(all.length - QUERIES);
const dir = mkdtempSync(path.join(os.tmpdir(), 'sm-bench-sketch-'));
try {
  const sketch = new VectorSketch(dir, { model: 'use-lite-en', dim: DIM });
  await sketch.refresh();
  for (let s = 0; s < SESSIONS; s++) {
    const added = Array.from({ length: PER }, (_, c) => ({ chunkId: `other-${s}-${c}`, code: sketch.encode(vectors[(s * PER + c) % vectors.length]!) }));
    await sketch.append([{ sessionId: `other-${s}`, previous: '', fingerprint: `f${s}`, replace: true, removed: [], added }]);
  }
  // Reach the entries as the sketch holds them (the grouped scan is what `candidates` runs).
  const inner = sketch as unknown as { encoder: never; space: never; count: number };
  const entries = { encoder: inner.encoder, space: inner.space, count: inner.count };
  const batches = Array.from({ length: 8 }, (_, b) => fresh.slice(b * 32, (b + 1) * 32));
  const turns = Array.from({ length: 8 }, (_, b) => fresh.slice(b * 2, b * 2 + 2));
  const times = { all: [] as number[], grouped: [] as number[], turn: [] as number[] };
  let same = true;
  for (let round = 0; round < 3; round++) {
    for (const variant of round % 2 === 0 ? (['all', 'grouped'] as const) : (['grouped', 'all'] as const)) {
      const started = performance.now();
      const results = batches.map((batch) => (variant === 'grouped' ? sketch.candidates(batch, 'probe', NEAR_DUPLICATE_FLOOR, 16) : closeEntries(entries, -2, batch, NEAR_DUPLICATE_FLOOR, 16)));
      times[variant].push(performance.now() - started);
      if (variant === 'all') {
        const turnStarted = performance.now();
        for (const batch of turns) closeEntries(entries, -2, batch, NEAR_DUPLICATE_FLOOR, 16);
        times.turn.push(performance.now() - turnStarted);
      }
      if (variant === 'grouped') {
        const plain = batches.map((batch) => closeEntries(entries, -2, batch, NEAR_DUPLICATE_FLOOR, 16));
        same &&= JSON.stringify(plain) === JSON.stringify(results);
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  console.log(`sketch of ${sketch.size} entries (${SESSIONS} sessions x ${PER}, ${vectors.length} distinct passages); 8 batches of 32 queries of ${QUERIES} other passages:`);
  console.log(`  every entry compared: ${times.all.map((t) => t.toFixed(0)).join(', ')} ms (median ${median(times.all).toFixed(0)})`);
  console.log(`  each distinct code once: ${times.grouped.map((t) => t.toFixed(0)).join(', ')} ms (median ${median(times.grouped).toFixed(0)}; the first builds the groups)`);
  console.log(`  8 batches of 2 queries, every entry compared: ${times.turn.map((t) => t.toFixed(1)).join(', ')} ms (median ${median(times.turn).toFixed(1)})`);
  console.log(`  same candidates: ${same}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
