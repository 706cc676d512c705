import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // LanceDB and the embedding model are real in these tests; give them room on a 2-core machine.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    globalSetup: ['test/helpers/globalSetup.ts'],
    pool: 'forks',
    // Two test files at a time. Vitest's default on 2 cores is one (cores - 1), but most of a file's
    // time is spent in the processes it starts (the CLI, servers) or waiting on them, so a second
    // file runs in that time. Not more: several tests hold a process to a deadline (a lease taken
    // over within 20 s), and the machine has two cores.
    maxWorkers: 2,
    // The files that take minutes start first, longest first (test/helpers/sequencer.ts): on a clone
    // with no results of an earlier run, Vitest would start the larger files first, by bytes.
    sequence: { sequencer: SlowFirstSequencer },
    // Test switches (SESSION_MEMORY_TEST_*) are read only in a test run: electron/engine/files/testSwitches.ts.
    // LANCEDB_LOG: LanceDB's own warnings (one per connection to an s3+ddb:// store) stay out of the output, as in the CLI.
    env: { SESSION_MEMORY_TEST_RUN: '1', LANCEDB_LOG: 'error' },
  },
});
