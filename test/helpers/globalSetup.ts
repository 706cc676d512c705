// Once per test run: build the offline model (no test pays for it or races another), bundle the CLI
// from the current sources so that the tests that run `session-memory` run this code, start
// installing the Node 24 that reads databases with node:sqlite (once per clone: .cache/node24; the
// tests start meanwhile, and the two that run it wait for it), and put the run's temporary folders on
// a memory filesystem where the machine has one (memoryScratch.ts).
import { execFileSync } from 'node:child_process';
import { REPO } from './cli.js';
import { scratchInMemory } from './memoryScratch.js';
import { testModelDir } from './model.js';
import { installNode24InBackground } from './node24.js';

export default async function setup(): Promise<() => Promise<void>> {
  const node24Installed = installNode24InBackground();
  execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: REPO, stdio: 'inherit' });
  await testModelDir();
  const removeScratch = scratchInMemory();
  return async () => {
    await node24Installed();
    removeScratch?.();
  };
}
