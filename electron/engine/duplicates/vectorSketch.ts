/**
 * The vector sketch: a binary code (vectorCodes.ts) of every stored chunk, kept in memory and in
 * `vector-sketch.bin`, so that a save's near-duplicate check picks the few stored chunks that can lie
 * within NEAR_DUPLICATE_FLOOR of its new ones by comparing codes (a few nanoseconds a chunk) instead
 * of searching the store once per new chunk (about a millisecond each with the vector index,
 * measured). Only those candidates' vectors are then read, and compared exactly.
 *
 * The file is a journal: a header, then one record per change of a session (its chunks removed and
 * added, and the fingerprint of its content afterwards), appended under the write lock. Each record
 * carries a checksum and the fingerprint it follows from, so a record cut short by a crash is cut off,
 * and a session whose records do not chain (or whose fingerprint differs from the archive record's:
 * a save that died after its commit, a store from before this file) is read again from the store.
 * Another process's appends are read on the next use; when the journal has grown to several times what
 * it describes, it is rewritten whole (atomically, with a new generation that tells other processes to
 * read it again). The file is derived data: deleting it costs one pass over the store's vectors.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { crashPoint } from '../files/crashPoints.js';
import { readSince, replaceWhole, truncateAt, writeAt } from '../files/journalFile.js';
import { encodeRecord, headerBytes, padded, parseHeader, recordLength, type SketchChange } from './sketchRecords.js';
import { CodeEncoder } from './vectorCodes.js';
import { closeEntries, type CodeGroups } from './sketchScan.js';
import { CodeSpace } from './codeSpace.js';

import { SKETCH_FILE } from '../files/layout.js';
export { SKETCH_FILE };
export type { SketchChange } from './sketchRecords.js';

interface SessionState {
  fingerprint: string;
  /** Its live entries. */
  entries: number[];
}

/** A fingerprint no archive entry has: the session must be read again. */
const BROKEN = '!';

/**
 * Queries from which a scan compares each distinct code once (sketchScan.ts): grouping the entries
 * costs about one scan, kept up to date afterwards, so it is built for a save's batches of new
 * chunks, not for the one or two chunks of a small append.
 */
const GROUP_FROM_QUERIES = 8;

export class VectorSketch {
  private readonly encoder: CodeEncoder;
  private readonly words: number;
  /** The codes and owners of the entries, where the scan reads them (codeSpace.ts). */
  private readonly space: CodeSpace;
  /** Where each entry's chunk id lies (decoded only when asked for): a buffer of `idSources`, offset, length. */
  private idSource = new Int32Array(0);
  private idAt = new Int32Array(0);
  private idLength = new Int32Array(0);
  private idSources: Buffer[] = [];
  private count = 0;
  private dead = 0;
  private readonly sessions = new Map<string, SessionState>();
  private readonly sessionIndex = new Map<string, number>();
  private readonly sessionNames: string[] = [];
  /** The entries grouped by code (built by the first scan with enough queries; dropped when entries move). */
  private groups: (CodeGroups & { byHash: Map<number, number[]> }) | null = null;
  /** Journal position: the file's generation and the end of its last whole record. */
  private generation: Buffer | null = null;
  private end = 0;
  private readonly file: string;

  constructor(
    dataDir: string,
    private readonly model: { model: string; dim: number },
  ) {
    this.encoder = new CodeEncoder(model.dim);
    this.words = this.encoder.words;
    this.space = new CodeSpace(this.words);
    this.file = path.join(dataDir, SKETCH_FILE);
  }

  /** Each entry's code (`words` words), valid until entries are added. */
  private get codes(): Uint32Array {
    return this.space.codes;
  }

  /** Each entry's session index, -1 for a removed entry. */
  private get owners(): Int32Array {
    return this.space.owners;
  }

  /** The dimension of the vectors it encodes. */
  get dim(): number {
    return this.model.dim;
  }

  /** The code of a vector, for a change's additions. */
  encode(vector: Float32Array): Uint32Array {
    return this.encoder.encode(vector);
  }

  /** The sessions the sketch describes, with the fingerprint of what it holds of each. */
  fingerprints(): Map<string, string> {
    return new Map([...this.sessions].map(([id, s]) => [id, s.fingerprint]));
  }

  get size(): number {
    return this.count - this.dead;
  }

  /** Reads what was appended since the last call (by this process or another); starts the file when missing or unusable. */
  async refresh(): Promise<void> {
    const read = await readSince(this.file, 24 + 4096, (head, size) => {
      const header = parseHeader(head, this.model.model, this.encoder.bits);
      if (!header) return null;
      if (!this.generation || !header.generation.equals(this.generation) || size < this.end) {
        this.clear();
        this.generation = header.generation;
        this.end = header.length;
      }
      return this.end;
    });
    if (read === 'missing' || read === 'unusable') {
      await this.startOver();
      return;
    }
    const { from, data } = read;
    let at = 0;
    while (at + 8 <= data.length) {
      const length = recordLength(data, at);
      if (length === null) break;
      this.applyRecord(data.subarray(at + 8, at + 8 + length));
      at += 8 + length;
    }
    this.end = from + at;
    // A record cut short (a process killed while appending) or a tail of zeros (a power loss after
    // the file grew but before its data reached the disk): cut off before anything follows it.
    if (at < data.length) await truncateAt(this.file, this.end);
  }

  /**
   * Drops these sessions and rewrites the file whole, so that no record of its history is left: after
   * a forget or a redaction, it holds no code of a chunk that is gone. Under the write lock.
   */
  async compact(dropSessions: readonly string[] = []): Promise<void> {
    await this.refresh();
    for (const sessionId of dropSessions) {
      if (this.sessions.has(sessionId)) this.applyRecord(encodeRecord({ sessionId, previous: '', fingerprint: '', replace: true, removed: [], added: [] }, this.words).subarray(8));
    }
    try {
      await this.rewrite();
    } catch (error) {
      // Memory holds what the file does not: the next refresh reads the file whole again.
      this.generation = null;
      throw error;
    }
  }

  /** Appends changes to the journal and applies them (the caller holds the write lock and has refreshed). */
  async append(changes: readonly SketchChange[]): Promise<void> {
    if (changes.length === 0) return;
    const records = changes.map((c) => encodeRecord(c, this.words));
    await writeAt(this.file, records, this.end, () => crashPoint('sketch'));
    for (const record of records) {
      this.applyRecord(record.subarray(8));
      this.end += record.length;
    }
    if (this.end > 4 * 1024 * 1024 && this.end > 3 * this.liveBytes()) await this.rewrite();
  }

  /**
   * For each vector, the stored chunks of sessions other than `sessionId` whose codes are close
   * enough to lie within cosine `similarity` of it (about one in a million missed: vectorCodes.ts),
   * the `most` closest of them (by their codes; all when not given).
   */
  candidates(vectors: readonly Float32Array[], sessionId: string, similarity: number, most = Infinity): number[][] {
    if (vectors.length === 0 || this.size === 0) return vectors.map(() => [] as number[]);
    if (!this.groups && vectors.length >= GROUP_FROM_QUERIES) {
      this.groups = { heads: [], members: [], byHash: new Map() };
      for (let e = 0; e < this.count; e++) if (this.owners[e]! >= 0) this.group(e);
    }
    return closeEntries({ encoder: this.encoder, space: this.space, count: this.count }, this.sessionIndex.get(sessionId) ?? -2, vectors, similarity, most, this.groups ?? undefined);
  }

  /** Puts an entry into the group of its code (entries are grouped in increasing order). */
  private group(e: number): void {
    const groups = this.groups!;
    const { codes, words } = this;
    const o = e * words;
    let hash = 0x811c9dc5;
    for (let w = 0; w < words; w++) hash = Math.imul(hash ^ codes[o + w]!, 0x01000193);
    // Groups whose codes share the hash: the one whose code is this entry's, compared word by word.
    const same = groups.byHash.get(hash);
    const g = same?.find((g) => {
      const h = groups.heads[g]! * words;
      for (let w = 0; w < words; w++) if (codes[h + w] !== codes[o + w]) return false;
      return true;
    });
    if (g !== undefined) groups.members[g]!.push(e);
    else {
      if (same) same.push(groups.heads.length);
      else groups.byHash.set(hash, [groups.heads.length]);
      groups.heads.push(e);
      groups.members.push([e]);
    }
  }

  /** The chunk and session of an entry `candidates` returned. */
  entry(index: number): { chunkId: string; sessionId: string } {
    return { chunkId: this.chunkId(index), sessionId: this.sessionNames[this.owners[index]!]! };
  }

  private chunkId(e: number): string {
    const at = this.idAt[e]!;
    return this.idSources[this.idSource[e]!]!.toString('utf8', at, at + this.idLength[e]!);
  }

  // --- the journal's layout -------------------------------------------------------------------

  private applyRecord(payload: Buffer): void {
    // Codes are little-endian in the file, as in memory on every platform the app ships for.
    if (payload.byteOffset % 4 !== 0) payload = Buffer.from(payload);
    const words = new Uint32Array(payload.buffer, payload.byteOffset, payload.length >> 2);
    let at = 0; // in words
    const getString = () => {
      const length = words[at]!;
      const s = payload.toString('utf8', at * 4 + 4, at * 4 + 4 + length);
      at += 1 + (padded(length) >> 2);
      return s;
    };
    const replace = words[at++] === 1;
    const sessionId = getString();
    const previous = getString();
    const fingerprint = getString();
    let state = this.sessions.get(sessionId);
    const chained = replace || (state?.fingerprint ?? '') === previous;
    if (!state) {
      state = { fingerprint: '', entries: [] };
      this.sessions.set(sessionId, state);
    }
    if (replace) {
      for (const e of state.entries) this.kill(e);
      state.entries = [];
    }
    const removedIds = Array.from({ length: words[at++]! }, getString);
    const added = words[at++]!;
    const step = this.words;
    // A change to part of a session: the chunks it removed, and those it wrote again under the same
    // id (an edited message keeps its chunk's id), leave; ids are decoded for this session only.
    if (!replace && state.entries.length > 0 && (removedIds.length > 0 || added > 0)) {
      const byId = new Map(state.entries.map((e) => [this.chunkId(e), e] as const));
      const leaving = new Set<number>();
      for (const id of removedIds) if (byId.has(id)) leaving.add(byId.get(id)!);
      for (let i = 0, p = at; i < added; i++) {
        const length = words[p]!;
        const e = byId.get(payload.toString('utf8', p * 4 + 4, p * 4 + 4 + length));
        if (e !== undefined) leaving.add(e);
        p += 1 + (padded(length) >> 2) + step;
      }
      if (leaving.size > 0) {
        for (const e of leaving) this.kill(e);
        state.entries = state.entries.filter((e) => !leaving.has(e));
      }
    }
    const owner = this.ownerIndex(sessionId);
    // The payload stays in memory for the chunk ids it holds (only while one of them is live: pack()).
    const source = added > 0 ? this.idSources.push(payload) - 1 : -1;
    for (let i = 0; i < added; i++) {
      const length = words[at]!;
      const e = this.grow();
      this.idSource[e] = source;
      this.idAt[e] = at * 4 + 4;
      this.idLength[e] = length;
      at += 1 + (padded(length) >> 2);
      const codes = this.codes;
      for (let w = 0, o = e * step; w < step; w++) codes[o + w] = words[at + w]!;
      at += step;
      this.owners[e] = owner;
      state.entries.push(e);
      if (this.groups) this.group(e);
    }
    if (replace && fingerprint === '' && state.entries.length === 0) this.sessions.delete(sessionId);
    else state.fingerprint = chained ? fingerprint : BROKEN;
    // Removed entries, the records that held their ids and the names of sessions gone are dropped
    // once they make up half of what is kept: a process that runs for months stays the size of its store.
    if ((this.dead > 1024 && this.dead > this.count / 2) || this.sessionNames.length > 1024 + 2 * this.sessions.size) this.pack();
  }

  private ownerIndex(sessionId: string): number {
    let index = this.sessionIndex.get(sessionId);
    if (index === undefined) {
      index = this.sessionNames.length;
      this.sessionNames.push(sessionId);
      this.sessionIndex.set(sessionId, index);
    }
    return index;
  }

  private kill(e: number): void {
    if (this.owners[e]! < 0) return;
    this.owners[e] = -1;
    this.dead++;
  }

  private grow(): number {
    if (this.count === this.space.capacity) {
      const capacity = Math.max(1024, this.space.capacity * 2);
      this.space.reserve(capacity, this.count);
      const wider = (from: Int32Array) => {
        const to = new Int32Array(capacity);
        to.set(from);
        return to;
      };
      this.idSource = wider(this.idSource);
      this.idAt = wider(this.idAt);
      this.idLength = wider(this.idLength);
    }
    return this.count++;
  }

  /**
   * Drops removed entries from the arrays, the records no live entry takes its id from, and the
   * names of sessions gone (indices change: only between calls).
   */
  private pack(): void {
    this.groups = null;
    let to = 0;
    const moved = new Int32Array(this.count);
    const sources = new Map<number, number>();
    const keptSources: Buffer[] = [];
    const names = new Map<string, number>();
    for (const sessionId of this.sessions.keys()) names.set(sessionId, names.size);
    const ownerOf = new Int32Array(this.sessionNames.length).fill(-1);
    this.sessionNames.forEach((name, i) => (ownerOf[i] = names.get(name) ?? -1));
    for (let e = 0; e < this.count; e++) {
      if (this.owners[e]! < 0) continue;
      let source = sources.get(this.idSource[e]!);
      if (source === undefined) {
        source = keptSources.push(this.idSources[this.idSource[e]!]!) - 1;
        sources.set(this.idSource[e]!, source);
      }
      this.codes.copyWithin(to * this.words, e * this.words, (e + 1) * this.words);
      this.owners[to] = ownerOf[this.owners[e]!]!;
      this.idSource[to] = source;
      this.idAt[to] = this.idAt[e]!;
      this.idLength[to] = this.idLength[e]!;
      moved[e] = to++;
    }
    this.owners.fill(-1, to, this.count);
    this.count = to;
    this.dead = 0;
    this.idSources = keptSources;
    this.sessionNames.length = 0;
    this.sessionNames.push(...names.keys());
    this.sessionIndex.clear();
    for (const [name, index] of names) this.sessionIndex.set(name, index);
    for (const state of this.sessions.values()) state.entries = state.entries.map((e) => moved[e]!);
  }

  private clear(): void {
    this.groups = null;
    // The memory of the codes stays (it cannot shrink): the arrays beside it keep its capacity.
    this.space.clear();
    this.idSource = new Int32Array(this.space.capacity);
    this.idAt = new Int32Array(this.space.capacity);
    this.idLength = new Int32Array(this.space.capacity);
    this.idSources = [];
    this.count = 0;
    this.dead = 0;
    this.sessions.clear();
    this.sessionIndex.clear();
    this.sessionNames.length = 0;
  }

  /** An empty journal (missing, unreadable, or from another model): every session is read again. */
  private async startOver(): Promise<void> {
    this.clear();
    this.generation = randomBytes(8);
    const header = headerBytes(this.model.model, this.encoder.bits, this.generation);
    await replaceWhole(this.file, header);
    this.end = header.length;
  }

  private liveBytes(): number {
    return this.size * (this.words * 4 + 40) + this.sessions.size * 100;
  }

  /** Rewrites the journal as one record per session, under a new generation. */
  private async rewrite(): Promise<void> {
    const generation = randomBytes(8);
    const parts = [headerBytes(this.model.model, this.encoder.bits, generation)];
    for (const [sessionId, state] of this.sessions) {
      const added = state.entries.map((e) => ({ chunkId: this.chunkId(e), code: this.codes.subarray(e * this.words, (e + 1) * this.words) }));
      parts.push(encodeRecord({ sessionId, previous: '', fingerprint: state.fingerprint, replace: true, removed: [], added }, this.words));
    }
    const data = Buffer.concat(parts);
    await replaceWhole(this.file, data);
    this.generation = generation;
    this.end = data.length;
  }
}
