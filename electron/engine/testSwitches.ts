/**
 * Switches that only test runs may use (`SESSION_MEMORY_TEST_*`: small commits, crash points,
 * frequent compaction). Packaged builds are bundled with `__SESSION_MEMORY_PACKAGED__` defined as
 * true (scripts/bundleOptions.mjs); there every switch reads as unset, whatever the environment says.
 */
declare const __SESSION_MEMORY_PACKAGED__: boolean | undefined;

export const PACKAGED = typeof __SESSION_MEMORY_PACKAGED__ !== 'undefined' && __SESSION_MEMORY_PACKAGED__;

export function testSwitch(name: `SESSION_MEMORY_TEST_${string}`): string | undefined {
  return PACKAGED ? undefined : process.env[name];
}
