/**
 * The scan behind `VectorSketch.candidates` (vectorSketch.ts): every stored code against every
 * query's, word by word, leaving a pair as soon as its differing bits pass what `similarity` allows.
 */
import { maxDifferingBits, popcount, type CodeEncoder } from './vectorCodes.js';

/** Set bits of every 16-bit number (a table lookup beats bit arithmetic in the hot loop, measured). */
const BITS_OF_HALF_WORD = (() => {
  const table = new Uint8Array(65536);
  for (let i = 1; i < table.length; i++) table[i] = (i & 1) + table[i >>> 1]!;
  return table;
})();

/** The sketch's entries: `count` codes of `encoder.words` words each, and each entry's owner (-1: removed). */
export interface SketchEntries {
  encoder: CodeEncoder;
  codes: Uint32Array;
  owners: Int32Array;
  count: number;
}

/**
 * For each vector, the live entries not owned by `own` whose codes are close enough to lie within
 * cosine `similarity` of it, the `most` closest of them (by their codes).
 */
export function closeEntries({ encoder, codes, owners, count }: SketchEntries, own: number, vectors: readonly Float32Array[], similarity: number, most: number): number[][] {
  const words = encoder.words;
  const found = vectors.map(() => [] as number[]);
  const distances = vectors.map(() => [] as number[]);
  const queries = new Uint32Array(vectors.length * words);
  vectors.forEach((v, i) => encoder.encodeInto(v, queries, i * words));
  // The most bits the first w + 1 words may differ in: a pair over it at any word is left there
  // (most pairs of related but distinct texts are, after a few words; a near copy never is). The
  // first two words (64 bits) are compared together, for every stored chunk and query.
  const limits = Int32Array.from({ length: words }, (_, w) => maxDifferingBits((w + 1) * 32, similarity));
  const firstLimit = limits[1]!;
  // The first two words of every query side by side: the loop below runs once per stored chunk and query.
  const heads = new Uint32Array(vectors.length * 2);
  for (let q = 0; q < vectors.length; q++) {
    heads[q * 2] = queries[q * words]!;
    heads[q * 2 + 1] = queries[q * words + 1]!;
  }
  const bits = BITS_OF_HALF_WORD;
  const end = heads.length;
  for (let e = 0; e < count; e++) {
    const owner = owners[e]!;
    if (owner < 0 || owner === own) continue;
    const o = e * words;
    const c0 = codes[o]!;
    const c1 = codes[o + 1]!;
    for (let h = 0; h < end; h += 2) {
      const x = heads[h]! ^ c0;
      const y = heads[h + 1]! ^ c1;
      let d = bits[x & 0xffff]! + bits[x >>> 16]! + bits[y & 0xffff]! + bits[y >>> 16]!;
      if (d > firstLimit) continue;
      const p = (h >> 1) * words;
      let w = 2;
      for (; w < words; w++) {
        d += popcount(queries[p + w]! ^ codes[o + w]!);
        if (d > limits[w]!) break;
      }
      if (w === words) {
        found[h >> 1]!.push(e);
        distances[h >> 1]!.push(d);
      }
    }
  }
  return found.map((list, q) => {
    if (list.length <= most) return list;
    const d = distances[q]!;
    return list
      .map((e, i) => i)
      .sort((a, b) => d[a]! - d[b]!)
      .slice(0, most)
      .map((i) => list[i]!);
  });
}
