/**
 * Switches that only test runs may use (`SESSION_MEMORY_TEST_*`: small commits, crash points,
 * frequent compaction). They are read only when `SESSION_MEMORY_TEST_RUN=1` says this is a test
 * run: the test suite sets it (vitest.config.ts), and a person's source checkout (whose CLI an MCP
 * setup runs) does not, so a stray `SESSION_MEMORY_TEST_CRASH` in their environment kills nothing.
 * Packaged builds are bundled with `__SESSION_MEMORY_PACKAGED__` defined as true
 * (scripts/bundleOptions.mjs); there every switch reads as unset, whatever the environment says.
 */
declare const __SESSION_MEMORY_PACKAGED__: boolean | undefined;

export const PACKAGED = typeof __SESSION_MEMORY_PACKAGED__ !== 'undefined' && __SESSION_MEMORY_PACKAGED__;

/** The variable that makes a run a test run (set by the test suite only). */
export const TEST_RUN_SWITCH = 'SESSION_MEMORY_TEST_RUN';

export function testSwitch(name: `SESSION_MEMORY_TEST_${string}`): string | undefined {
  if (PACKAGED || process.env[TEST_RUN_SWITCH] !== '1') return undefined;
  return process.env[name];
}
