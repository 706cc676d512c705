/**
 * What a forgotten session leaves in the files of a machine's data folder beside the store (the save
 * history is history.ts's): the archive record and the near-duplicate caches (caches of the store),
 * the watch state, the logs'
 * lines that name it (by id, by a path it came from, or by its title), and what the layers above the
 * engine keep of it (`MemoryEngineOptions.localTraces`: the sources' cursors and last errors).
 *
 * Dropped on the machine that forgets, as part of the forget (forget.ts, write lock held; every step
 * can be repeated after a kill), and on every other machine sharing the store at its next open of it
 * (`dropForgottenTraces`): the forget's marks are in the store (forgottenMarks.ts), so each machine
 * finds which of the sessions it keeps traces of were forgotten elsewhere.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { EngineContext } from '../context.js';
import { readArchiveRecord } from '../record/archiveRecord.js';
import { forgetWatchedSessions, readWatchState, watchedPaths } from '../record/watchState.js';
import { assertWriteLock } from '../files/writeLock.js';
import { dropSessionsFromNearDuplicates } from '../duplicates/nearDuplicates.js';

/** The app's log folder under the data folder (host/appLog.ts writes it). */
import { LOG_FOLDER } from '../files/layout.js';
export { LOG_FOLDER };

/** A title shorter than this is too likely to be part of unrelated lines to scrub them for it. */
const MIN_TITLE_LENGTH = 8;

type TraceContext = Pick<EngineContext, 'dataDir' | 'options'>;

/**
 * The watch state's and the layers above's paths, and the log lines. The paths are read first, so a
 * kill between the steps loses none of them. `titles`: the sessions' titles as this machine knew them.
 */
export async function dropFileTracesOf(ctx: TraceContext, sessionIds: readonly string[], titles: readonly string[] = []): Promise<void> {
  if (sessionIds.length === 0) return;
  const above = ctx.options.localTraces;
  const paths = [...(await watchedPaths(ctx.dataDir, sessionIds)), ...((await above?.paths(ctx.dataDir, sessionIds)) ?? [])];
  await scrubLogs(ctx.dataDir, [...sessionIds, ...paths, ...titles.filter((t) => t.trim().length >= MIN_TITLE_LENGTH)]);
  await forgetWatchedSessions(ctx.dataDir, sessionIds);
  await above?.drop(ctx.dataDir, sessionIds);
}

/**
 * On opening the store: the sessions this machine keeps traces of (in its archive record, its watch
 * state, the layers above's files) that were forgotten, on this machine or another, lose them. Reads
 * the marks once, and takes the write lock (`lock`, which may refuse at once when another process of
 * this machine holds it: then the next open does it) only when there is something to drop. Returns
 * how many sessions' traces went.
 */
export async function dropForgottenTraces(ctx: EngineContext, lock: () => Promise<() => Promise<void>>): Promise<number> {
  if (!(await ctx.forgotten.any())) return 0;
  const kept = await keptSessions(ctx);
  const forgotten = await ctx.forgotten.among(kept.keys());
  if (forgotten.size === 0) return 0;
  const release = await lock();
  try {
    const ids = [...forgotten];
    const titles = ids.map((id) => kept.get(id)).filter((t): t is string => t !== undefined);
    assertWriteLock(ctx.dataDir);
    await dropFileTracesOf(ctx, ids, titles);
    // The near-duplicate caches name the sessions and hold codes of their vectors.
    await dropSessionsFromNearDuplicates(ctx, ids);
    // The record is a cache: without them, and rebuilt or caught up from the store at its next load.
    const { record } = await readArchiveRecord(ctx.dataDir);
    if (record && ids.some((id) => record.sessions[id])) {
      for (const id of ids) delete record.sessions[id];
      await ctx.records.write(record);
    }
  } finally {
    await release();
  }
  return forgotten.size;
}

/** Every session this machine's folder names, with its title where the record keeps one. */
async function keptSessions(ctx: EngineContext): Promise<Map<string, string | undefined>> {
  const kept = new Map<string, string | undefined>();
  const { record } = await readArchiveRecord(ctx.dataDir);
  for (const entry of Object.values(record?.sessions ?? {})) kept.set(entry.session_id, entry.title);
  const watched = await readWatchState(ctx.dataDir);
  for (const file of Object.values(watched.files)) for (const id of file.sessions ?? []) if (!kept.has(id)) kept.set(id, undefined);
  for (const id of (await ctx.options.localTraces?.sessions(ctx.dataDir)) ?? []) if (!kept.has(id)) kept.set(id, undefined);
  return kept;
}

/**
 * Rewrites each log file without the lines that hold one of `terms` (as written, or escaped as in a
 * JSON line). In place, not by rename: the app keeps its log open for appending, and a renamed file
 * would take its next lines out of sight.
 */
async function scrubLogs(dataDir: string, terms: readonly string[]): Promise<void> {
  const dir = path.join(dataDir, LOG_FOLDER);
  if (!existsSync(dir) || terms.length === 0) return;
  const needles = [...new Set(terms.flatMap((t) => [t, JSON.stringify(t).slice(1, -1)]))].filter((t) => t.length > 0);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(dir, entry.name);
    const text = await fs.readFile(file, 'utf8');
    if (!needles.some((n) => text.includes(n))) continue;
    const kept = text.split('\n').filter((line) => !needles.some((n) => line.includes(n)));
    await fs.writeFile(file, kept.join('\n'));
  }
}
