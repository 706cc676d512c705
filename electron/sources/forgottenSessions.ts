/**
 * What the sources keep of a session, for forgetting it (engine/forgetTraces.ts, write lock held;
 * every step can be repeated after a kill): the cursors lose the paths of the files it was saved
 * from and mark it forgotten, so that a sync reading such a file again leaves it out (cursors.ts),
 * and the sources' last errors that name it or one of those files go (sources.json).
 */
import { cursorPathsOf, forgetCursorSessions } from './cursors.js';
import { dropStatusErrorsNaming } from './sourceSettings.js';

/** The paths of the files the sessions were saved from by a sync or a hook. */
export function sourcePathsOf(dataDir: string, sessionIds: readonly string[]): Promise<string[]> {
  return cursorPathsOf(dataDir, sessionIds);
}

/** Drops the sessions from what the sources keep; the paths are read first, so a kill between the steps loses none. */
export async function forgetSourceSessions(dataDir: string, sessionIds: readonly string[]): Promise<void> {
  const paths = await cursorPathsOf(dataDir, sessionIds);
  await dropStatusErrorsNaming(dataDir, [...sessionIds, ...paths]);
  await forgetCursorSessions(dataDir, sessionIds);
}
