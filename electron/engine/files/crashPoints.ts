/**
 * Test runs only: `SESSION_MEMORY_TEST_CRASH=<point>:<n>[:<delayMs>]` kills this process with
 * SIGKILL the n-th time it reaches `<point>` (after `delayMs`, so that native work under way, such
 * as a compaction, is cut in the middle). The crash tests use it to stop a save at exact moments:
 * between two commits, after the archive record's temporary file is written but before the
 * rename, during compaction. Without the variable, and in packaged builds, this does nothing.
 *
 * A delayed kill always lands: if the process is about to exit before the delay is over (the save
 * was faster than the test expected), it waits out the delay and is killed then, so every trial a
 * test counts as a kill really is one.
 *
 * `SESSION_MEMORY_TEST_STOP=<point>:<n>` stops this process instead (SIGSTOP, as a laptop's sleep or
 * a stalled machine would) the n-th time it reaches `<point>`; the test continues it with SIGCONT.
 */
import { testSwitch } from './testSwitches.js';

const spec = testSwitch('SESSION_MEMORY_TEST_CRASH');
const [point, nth, delay] = spec ? spec.split(':') : [];
let seen = 0;
const stopSpec = testSwitch('SESSION_MEMORY_TEST_STOP');
const [stopPoint, stopNth] = stopSpec ? stopSpec.split(':') : [];
let stopSeen = 0;

export function crashPoint(name: string): void {
  if (stopSpec && name === stopPoint && ++stopSeen === Number(stopNth ?? 1)) process.kill(process.pid, 'SIGSTOP');
  if (!spec || name !== point) return;
  seen++;
  if (seen !== Number(nth ?? 1)) return;
  const kill = () => process.kill(process.pid, 'SIGKILL');
  if (!delay) {
    kill();
    return;
  }
  const killAt = Date.now() + Number(delay);
  setTimeout(kill, Number(delay));
  process.on('exit', () => {
    while (Date.now() < killAt) {
      // 'exit' handlers run synchronously: waiting here is the only way to hold the exit back.
    }
    kill();
  });
}
