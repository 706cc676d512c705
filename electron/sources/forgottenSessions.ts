/**
 * What the sources keep of a session, and how they let go of it when it is forgotten. The engine
 * records a forget in the store and never calls into this layer: whoever opens the engine for the
 * sources (the CLI, the app's host, the MCP server) hands it `sourceTraces`, which the engine asks
 * when it forgets a session on this machine (write lock held; every step can be repeated after a
 * kill) and, at every open of the store, for the sessions forgotten on other machines.
 *
 * The cursors lose the paths of the files the session was saved from (a file that held only it is
 * kept under a hash of its path, so that it is not read again while unchanged, cursors.ts), and the
 * sources' last errors that name it or one of those files go (sources.json). A changed file read
 * again does not bring the session back: the engine refuses to save a forgotten session, and this
 * machine's cursors leave it out (the mark they kept before the store kept marks). A person who saves
 * the session again on purpose (`import --unforget`) lifts both on the machine where they do it.
 */
import type { LocalTraces } from '../engine/engine.js';
import { cursorPathsOf, cursorSessions, forgetCursorSessions, unforgetCursorSessions } from './cursors.js';
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

/** What the sources keep of sessions in the data folder, as the engine asks for it (`MemoryEngineOptions.localTraces`). */
export const sourceTraces: LocalTraces = {
  sessions: (dataDir) => cursorSessions(dataDir),
  paths: (dataDir, sessionIds) => sourcePathsOf(dataDir, sessionIds),
  drop: (dataDir, sessionIds) => forgetSourceSessions(dataDir, sessionIds),
  restore: (dataDir, sessionIds) => unforgetCursorSessions(dataDir, sessionIds),
};
