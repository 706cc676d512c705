/**
 * The order test files start in. Vitest runs, on a clone with no results of an earlier run, the
 * larger files first (by bytes): a short file of long trials, such as test/sharedCrash.test.ts,
 * then starts among the last, and one worker runs it alone while the other has nothing left. With
 * two workers the run ends soonest when the longest files start first, so the files known to take
 * a minute or more start first, longest first, and the others follow in Vitest's order. Once a run
 * has left its results (node_modules/.vite/vitest/results.json), Vitest's own order (failed, then
 * longest first) is kept.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest first: by the time each took in the last clean clone's run on two cores (at cfdccfb, 610 s
 * for the suite), files of 13 s or more; test/sharedLease.test.ts (84 s then) by its estimated time
 * with two of its waiting tests at a time: about 60 s.
 */
export const SLOW_FILES = [
  'test/sharedCrash.test.ts',
  'test/cli.test.ts',
  'test/sharedStore.test.ts',
  'test/sharedLease.test.ts',
  'test/crash.test.ts',
  'test/fuzz/importers.test.ts',
  'test/crashRewrite.test.ts',
  'test/forgetEverywhere.test.ts',
  'test/damage.test.ts',
  'test/readCache.test.ts',
  'test/fuzz/engine.test.ts',
  'test/hooks.test.ts',
  'test/e2e/webmode.test.ts',
  'test/embedder.test.ts',
  'test/engine.test.ts',
  'test/order.test.ts',
  'test/copyStore.test.ts',
  'test/hostSharedStore.test.ts',
  'test/concurrency.test.ts',
  'test/sourcesAll.test.ts',
  'test/forget.test.ts',
];

/** `files` with those of `slow` first, in its order; the others after them, in their own order. */
export function slowFirst<T>(files: T[], name: (file: T) => string, slow: readonly string[] = SLOW_FILES): T[] {
  const rank = (file: T): number => {
    const at = slow.indexOf(name(file));
    return at === -1 ? slow.length : at;
  };
  return files.map((file, i) => ({ file, i, rank: rank(file) })).sort((a, b) => a.rank - b.rank || a.i - b.i).map(({ file }) => file);
}

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const key = (file: TestSpecification): string => relative(root, file.moduleId).split('\\').join('/');
    const timed = sorted.every((file) => this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(root, file.moduleId)}`));
    return timed ? sorted : slowFirst(sorted, key);
  }
}
