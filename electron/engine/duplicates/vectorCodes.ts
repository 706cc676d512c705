/**
 * Binary codes of vectors for the near-duplicate check: one bit per dimension (rounded up to a power
 * of two, 512 for the bundled models), the signs of the vector after a fixed random rotation. The
 * fraction of bits two codes differ in estimates the angle between their vectors (a random
 * hyperplane separates two vectors with probability angle / pi), so a Hamming distance bounds from
 * below which stored vectors can lie within a cosine of NEAR_DUPLICATE_FLOOR of a new one.
 *
 * The rotation is two rounds of random sign flips and a Walsh-Hadamard transform: O(d log d) per
 * vector instead of the d * d of a dense random matrix, with the same estimate for vectors that are
 * not built against it. The seed is fixed: codes written by one process are read by another.
 */

/** Bits of a vector's code: its dimension rounded up to a power of two (128 at least: the scan, codeScan.wat, compares the first 128 bits of every pair at once). */
export function codeBits(dim: number): number {
  let bits = 128;
  while (bits < dim) bits *= 2;
  return bits;
}

/** 32-bit words of a code. */
export const codeWords = (bits: number): number => bits / 32;

const SEED = 0x5e55_10f1;

/** The sign flips of both rounds (a fixed sequence: mulberry32 from SEED). */
function signsFor(bits: number): [Int8Array, Int8Array] {
  let state = SEED >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) & 1;
  };
  const round = () => Int8Array.from({ length: bits }, () => (next() ? 1 : -1));
  return [round(), round()];
}

/** In-place Walsh-Hadamard transform (unnormalised: only signs are kept). */
function hadamard(a: Float64Array): void {
  const n = a.length;
  for (let h = 1; h < n; h *= 2) {
    for (let i = 0; i < n; i += h * 2) {
      for (let j = i; j < i + h; j++) {
        const x = a[j]!;
        const y = a[j + h]!;
        a[j] = x + y;
        a[j + h] = x - y;
      }
    }
  }
}

/** Encodes vectors of one dimension into codes, written into a shared word array. */
export class CodeEncoder {
  readonly bits: number;
  readonly words: number;
  private readonly signs: [Int8Array, Int8Array];
  private readonly scratch: Float64Array;

  constructor(dim: number) {
    this.bits = codeBits(dim);
    this.words = codeWords(this.bits);
    this.signs = signsFor(this.bits);
    this.scratch = new Float64Array(this.bits);
  }

  /** Writes the code of `vector` at word `offset` of `out`. */
  encodeInto(vector: Float32Array, out: Uint32Array, offset: number): void {
    const a = this.scratch;
    const [first, second] = this.signs;
    a.fill(0);
    const n = Math.min(vector.length, this.bits);
    for (let i = 0; i < n; i++) a[i] = vector[i]! * first[i]!;
    hadamard(a);
    for (let i = 0; i < this.bits; i++) a[i]! *= second[i]!;
    hadamard(a);
    for (let w = 0; w < this.words; w++) {
      let word = 0;
      for (let b = 0; b < 32; b++) if (a[w * 32 + b]! > 0) word |= 1 << b;
      out[offset + w] = word >>> 0;
    }
  }

  encode(vector: Float32Array): Uint32Array {
    const out = new Uint32Array(this.words);
    this.encodeInto(vector, out, 0);
    return out;
  }
}

/**
 * The most bits in which the codes (or their first `bits`) of two vectors at cosine `similarity`
 * can differ, short of a chance of about one in a million (4.75 standard deviations of the binomial
 * count of differing bits above its mean).
 */
export function maxDifferingBits(bits: number, similarity: number): number {
  const p = Math.acos(Math.min(1, Math.max(-1, similarity))) / Math.PI;
  return Math.ceil(bits * p + 4.75 * Math.sqrt(bits * p * (1 - p)));
}
