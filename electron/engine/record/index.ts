/**
 * What is archived beside the store: the archive record and its cache, the save history, forks,
 * sessions, the watch state. This entry holds what code outside the engine uses of it; inside the
 * engine, modules import one another by path.
 */
export { currentWatchState, recordForgottenFile, recordWatchedFile, unchanged } from './watchState.js';
