/**
 * The order of a session's messages: the order a reader saw them in. It is defined here once, and
 * `show`, the chunk texts, the UI and the archive record all follow it (they sort by `seq`).
 *
 * 1. Stored messages keep their place. An input that lists them in another order does not reorder
 *    the store (an overwrite starts from an empty store, so it takes the input's order).
 * 2. A new message with a timestamp goes by time: before the first message whose known time is
 *    later, else at the end. Equal times keep the input's order.
 * 3. A new message without a timestamp goes right after its predecessor in the input, and after the
 *    stored messages that already followed that predecessor, up to the next stored message that the
 *    input puts after it. So saving 1..10, then 1..5 + 11..15, gives 1..10, 11..15; and a message
 *    inserted between 5 and 6 of an input that still holds 6 lands between them.
 *
 * A stored message's time is known when the input carries it; stored messages the input leaves out
 * have no known time (reading it would mean reading their content).
 *
 * New messages get positions (`seq`) between their stored neighbours, so nothing stored moves:
 * fractions inside the session, whole numbers past either end. When a gap has no number left between
 * its neighbours (after about fifty insertions into it), the save numbers the whole session afresh,
 * in the same order, and rewrites its chunks in one commit (savePipeline.ts).
 */

export interface StoredPosition {
  msgId: string;
  seq: number;
}

export interface OrderedMessage {
  msgId: string;
  timestamp?: string;
}

interface Entry {
  msgId: string;
  time: number | undefined;
  stored: boolean;
  seq: number;
}

/** Milliseconds since the epoch, or undefined for a missing or unreadable time. */
export function timeOf(timestamp: string | undefined): number | undefined {
  if (!timestamp) return undefined;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Where each of `input`'s new messages goes among the stored ones (rules above): their `seq`, and
 * every message of the session in order. `stored` may come in any order; `input` is the save's
 * messages in input order, stored or new (a message is new when `stored` lacks its id).
 */
export function placeMessages(stored: readonly StoredPosition[], input: readonly OrderedMessage[]): { seqs: Map<string, number>; order: string[] } {
  const inputTimes = new Map(input.map((m) => [m.msgId, timeOf(m.timestamp)]));
  const entries = new Map<string, Entry>();
  const order = new SessionOrder();
  for (const s of [...stored].sort((a, b) => a.seq - b.seq || (a.msgId < b.msgId ? -1 : a.msgId > b.msgId ? 1 : 0))) {
    const entry: Entry = { msgId: s.msgId, time: inputTimes.get(s.msgId), stored: true, seq: s.seq };
    entries.set(s.msgId, entry);
    order.insertAt(order.length, entry);
  }
  // The next stored message after each input position, for rule 3.
  const nextStored: Array<Entry | null> = new Array<Entry | null>(input.length).fill(null);
  for (let i = input.length - 2; i >= 0; i--) {
    const after = entries.get(input[i + 1]!.msgId);
    nextStored[i] = after?.stored ? after : nextStored[i + 1]!;
  }
  for (const [index, m] of input.entries()) {
    if (entries.has(m.msgId)) continue;
    const entry: Entry = { msgId: m.msgId, time: timeOf(m.timestamp), stored: false, seq: 0 };
    let at: number;
    if (entry.time !== undefined) {
      at = order.firstLaterThan(entry.time);
    } else {
      // Past the stored messages that followed the predecessor, up to the next one the input keeps after this message.
      const stop = nextStored[index];
      at = index > 0 ? order.indexOf(entries.get(input[index - 1]!.msgId)!) + 1 : 0;
      while (at < order.length && order.at(at).stored && order.at(at) !== stop) at++;
    }
    order.insertAt(at, entry);
    entries.set(m.msgId, entry);
  }
  return { seqs: assignSeqs(order.all), order: order.all.map((e) => e.msgId) };
}

/**
 * Whether every message of the placed order has a position above the one before it. Positions are
 * numbers: about fifty insertions into one gap leave no number between two neighbours, and the
 * session's positions must then be numbered afresh (`renumber`).
 */
export function positionsDistinct(order: readonly string[], seqs: ReadonlyMap<string, number>): boolean {
  for (let i = 1; i < order.length; i++) if (!(seqs.get(order[i - 1]!)! < seqs.get(order[i]!)!)) return false;
  return true;
}

/** The messages with their placed positions (`seq`), in order. */
export function inOrder<T extends { msgId: string; seq: number }>(messages: readonly T[], seqs: ReadonlyMap<string, number>): T[] {
  return messages.map((m) => ({ ...m, seq: seqs.get(m.msgId)! })).sort((a, b) => a.seq - b.seq);
}

/** Runs of new messages that are neighbours in the session's order (stored messages separate them). */
export function newRuns<T>(order: readonly string[], placed: ReadonlyMap<string, T>): T[][] {
  const runs: T[][] = [];
  let current: T[] = [];
  for (const id of order) {
    const m = placed.get(id);
    if (m) current.push(m);
    else if (current.length > 0) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

/** Gives the new entries positions between their stored neighbours; stored ones keep theirs. */
function assignSeqs(all: readonly Entry[]): Map<string, number> {
  const seqs = new Map<string, number>();
  const storedAt = all.flatMap((n, i) => (n.stored ? [i] : []));
  if (storedAt.length === 0) {
    all.forEach((n, i) => seqs.set(n.msgId, i));
    return seqs;
  }
  const first = storedAt[0]!;
  for (let i = 0; i < first; i++) seqs.set(all[i]!.msgId, all[first]!.seq - (first - i));
  for (let k = 0; k < storedAt.length; k++) {
    const from = storedAt[k]!;
    const to = storedAt[k + 1];
    const low = all[from]!.seq;
    seqs.set(all[from]!.msgId, low);
    if (to === undefined) {
      for (let i = from + 1; i < all.length; i++) seqs.set(all[i]!.msgId, low + (i - from));
    } else {
      const high = all[to]!.seq;
      const gap = to - from;
      for (let i = from + 1; i < to; i++) seqs.set(all[i]!.msgId, low + ((high - low) * (i - from)) / gap);
    }
  }
  return seqs;
}

/**
 * The session's messages in order. Most saves add at the end, which costs nothing to find; an
 * insertion in the middle is one array splice.
 */
class SessionOrder {
  readonly all: Entry[] = [];
  /** The latest known time in the order: a message at or after it goes to the end without a scan. */
  private latest = -Infinity;

  get length(): number {
    return this.all.length;
  }

  at(index: number): Entry {
    return this.all[index]!;
  }

  indexOf(entry: Entry): number {
    const last = this.all.length - 1;
    return this.all[last] === entry ? last : this.all.lastIndexOf(entry);
  }

  insertAt(index: number, entry: Entry): void {
    if (index === this.all.length) this.all.push(entry);
    else this.all.splice(index, 0, entry);
    if (entry.time !== undefined && entry.time > this.latest) this.latest = entry.time;
  }

  /** Where a message of this time goes: before the first entry whose known time is later, else at the end. */
  firstLaterThan(time: number): number {
    if (time >= this.latest) return this.all.length;
    const index = this.all.findIndex((e) => e.time !== undefined && e.time > time);
    return index === -1 ? this.all.length : index;
  }
}
