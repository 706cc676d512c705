/**
 * The scan behind `VectorSketch.candidates` (vectorSketch.ts): every stored code against every
 * query's, 64 bits at a time, leaving a pair as soon as its differing bits pass what `similarity`
 * allows. The comparing runs in WebAssembly (codeScan.wat), 1.3-2.7x as fast as it did here (counting
 * bits by a table: docs/benchmarks.md); choosing the closest runs here.
 */
import { maxDifferingBits, type CodeEncoder } from './vectorCodes.js';
import type { CodeSpace } from './codeSpace.js';

/** The sketch's entries: `count` codes of `encoder.words` words each, and each entry's owner (-1: removed), in `space`. */
export interface SketchEntries {
  encoder: CodeEncoder;
  space: CodeSpace;
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
  const found: number[][] = [];
  const byGroup = scan(sketch, own, vectors, similarity, Infinity, groups.heads, true);
  // Read after the scan: a scan that needed more memory leaves the arrays before it empty.
  const { owners } = sketch.space;
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
 * The scan itself (codeScan.wat, over the codes where the sketch keeps them), over every entry or
 * (with `heads`) over one entry per code group; with `withDistances`, each query's list holds group
 * indices and distances in turn, unsorted.
 */
function scan({ encoder, space, count }: SketchEntries, own: number, vectors: readonly Float32Array[], similarity: number, most: number, heads: readonly number[] | null, withDistances = false): number[][] {
  const words = encoder.words;
  const found = vectors.map(() => [] as number[]);
  const distances = vectors.map(() => [] as number[]);
  const queries = new Uint32Array(vectors.length * words);
  vectors.forEach((v, i) => encoder.encodeInto(v, queries, i * words));
  // The most bits the first w + 1 words may differ in: a pair over it after any 64 bits is left there
  // (most pairs of related but distinct texts are, after a few steps; a near copy never is).
  const limits = Int32Array.from({ length: words }, (_, w) => maxDifferingBits((w + 1) * 32, similarity));
  const pairs = space.scan({ heads, count, own, queries, limits });
  for (let t = 0; t < pairs.length; t += 3) {
    const q = pairs[t]!;
    const i = pairs[t + 1]!;
    if (withDistances) found[q]!.push(i, pairs[t + 2]!);
    else {
      found[q]!.push(heads ? heads[i]! : i);
      distances[q]!.push(pairs[t + 2]!);
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
