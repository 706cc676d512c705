/**
 * Which sessions were forgotten, kept in the store (its `state` table), so that every machine sharing
 * the store refuses to save them again: a sync, a hook, a watcher or an import on any machine reads
 * the marks before it writes. A mark is an HMAC-SHA256 of the session's id under a random key kept
 * in the same table (one key per store, made by the first forget): no title, no text, no id, and the
 * marks of two stores cannot be matched against each other or against a list of ids hashed beforehand.
 * A copy of the store (copyStore.ts) copies the key and the marks with the rest of the state.
 *
 * Only a person lifts a mark, by saving the session on purpose (`unforget`, see savePipeline.ts).
 * Forgetting single messages leaves no mark: the session stays, and so does its file.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { StoreState } from '../record/storeState.js';

/** The key's row: `secret:forget`. */
const KEY_NAME = 'forget';

export class ForgottenMarks {
  private key: Buffer | null = null;

  constructor(private readonly state: StoreState) {}

  /** The store's key, or null when nothing was ever forgotten in it (`create`: make one, write lock held). */
  private async keyOf(create: boolean): Promise<Buffer | null> {
    if (this.key) return this.key;
    const kept = await this.state.get<string>('secret', KEY_NAME);
    if (kept) this.key = Buffer.from(kept, 'hex');
    else if (create) {
      const made = randomBytes(32);
      // Its own commit, before any mark: a mark never exists without the key that reads it.
      await this.state.put<string>('secret', [{ key: KEY_NAME, value: made.toString('hex') }]);
      this.key = made;
    }
    return this.key;
  }

  /** Whether the store has ever had a session forgotten (a store without one needs no look-up). */
  async any(): Promise<boolean> {
    return (await this.keyOf(false)) !== null;
  }

  /** Marks the sessions forgotten (write lock held; can be repeated). */
  async mark(sessionIds: readonly string[], at: string): Promise<void> {
    if (sessionIds.length === 0) return;
    const key = (await this.keyOf(true))!;
    await this.state.put<{ at: string }>('forgotten', sessionIds.map((id) => ({ key: mac(key, id), value: { at } })));
  }

  /** Lifts the mark of a session a person saves again on purpose (write lock held). */
  async unmark(sessionId: string): Promise<void> {
    const key = await this.keyOf(false);
    if (key) await this.state.delete('forgotten', [mac(key, sessionId)]);
  }

  /** Whether this session was forgotten (one look-up in the state table). */
  async isForgotten(sessionId: string): Promise<boolean> {
    const key = await this.keyOf(false);
    return key !== null && (await this.state.get('forgotten', mac(key, sessionId))) !== null;
  }

  /** Which of these sessions were forgotten (every mark read once). */
  async among(sessionIds: Iterable<string>): Promise<Set<string>> {
    const key = await this.keyOf(false);
    const found = new Set<string>();
    if (!key) return found;
    const marks = await this.state.all('forgotten');
    if (marks.size === 0) return found;
    for (const id of new Set(sessionIds)) if (marks.has(mac(key, id))) found.add(id);
    return found;
  }
}

function mac(key: Buffer, sessionId: string): string {
  return createHmac('sha256', key).update(sessionId, 'utf8').digest('hex');
}
