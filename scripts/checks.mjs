// The checks `npm test` runs before the test suite: lint and both type checks, at the same time.
// They take about 80 s of CPU together on 2 cores, the program's type check alone some 35 s of it;
// one after the other they took that long in wall time, side by side about half. Each check's
// output is printed whole once it ends, under its name, so the outputs do not interleave; the exit
// status is 1 if any check failed.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', name);

/** The `lint` and `typecheck` scripts of package.json, as separate processes. */
const checks = [
  ['lint: eslint .', [bin('eslint/bin/eslint.js'), '.']],
  ['typecheck: tsc -p tsconfig.json --noEmit', [bin('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit']],
  ['typecheck: tsc -p renderer/tsconfig.json --noEmit', [bin('typescript/bin/tsc'), '-p', 'renderer/tsconfig.json', '--noEmit']],
];

function run([name, args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (error) => resolve({ name, ok: false, output: `${output}${error.message}\n`, seconds: 0 }));
    child.on('close', (status, signal) => resolve({ name, ok: status === 0, output: signal ? `${output}killed by ${signal}\n` : output, seconds: (Date.now() - started) / 1000 }));
  }).then((result) => {
    process.stdout.write(`\n> ${result.name} (${result.ok ? 'passed' : 'FAILED'}, ${result.seconds.toFixed(1)} s)\n${result.output}`);
    return result;
  });
}

const results = await Promise.all(checks.map(run));
const failed = results.filter((result) => !result.ok);
if (failed.length) {
  process.stderr.write(`\n${failed.map((result) => result.name).join(', ')}: failed\n`);
  process.exit(1);
}
