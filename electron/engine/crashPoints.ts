/**
 * Test runs only: `SESSION_MEMORY_TEST_CRASH=<point>:<n>[:<delayMs>]` kills this process with
 * SIGKILL the n-th time it reaches `<point>` (after `delayMs`, so that native work under way, such
 * as a compaction, is cut in the middle). The crash tests use it to stop a save at exact moments:
 * between two commits, after the archive record's temporary file is written but before the
 * rename, during compaction. Without the variable this does nothing.
 */
const spec = process.env.SESSION_MEMORY_TEST_CRASH;
const [point, nth, delay] = spec ? spec.split(':') : [];
let seen = 0;

export function crashPoint(name: string): void {
  if (!spec || name !== point) return;
  seen++;
  if (seen !== Number(nth ?? 1)) return;
  const kill = () => process.kill(process.pid, 'SIGKILL');
  if (delay) setTimeout(kill, Number(delay));
  else kill();
}
