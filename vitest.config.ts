import { configDefaults, defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/sequencer.js';

const INCLUDE = ['test/**/*.test.ts', 'test/**/*.test.tsx'];
/**
 * Files whose tests leave nothing behind for the next file in the same process (see `projects`): the
 * importers' tests, and tests of functions and of the repository's own files (no store, no process
 * started, no environment variable set).
 */
const PURE_FILES = [
  'test/importers/**/*.test.ts',
  ...['chunker', 'collapse', 'docsLinks', 'importCycles', 'redaction', 'searchRanking', 'sequencer', 'storeUri'].map((name) => `test/${name}.test.ts`),
];

/** What every test file runs with, whichever project it is in. */
const common = {
  // LanceDB and the embedding model are real in these tests; give them room on a 2-core machine.
  testTimeout: 300_000,
  hookTimeout: 300_000,
  pool: 'forks',
  // Test switches (SESSION_MEMORY_TEST_*) are read only in a test run: electron/engine/files/testSwitches.ts.
  // LANCEDB_LOG: LanceDB's own warnings (one per connection to an s3+ddb:// store) stay out of the output, as in the CLI.
  env: { SESSION_MEMORY_TEST_RUN: '1', LANCEDB_LOG: 'error' },
} as const;

export default defineConfig({
  test: {
    // Once per run (not once per project: the projects below do not inherit the root's options).
    globalSetup: ['test/helpers/globalSetup.ts'],
    // Two test files at a time. Vitest's default on 2 cores is one (cores - 1), but most of a file's
    // time is spent in the processes it starts (the CLI, servers) or waiting on them, so a second
    // file runs in that time. Not more: several tests hold a process to a deadline (a lease taken
    // over within 20 s), and the machine has two cores.
    maxWorkers: 2,
    // The files that take minutes start first, longest first (test/helpers/sequencer.ts): on a clone
    // with no results of an earlier run, Vitest would start the larger files first, by bytes.
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      // Each file in a process of its own: most files start the CLI, servers or the model, set
      // environment variables or test switches, and hold them for their tests.
      { test: { ...common, name: 'isolated', include: INCLUDE, exclude: [...configDefaults.exclude, ...PURE_FILES] } },
      // These leave nothing a later file reads: they run one after another in a worker's process, so
      // the modules they share are loaded once per worker instead of once per file.
      { test: { ...common, name: 'pure', include: PURE_FILES, isolate: false } },
    ],
  },
});
