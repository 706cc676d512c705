/**
 * What a forgotten session leaves in files of its own beside the store (the save history is
 * history.ts's), removed when it is forgotten (write lock held; every step can be repeated after a
 * kill): the watch state and the sources' cursors drop the paths of the files it came from
 * (watchState.ts, sources/forgottenSessions.ts), and the app's log loses every line that names it,
 * by id or by one of those paths.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { forgetSourceSessions, sourcePathsOf } from '../../sources/forgottenSessions.js';
import { forgetWatchedSessions, watchedPaths } from '../record/watchState.js';

/** The app's log folder under the data folder (host/appLog.ts writes it). */
import { LOG_FOLDER } from '../files/layout.js';
export { LOG_FOLDER };

/** The watch state's and the sources' paths, and the log lines. The paths are read first, so a kill between the steps loses none of them. */
export async function dropFileTracesOf(dataDir: string, sessionIds: readonly string[]): Promise<void> {
  const paths = [...(await watchedPaths(dataDir, sessionIds)), ...(await sourcePathsOf(dataDir, sessionIds))];
  await scrubLogs(dataDir, [...sessionIds, ...paths]);
  await forgetWatchedSessions(dataDir, sessionIds);
  await forgetSourceSessions(dataDir, sessionIds);
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
