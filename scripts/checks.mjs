// The checks `npm test` runs besides the test suite: lint and both type checks, at the same time.
// They take about 80 s of CPU together on 2 cores, the program's type check alone some 35 s of it;
// one after the other they took that long in wall time, side by side about half. Each check's
// output is printed whole once it ends, under its name, so the outputs do not interleave; the exit
// status is 1 if any check failed.
//
// `node scripts/checks.mjs --tests [vitest options]` (what `npm test` runs) starts the test suite
// (`vitest run`, its output as it comes) at the same time as the checks: the suite's first seconds
// (bundling the CLI, building the offline model, installing Node 24) and much of its time after
// (waiting on the processes and servers it starts, on leases run out) leave a core idle, which the
// checks take instead of 30 s of their own before the suite. The checks' outputs follow the suite's.
// The exit status is 1 if a check failed, else the suite's: the same three checks run whole, and any
// failure fails the run. Not at a lower priority: on a machine busy with other work a niced check
// waited minutes for the CPU (tsc 529 s instead of 30 s at a load average of 20).
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

const args = process.argv.slice(2);
const withTests = args[0] === '--tests';

/** Runs one check; its output is kept and printed whole by `print` (now, or after the suite). */
function run([name, checkArgs], { print }) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, checkArgs, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (error) => resolve({ name, ok: false, output: `${output}${error.message}\n`, seconds: 0 }));
    child.on('close', (status, signal) => resolve({ name, ok: status === 0, output: signal ? `${output}killed by ${signal}\n` : output, seconds: (Date.now() - started) / 1000 }));
  }).then((result) => {
    if (print) report(result);
    return result;
  });
}

function report(result) {
  process.stdout.write(`\n> ${result.name} (${result.ok ? 'passed' : 'FAILED'}, ${result.seconds.toFixed(1)} s)\n${result.output}`);
}

/** `vitest run` with the options given after --tests, its output straight to this process's. */
function runTests(vitestArgs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin('vitest/vitest.mjs'), 'run', ...vitestArgs], { cwd: root, stdio: 'inherit' });
    child.on('error', (error) => {
      process.stderr.write(`vitest did not start: ${error.message}\n`);
      resolve(1);
    });
    child.on('close', (status, signal) => resolve(signal ? 1 : (status ?? 1)));
  });
}

const testsStatus = withTests ? runTests(args.slice(1)) : Promise.resolve(0);
const results = await Promise.all(checks.map((check) => run(check, { print: !withTests })));
const status = await testsStatus;
if (withTests) results.forEach(report);
const failed = results.filter((result) => !result.ok);
if (failed.length) {
  process.stderr.write(`\n${failed.map((result) => result.name).join(', ')}: failed\n`);
  process.exit(1);
}
process.exit(status);
