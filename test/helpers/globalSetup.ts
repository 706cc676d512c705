// Once per test run: build the offline model (no test pays for it or races another), bundle the CLI
// from the current sources so that the tests that run `session-memory` run this code, install the
// Node 24 that reads databases with node:sqlite (once per clone: .cache/node24), and put the run's
// temporary folders on a memory filesystem where the machine has one (memoryScratch.ts).
import { execFileSync } from 'node:child_process';
import { REPO } from './cli.js';
import { scratchInMemory } from './memoryScratch.js';
import { testModelDir } from './model.js';
import { installNode24 } from './node24.js';

export default async function setup(): Promise<(() => void) | undefined> {
  execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: REPO, stdio: 'inherit' });
  await testModelDir();
  installNode24();
  return scratchInMemory();
}
