/** The vector sketch's scan in WebAssembly (codeScan.wat): the module is its source's, it finds what counting bit by bit finds, and its memory keeps the codes as it grows. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodeSpace } from '../electron/engine/duplicates/codeSpace.js';
import { WASM_BASE64 } from '../electron/engine/duplicates/codeScanModule.js';
import { compileWat, moduleSource } from '../scripts/wasmModule.js';
import { seededRandom } from '../scripts/transcriptGenerator.js';

const WAT = path.resolve('electron/engine/duplicates/codeScan.wat');
const WORDS = 16;

/** Bits set in a 32-bit word, one at a time. */
function bitsOf(x: number): number {
  let n = 0;
  for (let b = 0; b < 32; b++) n += (x >>> b) & 1;
  return n;
}

/**
 * The pairs as the scan is specified: every 64 bits, the bits differing so far at most that step's
 * limit; by position, each position's queries in order.
 */
function reference(codes: Uint32Array, owners: Int32Array, heads: number[] | null, count: number, own: number, queries: Uint32Array, limits: Int32Array): number[] {
  const out: number[] = [];
  const positions = heads ?? Array.from({ length: count }, (_, i) => i);
  positions.forEach((e, i) => {
    if (!heads && (owners[e]! < 0 || owners[e] === own)) return;
    for (let q = 0; q < queries.length / WORDS; q++) {
      let d = 0;
      let over = false;
      for (let w = 0; w < WORDS; w++) {
        d += bitsOf(queries[q * WORDS + w]! ^ codes[e * WORDS + w]!);
        if (w % 2 === 1 && d > limits[w]!) over = true;
      }
      if (!over) out.push(q, heads ? i : e, d);
    }
  });
  return out;
}

/** A code differing from `code` in `flips` random bits. */
function near(code: Uint32Array, flips: number, random: () => number): Uint32Array {
  const copy = code.slice();
  for (let f = 0; f < flips; f++) {
    const bit = Math.floor(random() * WORDS * 32);
    copy[bit >>> 5] = (copy[bit >>> 5]! ^ (1 << (bit & 31))) >>> 0;
  }
  return copy;
}

describe('the scan module', () => {
  it('is what its WebAssembly text compiles to (npm run build:wasm)', async () => {
    const bytes = await compileWat(WAT);
    expect(Buffer.from(WASM_BASE64, 'base64').equals(Buffer.from(bytes))).toBe(true);
    expect(readFileSync(path.resolve('electron/engine/duplicates/codeScanModule.ts'), 'utf8')).toBe(moduleSource('codeScan.wat', bytes));
  });
});

describe('the scan', () => {
  const random = seededRandom(11);
  const randomCode = () => Uint32Array.from({ length: WORDS }, () => Math.floor(random() * 2 ** 32) >>> 0);
  // 600 entries: 40 bases and, for each, copies 0 to 140 bits away; queries near some bases.
  const bases = Array.from({ length: 40 }, randomCode);
  const stored = Array.from({ length: 600 }, (_, i) => near(bases[i % 40]!, Math.floor(random() * 140), random));
  const owners = Int32Array.from({ length: 600 }, (_, i) => (i % 17 === 0 ? -1 : i % 5));
  const queries = new Uint32Array(12 * WORDS);
  for (let q = 0; q < 12; q++) queries.set(near(bases[q * 3]!, 20, random), q * WORDS);
  // The limits the near-duplicate check uses at cosine 0.9, for 512-bit codes (vectorCodes.ts).
  const limits = Int32Array.from({ length: WORDS }, (_, w) => Math.ceil((w + 1) * 32 * 0.1436 + 4.75 * Math.sqrt((w + 1) * 32 * 0.1436 * 0.8564)));

  function filled(capacity: number): CodeSpace {
    const space = new CodeSpace(WORDS);
    space.reserve(capacity, 0);
    stored.forEach((code, e) => space.codes.set(code, e * WORDS));
    space.owners.set(owners);
    return space;
  }

  it('finds the pairs counting bit by bit finds, over every entry (skipping removed ones and the own session) and over chosen entries', () => {
    const space = filled(1024);
    const codes = Uint32Array.from(space.codes);
    for (const own of [-2, 3]) {
      const expected = reference(codes, owners, null, 600, own, queries, limits);
      expect(expected.length).toBeGreaterThan(30);
      expect([...space.scan({ heads: null, count: 600, own, queries, limits })]).toEqual(expected);
    }
    const heads = [5, 0, 599, 17, 3, 120, 121, 122];
    expect([...space.scan({ heads, count: 600, own: 3, queries, limits })]).toEqual(reference(codes, owners, heads, 600, 3, queries, limits));
  });

  it('gives every pair when there are more than its first output holds', () => {
    const space = filled(1024);
    // Limits no pair passes over: every entry pairs with every query (12 x 600, past the 1,024 first made room for).
    const all = Int32Array.from({ length: WORDS }, () => WORDS * 32);
    const pairs = space.scan({ heads: null, count: 600, own: -2, queries, limits: all });
    expect(pairs.length / 3).toBe(12 * owners.filter((o) => o >= 0).length);
  });

  it('keeps the codes and owners as its memory grows, and the arrays read after a scan that needed more are the same', () => {
    const space = new CodeSpace(WORDS);
    space.reserve(4, 0);
    stored.slice(0, 4).forEach((code, e) => space.codes.set(code, e * WORDS));
    space.owners.set(owners.subarray(0, 4));
    space.reserve(1024, 4);
    expect([...space.owners.subarray(0, 4)]).toEqual([...owners.subarray(0, 4)]);
    expect(space.owners.subarray(4).every((o) => o === -1)).toBe(true);
    expect([...space.codes.subarray(0, 4 * WORDS)]).toEqual(stored.slice(0, 4).flatMap((c) => [...c]));
    stored.slice(4).forEach((code, e) => space.codes.set(code, (e + 4) * WORDS));
    space.owners.set(owners.subarray(4), 4);
    const before = Uint32Array.from(space.codes);
    // 5,000 queries: their scratch is more than the memory held.
    const many = new Uint32Array(5000 * WORDS);
    for (let q = 0; q < 5000; q++) many.set(queries.subarray((q % 12) * WORDS, (q % 12 + 1) * WORDS), q * WORDS);
    const pairs = space.scan({ heads: null, count: 600, own: -2, queries: many, limits });
    expect(pairs.length).toBeGreaterThan(0);
    expect(space.codes).toEqual(before);
    expect([...space.owners.subarray(0, 600)]).toEqual([...owners]);
  });
});
