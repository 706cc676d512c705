/**
 * Which machines wrote to a store lately, read from its save history (every machine's saves are in
 * the store's history table, each with the machine that made it).
 */
import type { RecentWriter, SaveEvent } from './domain.js';

/**
 * The machines with saves at or after `since`, newest first. Events without a machine (written
 * before shared stores) are left out: the history cannot say which machine made them, and a folder
 * copied to a bucket carries another machine's saves, so naming this machine could be wrong.
 */
export function recentWriters(events: readonly SaveEvent[], since: Date): RecentWriter[] {
  const from = since.toISOString();
  const writers = new Map<string, RecentWriter>();
  for (const event of events) {
    if (!event.machine || event.at < from) continue;
    const writer = writers.get(event.machine);
    if (!writer) writers.set(event.machine, { machine: event.machine, lastAt: event.at, saves: 1 });
    else {
      writer.saves++;
      if (event.at > writer.lastAt) writer.lastAt = event.at;
    }
  }
  return [...writers.values()].sort((a, b) => (a.lastAt < b.lastAt ? 1 : a.lastAt > b.lastAt ? -1 : a.machine.localeCompare(b.machine)));
}
