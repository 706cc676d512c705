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
 * Longest first: by the time each took in a clean clone's run on two cores (at c1589a0, 560 s for
 * the suite, at load 10 from other work), files of 10 s or more.
 */
export const SLOW_FILES = [
  'test/sharedCrash.test.ts',
  'test/fuzz/importers.test.ts',
  'test/sharedLease.test.ts',
  'test/cli.test.ts',
  'test/sharedStore.test.ts',
  'test/readCache.test.ts',
  'test/crashRewrite.test.ts',
  'test/fuzz/engine.test.ts',
  'test/crash.test.ts',
  'test/forgetEverywhere.test.ts',
  'test/nearDuplicates.test.ts',
  'test/damage.test.ts',
  'test/engine.test.ts',
  'test/embedder.test.ts',
  'test/e2e/webmode.test.ts',
  'test/searchReads.test.ts',
  'test/hostSharedStore.test.ts',
  'test/copyStore.test.ts',
  'test/fuzz/ipc.test.ts',
  'test/forget.test.ts',
  'test/vectorSketch.test.ts',
  'test/forgetSources.test.ts',
  'test/hooks.test.ts',
  'test/leaseKeep.test.ts',
  'test/sync.test.ts',
  'test/objectStoreServers.test.ts',
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
