/**
 * The save history: one row per save in the store's `history` table, so that it lives with the
 * memory (every machine sharing a store sees every machine's saves, and which machine made each).
 * Each append is one LanceDB commit: whole or absent after a crash. A store from before this table
 * kept the history as `save-history.jsonl` in its folder: the first writer moves its lines into the
 * table and removes the file; until then readers read both.
 */
import type * as lancedb from '@lancedb/lancedb';
import * as arrow from 'apache-arrow';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { SaveEvent } from '../../../shared/domain.js';
import { crashPoint } from '../files/crashPoints.js';
import { assertWriteLock } from '../files/writeLock.js';
import { SmallTable } from '../store/smallTable.js';
import type { ChunkStore } from '../store/store.js';
import { sqlIn } from '../store/storeRows.js';
import { machineName } from '../store/writeGuard.js';

import { HISTORY_TABLE, LEGACY_HISTORY_FILE, STORE_FOLDER } from '../files/layout.js';
export { HISTORY_TABLE, LEGACY_HISTORY_FILE };

/**
 * Events of saves to a shared store kept uncommitted at most (SaveHistory.defer): saves that come
 * faster than the lease is given back (an import, `sync` catching up) commit the history once per
 * this many.
 */
export const HISTORY_DEFERRED_MAX = 64;

/**
 * On a store in a folder, how long the events of saves that wrote nothing (re-saves) wait for another
 * save to be committed with, before the engine commits them on their own (engine.ts).
 */
export const HISTORY_FLUSH_DELAY_MS = 1_500;

const historySchema = new arrow.Schema([
  new arrow.Field('session_id', new arrow.Utf8(), false),
  new arrow.Field('at', new arrow.Utf8(), false),
  new arrow.Field('forgotten', new arrow.Bool(), false),
  new arrow.Field('event', new arrow.Utf8(), false),
]);

type HistoryRow = {
  session_id: string;
  at: string;
  forgotten: boolean;
  event: string;
};

function rowOf(event: SaveEvent): HistoryRow {
  return { session_id: event.sessionId, at: event.at, forgotten: event.forgotten === true, event: JSON.stringify(event) };
}

/** The table, opened on first use; created by the first writer. */
export class SaveHistory {
  private readonly table: SmallTable;
  /**
   * Events of saves to a shared store, and of saves to a folder that wrote nothing, not committed
   * yet: each would cost a commit (about ten round trips to a bucket; on a folder, more than the rest
   * of a re-save) of its own. They are committed with the next event appended, when
   * HISTORY_DEFERRED_MAX are kept, or before the write lease is given back (WriteGuard's
   * `beforeGiveBack`, at most LEASE_KEEP_MS after the last save, and when the engine closes); on a
   * folder, HISTORY_FLUSH_DELAY_MS after the last save or when the engine closes. A process killed in
   * between loses only these events (what the saves wrote is committed).
   */
  private pending: HistoryRow[] = [];

  /**
   * `forgottenAmong`: which of these sessions the store marks forgotten (privacy/forgottenMarks.ts).
   * Kept events are committed later, under the write lock: a session another process or machine forgot
   * in between loses its kept events then, as its committed ones were lost by the forget.
   */
  constructor(private readonly ctx: { readonly dataDir: string; readonly store: ChunkStore; readonly forgottenAmong?: (sessionIds: Iterable<string>) => Promise<Set<string>> }) {
    this.table = new SmallTable(ctx.store, HISTORY_TABLE, historySchema);
  }

  /** The history's table, or null when no writer has created it yet. */
  private open(create: boolean): Promise<lancedb.Table | null> {
    return this.table.open(create);
  }

  /** Appends one save's event, with this machine's name (write lock held). */
  async append(event: SaveEvent): Promise<void> {
    assertWriteLock(this.ctx.dataDir);
    const table = (await this.open(true))!;
    await this.moveLegacyFile(table);
    crashPoint('history');
    assertWriteLock(this.ctx.dataDir);
    const kept = [...this.pending];
    const rows = [...(await this.notForgotten(kept)), rowOf({ ...event, machine: event.machine ?? machineName() })];
    await table.add(rows);
    this.pending = this.pending.filter((row) => !kept.includes(row));
  }

  /** The kept events whose sessions no one has forgotten since (write lock held: no forget runs meanwhile). */
  private async notForgotten(rows: readonly HistoryRow[]): Promise<HistoryRow[]> {
    if (rows.length === 0 || !this.ctx.forgottenAmong) return [...rows];
    const forgotten = await this.ctx.forgottenAmong(rows.filter((row) => !row.forgotten).map((row) => row.session_id));
    return forgotten.size === 0 ? [...rows] : rows.filter((row) => row.forgotten || !forgotten.has(row.session_id));
  }

  /** Events kept by `defer`, not committed yet. */
  get deferred(): number {
    return this.pending.length;
  }

  /** Keeps the event of a save to a shared store for the next commit of the history (write lock held). */
  defer(event: SaveEvent): void {
    assertWriteLock(this.ctx.dataDir);
    this.pending.push(rowOf({ ...event, machine: event.machine ?? machineName() }));
  }

  /** Commits the events kept by `defer`, in one commit (write lease held); on failure they stay kept. */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const kept = [...this.pending];
    const rows = await this.notForgotten(kept);
    if (rows.length > 0) {
      const table = (await this.open(true))!;
      crashPoint('history');
      await table.add(rows);
    }
    this.pending = this.pending.filter((row) => !kept.includes(row));
  }

  /** Every event, oldest first (or one session's). */
  async read(sessionId?: string): Promise<SaveEvent[]> {
    const table = await this.open(false);
    const events: SaveEvent[] = [];
    if (table) {
      await table.checkoutLatest();
      const query = sessionId === undefined ? table.query() : table.query().where(sqlIn('session_id', [sessionId]));
      for (const row of (await query.select(['event']).toArray()) as Array<{ event: string }>) {
        const event = parseEvent(row.event);
        if (event) events.push(event);
      }
    }
    for (const event of await this.legacyEvents()) if (sessionId === undefined || event.sessionId === sessionId) events.push(event);
    for (const row of this.pending) {
      const event = sessionId === undefined || row.session_id === sessionId ? parseEvent(row.event) : null;
      if (event) events.push(event);
    }
    return events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  }

  /**
   * Forgetting: the history keeps only that the sessions were forgotten. Their other rows are
   * deleted, every remaining row is written again and older versions and unreferenced files are
   * removed, so the deleted events are in no file or object. Write lock held; repeating it changes nothing.
   */
  async dropSessions(sessionIds: readonly string[]): Promise<void> {
    assertWriteLock(this.ctx.dataDir);
    this.pending = this.pending.filter((row) => !sessionIds.includes(row.session_id));
    const table = await this.open(true);
    if (!table) return;
    await this.moveLegacyFile(table);
    if (sessionIds.length > 0) await table.delete(`${sqlIn('session_id', sessionIds)} AND NOT forgotten`);
    await this.table.purge('session_id');
  }

  /** Folds the small files of many appends into a few (the store's upkeep calls it with its own compaction). */
  compact(olderThan: Date): Promise<void> {
    return this.table.compact(olderThan);
  }

  close(): void {
    this.table.close();
  }

  private legacyFile(): string | null {
    // Only a folder's own store had the file beside it.
    return path.resolve(this.ctx.store.uri) === path.resolve(this.ctx.dataDir, STORE_FOLDER) ? path.join(this.ctx.dataDir, LEGACY_HISTORY_FILE) : null;
  }

  private async legacyEvents(): Promise<SaveEvent[]> {
    const file = this.legacyFile();
    if (!file || !existsSync(file)) return [];
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    return text.split('\n').flatMap((line) => (line.trim() ? [parseEvent(line)].filter((e): e is SaveEvent => e !== null) : []));
  }

  /** Moves the lines of a history file from before the table into it, then removes the file (write lock held). */
  private async moveLegacyFile(table: lancedb.Table): Promise<void> {
    const file = this.legacyFile();
    if (!file || !existsSync(file)) return;
    const events = await this.legacyEvents();
    // A kill between the add and the removal would add them twice: rows already there are skipped.
    const present = new Set(((await table.query().select(['event']).toArray()) as Array<{ event: string }>).map((r) => r.event));
    const rows = events.map(rowOf).filter((row) => !present.has(row.event));
    if (rows.length > 0) await table.add(rows);
    await fs.rm(file, { force: true });
  }
}

function parseEvent(text: string): SaveEvent | null {
  try {
    const event = JSON.parse(text) as SaveEvent;
    return typeof event.sessionId === 'string' && typeof event.at === 'string' ? event : null;
  } catch {
    return null;
  }
}
