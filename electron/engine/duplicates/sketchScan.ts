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
 * The entries grouped by their code: copies of one text (a fork's history, text saved twice) have the
 * same vector and so the same code, and one comparison serves them all. `codes[g]` is the entry whose
 * code group g has; `members[g]` its entries, in increasing order (dead ones are skipped when read).
 */
export interface CodeGroups {
  heads: number[];
  members: number[][];
}

/**
 * For each vector, the live entries not owned by `own` whose codes are close enough to lie within
 * cosine `similarity` of it, the `most` closest of them (by their codes). With `groups`, each
 * distinct code is compared once; the answer is the same (entries in increasing order, the closest
 * kept, ties in that order).
 */
export function closeEntries(sketch: SketchEntries, own: number, vectors: readonly Float32Array[], similarity: number, most: number, groups?: CodeGroups): number[][] {
  if (!groups) return scan(sketch, own, vectors, similarity, most, null);
  const { owners } = sketch;
  const found: number[][] = [];
  const byGroup = scan(sketch, own, vectors, similarity, Infinity, groups.heads, true);
  byGroup.forEach((matched, q) => {
    // The groups by distance; each distance's entries in increasing order, until `most` are taken.
    const order = Array.from({ length: matched.length / 2 }, (_, i) => i * 2).sort((a, b) => matched[a + 1]! - matched[b + 1]!);
    const taken: number[] = [];
    let cut = false;
    for (let k = 0; k < order.length && !cut; ) {
      const d = matched[order[k]! + 1]!;
      const level: number[] = [];
      for (; k < order.length && matched[order[k]! + 1] === d; k++) {
        for (const e of groups.members[matched[order[k]!]!]!) {
          const owner = owners[e]!;
          if (owner >= 0 && owner !== own) level.push(e);
        }
      }
      level.sort((a, b) => a - b);
      cut = taken.length + level.length > most;
      taken.push(...(cut ? level.slice(0, most - taken.length) : level));
    }
    // As the scan of every entry gives them: all in increasing order, or past `most` the closest first.
    found[q] = cut ? taken : taken.sort((a, b) => a - b);
  });
  return found;
}

/**
 * The scan itself, over every entry or (with `heads`) over one entry per code group; with
 * `withDistances`, each query's list holds group indices and distances in turn, unsorted.
 */
function scan({ encoder, codes, owners, count }: SketchEntries, own: number, vectors: readonly Float32Array[], similarity: number, most: number, heads: readonly number[] | null, withDistances = false): number[][] {
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
  const groupHeads = heads;
  const queryHeads = new Uint32Array(vectors.length * 2);
  for (let q = 0; q < vectors.length; q++) {
    queryHeads[q * 2] = queries[q * words]!;
    queryHeads[q * 2 + 1] = queries[q * words + 1]!;
  }
  const bits = BITS_OF_HALF_WORD;
  const end = queryHeads.length;
  const total = groupHeads ? groupHeads.length : count;
  for (let i = 0; i < total; i++) {
    // A group's owners are looked at when it is expanded (closeEntries).
    const e = groupHeads ? groupHeads[i]! : i;
    if (!groupHeads) {
      const owner = owners[e]!;
      if (owner < 0 || owner === own) continue;
    }
    const o = e * words;
    const c0 = codes[o]!;
    const c1 = codes[o + 1]!;
    for (let h = 0; h < end; h += 2) {
      const x = queryHeads[h]! ^ c0;
      const y = queryHeads[h + 1]! ^ c1;
      let d = bits[x & 0xffff]! + bits[x >>> 16]! + bits[y & 0xffff]! + bits[y >>> 16]!;
      if (d > firstLimit) continue;
      const p = (h >> 1) * words;
      let w = 2;
      for (; w < words; w++) {
        d += popcount(queries[p + w]! ^ codes[o + w]!);
        if (d > limits[w]!) break;
      }
      if (w === words) {
        if (withDistances) found[h >> 1]!.push(i, d);
        else {
          found[h >> 1]!.push(e);
          distances[h >> 1]!.push(d);
        }
      }
    }
  }
  if (withDistances) return found;
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
