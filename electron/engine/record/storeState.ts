/**
 * What a person or an interrupted command leaves to the memory that no chunk holds: the forget and
 * purge journals (work still owed after a kill), the near-duplicate clusters a person dismissed,
 * which session branched from which, and which sessions were forgotten (keyed hashes, with their key:
 * privacy/forgottenMarks.ts). One small table of the store, `state`, holds them as keyed
 * rows (ids and counts only, never text), so that every machine sharing the store sees them: a forget
 * killed on one machine is finished by the next writer on any machine, a dismissal made on the laptop
 * holds on the desktop, and a record rebuilt from the store keeps its forks.
 *
 * Each put or delete is one LanceDB commit, made by the writer holding the store's lock or lease.
 * Readers see the latest commit. The table is created by the first writer that needs it; a store
 * without it reads as having no such state.
 */
import * as arrow from 'apache-arrow';
import type { ChunkStore } from '../store/store.js';
import { SmallTable } from '../store/smallTable.js';
import { sqlIn, sqlString } from '../store/storeRows.js';
import { STATE_TABLE } from '../files/layout.js';

/** What a row is: its key starts with the kind and a colon. */
export type StateKind = 'journal' | 'dismissed' | 'fork' | 'forgotten' | 'secret';

const stateSchema = new arrow.Schema([
  new arrow.Field('key', new arrow.Utf8(), false),
  new arrow.Field('kind', new arrow.Utf8(), false),
  // The sessions a row names ('' when none), so that forgetting a session drops its rows.
  new arrow.Field('session_a', new arrow.Utf8(), false),
  new arrow.Field('session_b', new arrow.Utf8(), false),
  new arrow.Field('body', new arrow.Utf8(), false),
  new arrow.Field('at', new arrow.Utf8(), false),
]);

type StateRow = {
  key: string;
  kind: string;
  session_a: string;
  session_b: string;
  body: string;
  at: string;
};

export interface StateEntry<T> {
  key: string;
  sessions?: [string, string?];
  value: T;
}

export class StoreState {
  private readonly table: SmallTable;

  constructor(store: Pick<ChunkStore, 'db' | 'uri'>) {
    this.table = new SmallTable(store, STATE_TABLE, stateSchema);
  }

  /** The value under `kind:name`, or null. */
  async get<T>(kind: StateKind, name: string): Promise<T | null> {
    const rows = await this.rows(`key = ${sqlString(`${kind}:${name}`)}`);
    return rows[0] ? (JSON.parse(rows[0].body) as T) : null;
  }

  /** Every value of a kind, by name. */
  async all<T>(kind: StateKind): Promise<Map<string, T>> {
    const rows = await this.rows(`kind = ${sqlString(kind)}`);
    return new Map(rows.map((r) => [r.key.slice(kind.length + 1), JSON.parse(r.body) as T]));
  }

  /** Writes these values of one kind in one commit (the writer holds the lock or lease). */
  async put<T>(kind: StateKind, entries: ReadonlyArray<StateEntry<T>>): Promise<void> {
    if (entries.length === 0) return;
    const table = (await this.table.open(true))!;
    const at = new Date().toISOString();
    const rows: StateRow[] = entries.map((e) => ({
      key: `${kind}:${e.key}`,
      kind,
      session_a: e.sessions?.[0] ?? '',
      session_b: e.sessions?.[1] ?? '',
      body: JSON.stringify(e.value),
      at,
    }));
    await table.mergeInsert('key').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
  }

  /** Removes these names of one kind in one commit. */
  async delete(kind: StateKind, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    const table = await this.table.open(false);
    if (table) await table.delete(sqlIn('key', names.map((n) => `${kind}:${n}`)));
  }

  /** Removes every row of these kinds that names one of the sessions. */
  async dropSessions(kinds: readonly StateKind[], sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length === 0 || kinds.length === 0) return;
    const table = await this.table.open(false);
    if (table) await table.delete(`${sqlIn('kind', kinds)} AND (${sqlIn('session_a', sessionIds)} OR ${sqlIn('session_b', sessionIds)})`);
  }

  compact(olderThan: Date): Promise<void> {
    return this.table.compact(olderThan);
  }

  /** After a forget: no older version keeps a row that named a forgotten session. */
  purge(): Promise<void> {
    return this.table.purge('key');
  }

  close(): void {
    this.table.close();
  }

  private async rows(where: string): Promise<StateRow[]> {
    const table = await this.table.open(false);
    if (!table) return [];
    await table.checkoutLatest();
    return (await table.query().where(where).toArray()) as StateRow[];
  }
}
