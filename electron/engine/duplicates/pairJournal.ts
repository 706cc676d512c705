/**
 * The near-duplicate pairs (nearDuplicates.ts) as a journal, `near-duplicates.jsonl` in the data
 * folder: a first line with the whole state, then one line per change (a session checked, sessions
 * forgotten, clusters dismissed). A save appends one short line instead of rewriting every pair the
 * store has (with 100k pairs the whole file is 15 MB: about half a second to read, check and write
 * again, measured). Each process keeps the state in memory and reads only the lines added since.
 *
 * Lines are appended under the write lock. A line cut short by a kill is cut off by the next writer
 * (readers without the lock leave it); when the changes outgrow the first line, the file is rewritten
 * whole (atomically) under a new generation, which tells other processes to read it again. The file is
 * derived data: lost lines only mean that the sessions they checked are checked again
 * (the fingerprints in `checked` say which).
 *
 * A data folder from before the journal has `near-duplicates.json` (the same state, whole): it is read
 * once and replaced.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { readSince, replaceWhole, truncateAt, writeAt } from '../files/journalFile.js';

import { LEGACY_PAIRS_FILE, PAIRS_FILE } from '../files/layout.js';
export { LEGACY_PAIRS_FILE, PAIRS_FILE };

/** One pair, `a` < `b` by chunk id. */
export interface Pair {
  a: string;
  as: string;
  b: string;
  bs: string;
  /** Cosine similarity, 1 for the same text. */
  s: number;
}

/** What one line changes. Applied in this order: drops, additions, marks, dismissals. */
export interface PairChange {
  /** Pairs holding one of these chunks leave (chunks a save removed). */
  dropChunks?: string[];
  /** Pairs of these sessions leave. */
  dropSessions?: string[];
  add?: Pair[];
  /** Sessions checked, with the fingerprint of their content then. */
  checked?: Record<string, string>;
  /** Sessions no longer checked (forgotten). */
  unchecked?: string[];
  /** Keys of pairs a person dismissed (`a|b`). */
  dismiss?: string[];
}

const pairSchema = z.object({ a: z.string(), as: z.string(), b: z.string(), bs: z.string(), s: z.number() });
const snapshotSchema = z.object({
  generation: z.string(),
  format: z.literal(2),
  checked: z.record(z.string(), z.string()),
  pairs: z.array(pairSchema),
  dismissed: z.array(z.string()),
});
const changeSchema = z.object({
  dropChunks: z.array(z.string()).optional(),
  dropSessions: z.array(z.string()).optional(),
  add: z.array(pairSchema).optional(),
  checked: z.record(z.string(), z.string()).optional(),
  unchecked: z.array(z.string()).optional(),
  dismiss: z.array(z.string()).optional(),
});
const legacySchema = z.object({ format: z.literal(1), checked: z.record(z.string(), z.string()), pairs: z.array(pairSchema), dismissed: z.array(z.string()) });

export const pairKey = (p: { a: string; b: string }): string => `${p.a}|${p.b}`;
const GENERATION = /^\{"generation":"([0-9a-f]+)"/;
/** Change lines are folded into a new first line once they outgrow it and this many bytes. */
const REWRITE_FROM = 1024 * 1024;

export class PairJournal {
  readonly checked = new Map<string, string>();
  /** By key. */
  readonly pairs = new Map<string, Pair>();
  readonly dismissed = new Set<string>();
  /**
   * Keys of the pairs each chunk is in (one key, or several), built when a change first drops chunks:
   * a process that only lists never needs it.
   */
  private byChunk: Map<string, string | string[]> | null = null;
  private generation: string | null = null;
  private end = 0;
  private firstLineBytes = 0;
  /** The file operation under way in this process. */
  private busy: Promise<unknown> = Promise.resolve();
  private readonly file: string;

  constructor(private readonly dataDir: string) {
    this.file = path.join(dataDir, PAIRS_FILE);
  }

  /**
   * Reads the lines added since the last call. `locked`: the caller holds the write lock, so a missing
   * or damaged file is started again (from the earlier layout when there is one) and a cut-short line
   * is cut off; without it nothing is written.
   */
  refresh(locked: boolean): Promise<void> {
    return this.exclusive(() => this.read(locked));
  }

  /** Applies a change and appends it (under the write lock, after `refresh(true)`). */
  append(change: PairChange): Promise<void> {
    return this.exclusive(() => this.write(change));
  }

  /**
   * Applies a change (if any) and rewrites the file whole, so that no line of its history is left:
   * after a forget or a redaction, the file names no chunk or session that is gone. Under the write lock.
   */
  compact(change?: PairChange): Promise<void> {
    return this.exclusive(async () => {
      await this.read(true);
      if (change) this.apply(change);
      try {
        await this.rewrite();
      } catch (error) {
        // Memory holds what the file does not: the next refresh reads the file whole again.
        this.generation = null;
        throw error;
      }
    });
  }

  /** One file operation at a time in this process (a listing may read while a save appends). */
  private exclusive<T>(job: () => Promise<T>): Promise<T> {
    const run = this.busy.then(job, job);
    this.busy = run.catch(() => {});
    return run;
  }

  private async read(locked: boolean): Promise<void> {
    const read = await readSince(this.file, 64, (head, size) => {
      const generation = GENERATION.exec(head.toString('latin1'))?.[1];
      if (!generation) return null;
      if (generation !== this.generation || size < this.end) {
        this.clear();
        this.generation = generation;
        this.end = 0;
      }
      return this.end;
    });
    if (read === 'missing' || read === 'unusable') {
      await this.startOver(locked, read === 'missing' ? await this.legacyState() : null);
      return;
    }
    const { from, data } = read;
    let at = 0;
    while (at < data.length) {
      const newline = data.indexOf(10, at);
      if (newline < 0) break; // a line still being written, or cut short
      const line = data.toString('utf8', at, newline);
      if (!this.applyLine(line, from + at === 0)) break;
      if (from + at === 0) this.firstLineBytes = newline + 1;
      at = newline + 1;
    }
    this.end = from + at;
    if (at < data.length && locked) {
      if (this.end === 0) await this.startOver(true, null);
      else await truncateAt(this.file, this.end);
    }
  }

  private async write(change: PairChange): Promise<void> {
    const line = Buffer.from(`${JSON.stringify(change)}\n`, 'utf8');
    // Applied once written: a write refused (the write lock lost) or failed leaves memory as the file is.
    await writeAt(this.file, [line], this.end);
    this.apply(change);
    this.end += line.length;
    if (this.end - this.firstLineBytes > Math.max(REWRITE_FROM, this.firstLineBytes)) await this.rewrite();
  }

  private applyLine(line: string, first: boolean): boolean {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return false;
    }
    if (first) {
      const snapshot = snapshotSchema.safeParse(value);
      if (!snapshot.success) return false;
      this.apply({ add: snapshot.data.pairs, checked: snapshot.data.checked, dismiss: snapshot.data.dismissed });
      return true;
    }
    const change = changeSchema.safeParse(value);
    if (change.success) this.apply(change.data);
    return change.success;
  }

  private apply(change: PairChange): void {
    const leaving = new Set<string>();
    if (change.dropChunks?.length) {
      const byChunk = this.chunkIndex();
      for (const chunk of change.dropChunks) {
        const keys = byChunk.get(chunk);
        if (typeof keys === 'string') leaving.add(keys);
        else for (const key of keys ?? []) leaving.add(key);
      }
    }
    if (change.dropSessions?.length) {
      const sessions = new Set(change.dropSessions);
      for (const [key, p] of this.pairs) if (sessions.has(p.as) || sessions.has(p.bs)) leaving.add(key);
    }
    // A pair dropped and found again in the same change (a session checked again) keeps its dismissal.
    const adding = new Set((change.add ?? []).map(pairKey));
    for (const key of leaving) {
      const p = this.pairs.get(key)!;
      this.pairs.delete(key);
      if (!adding.has(key)) this.dismissed.delete(key);
      if (this.byChunk) for (const chunk of [p.a, p.b]) this.unindex(chunk, key);
    }
    for (const p of change.add ?? []) {
      const key = pairKey(p);
      if (this.pairs.has(key)) continue;
      this.pairs.set(key, p);
      if (this.byChunk) for (const chunk of [p.a, p.b]) this.index(chunk, key);
    }
    for (const [sessionId, fingerprint] of Object.entries(change.checked ?? {})) this.checked.set(sessionId, fingerprint);
    for (const sessionId of change.unchecked ?? []) this.checked.delete(sessionId);
    // Dismissals stay with the pairs still stored (a pair found again after a re-check is the same pair).
    for (const key of change.dismiss ?? []) if (this.pairs.has(key)) this.dismissed.add(key);
  }

  private chunkIndex(): Map<string, string | string[]> {
    if (!this.byChunk) {
      this.byChunk = new Map();
      for (const [key, p] of this.pairs) for (const chunk of [p.a, p.b]) this.index(chunk, key);
    }
    return this.byChunk;
  }

  private index(chunk: string, key: string): void {
    const keys = this.byChunk!.get(chunk);
    if (keys === undefined) this.byChunk!.set(chunk, key);
    else if (typeof keys === 'string') this.byChunk!.set(chunk, [keys, key]);
    else keys.push(key);
  }

  private unindex(chunk: string, key: string): void {
    const keys = this.byChunk!.get(chunk);
    if (keys === key) this.byChunk!.delete(chunk);
    else if (Array.isArray(keys)) {
      const left = keys.filter((k) => k !== key);
      this.byChunk!.set(chunk, left.length === 1 ? left[0]! : left);
    }
  }

  private clear(): void {
    this.checked.clear();
    this.pairs.clear();
    this.dismissed.clear();
    this.byChunk = null;
    this.firstLineBytes = 0;
  }

  private async legacyState(): Promise<z.infer<typeof legacySchema> | null> {
    try {
      const parsed = legacySchema.safeParse(JSON.parse(await fs.readFile(path.join(this.dataDir, LEGACY_PAIRS_FILE), 'utf8')));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** A new journal holding `from` (or nothing: every session is then checked again); written only under the lock. */
  private async startOver(locked: boolean, from: { checked: Record<string, string>; pairs: Pair[]; dismissed: string[] } | null): Promise<void> {
    this.clear();
    this.generation = null;
    this.end = 0;
    if (from) this.apply({ add: from.pairs, checked: from.checked, dismiss: from.dismissed });
    if (!locked) return;
    await this.rewrite();
    await fs.rm(path.join(this.dataDir, LEGACY_PAIRS_FILE), { force: true });
  }

  /** Writes the state as a new first line, under a new generation. */
  private async rewrite(): Promise<void> {
    const generation = randomBytes(8).toString('hex');
    const snapshot = { generation, format: 2, checked: Object.fromEntries(this.checked), pairs: [...this.pairs.values()], dismissed: [...this.dismissed] };
    const line = Buffer.from(`${JSON.stringify(snapshot)}\n`, 'utf8');
    await replaceWhole(this.file, line);
    this.generation = generation;
    this.end = line.length;
    this.firstLineBytes = line.length;
  }
}
