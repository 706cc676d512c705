/**
 * Where the vector sketch keeps its codes and owners: in the memory of the WebAssembly scan
 * (codeScan.wat), so that a scan reads them where they are, with the processor's population count,
 * instead of copying them or counting bits in JavaScript (1.3-2.7x the pairs a second, by the path:
 * docs/benchmarks.md). The sketch reads and writes `codes` and `owners` as typed arrays; they
 * are new arrays after `reserve` or a `scan` that needed more memory, so a caller reads them again
 * after either.
 *
 * Layout: the codes of `capacity` entries from byte 0, then their owners, then the scan's scratch
 * (its queries, limits, group heads and pairs found).
 */
import { WASM_BASE64 } from './codeScanModule.js';

const PAGE = 65_536;

let compiled: WebAssembly.Module | undefined;

function scanModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(Buffer.from(WASM_BASE64, 'base64'));
  return compiled;
}

type ScanFunction = (codes: number, owners: number, heads: number, n: number, own: number, queries: number, nq: number, words: number, limits: number, out: number, cap: number) => number;

export interface ScanRequest {
  /** The entries to compare: `count` first entries (skipping removed ones and `own`'s), or these entries alone (no owner check). */
  heads: readonly number[] | null;
  count: number;
  /** An owner index whose entries are skipped when scanning every entry (-2: none). */
  own: number;
  /** The queries' codes, one after another. */
  queries: Uint32Array;
  /** The most bits the first w + 1 words of a pair may differ in, for each w. */
  limits: Int32Array;
}

export class CodeSpace {
  private readonly memory: WebAssembly.Memory;
  private readonly run: ScanFunction;
  private capacityEntries = 0;
  codes = new Uint32Array(0);
  owners = new Int32Array(0);

  constructor(readonly words: number) {
    // The scan reads 64 bits a step and the first 128 bits at once (codeScan.wat; codeBits gives no less).
    if (!Number.isInteger(words) || words < 4 || words % 2 !== 0) throw new Error(`codes of ${words} words cannot be scanned: 4 or more, an even number`);
    const instance = new WebAssembly.Instance(scanModule(), {});
    this.memory = instance.exports.memory as WebAssembly.Memory;
    this.run = instance.exports.scan as ScanFunction;
  }

  /** Entries the arrays hold room for. */
  get capacity(): number {
    return this.capacityEntries;
  }

  /** Room for `capacity` entries, keeping the first `count` (the rest of `owners` is -1). */
  reserve(capacity: number, count: number): void {
    const before = this.capacityEntries;
    if (capacity <= before) return;
    this.ensure(this.scratchAt(capacity));
    const bytes = new Uint8Array(this.memory.buffer);
    // The owners move up past the larger codes (an overlapping copy, as memmove does).
    const from = before * this.words * 4;
    const to = capacity * this.words * 4;
    bytes.copyWithin(to, from, from + count * 4);
    bytes.fill(0, from, Math.min(to, from + before * 4));
    this.capacityEntries = capacity;
    this.view();
    this.owners.fill(-1, count);
  }

  /** Forgets every entry (the memory stays, for the entries read next). */
  clear(): void {
    this.owners.fill(-1);
  }

  /**
   * The pairs within the limits, as (query, position in the scan, differing bits) triples: by
   * position, each position's queries in order.
   */
  scan(request: ScanRequest): Int32Array {
    const { heads, queries, limits } = request;
    const n = heads ? heads.length : request.count;
    const nq = queries.length / this.words;
    const at = this.scratchAt(this.capacityEntries);
    const limitsAt = at + queries.byteLength;
    const headsAt = limitsAt + limits.byteLength;
    const outAt = headsAt + (heads ? heads.length * 4 : 0);
    let cap = Math.max(1024, nq * 64);
    for (;;) {
      this.ensure(outAt + cap * 12);
      new Uint32Array(this.memory.buffer, at, queries.length).set(queries);
      new Int32Array(this.memory.buffer, limitsAt, limits.length).set(limits);
      if (heads) new Int32Array(this.memory.buffer, headsAt, heads.length).set(heads);
      const found = this.run(0, this.capacityEntries * this.words * 4, heads ? headsAt : 0, n, request.own, at, nq, this.words, limitsAt, outAt, cap);
      if (found <= cap) return new Int32Array(this.memory.buffer, outAt, found * 3).slice();
      cap = found;
    }
  }

  /** Where the scratch begins with room for `capacity` entries (never byte 0, which means "no heads"). */
  private scratchAt(capacity: number): number {
    return Math.max(8, Math.ceil((capacity * (this.words + 1) * 4) / 8) * 8);
  }

  private ensure(bytes: number): void {
    const have = this.memory.buffer.byteLength;
    if (bytes <= have) return;
    this.memory.grow(Math.ceil((bytes - have) / PAGE));
    this.view();
  }

  private view(): void {
    const entries = this.capacityEntries;
    this.codes = new Uint32Array(this.memory.buffer, 0, entries * this.words);
    this.owners = new Int32Array(this.memory.buffer, entries * this.words * 4, entries);
  }
}
