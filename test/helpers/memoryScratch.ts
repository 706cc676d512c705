/**
 * The test run's temporary folders on a memory filesystem. Every test writes what it works on under
 * os.tmpdir() (stores, the bucket server's objects, transcripts, data folders of CLI runs), and the
 * product makes each record file durable (fsync of the file and its folder). On a disk shared by
 * other work, those syncs and the removal of each test's folders wait on the disk: the tests' own
 * CPU is the same either way, but a test file waits. A killed process leaves on a memory filesystem
 * what it leaves on a disk (its writes are the kernel's either way); only a power cut would differ,
 * and no test makes one. So the global setup points TMPDIR, which every test file and every process
 * it starts inherits, at a folder of its own on Linux's /dev/shm when that is a memory filesystem
 * with room, and removes it after the run. A TMPDIR set by whoever runs the tests is kept, and so is
 * the disk where there is no such filesystem.
 */
import { mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { isProcessRunning } from '../../electron/engine/files/processes.js';

const MEMORY_FS = '/dev/shm';
/** statfs's f_type of a tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** Less free than this, and the run keeps the disk: the largest files' stores take some hundreds of MB at once. */
const ROOM_BYTES = 4 * 1024 ** 3;
const PREFIX = 'session-memory-tests-';

/** Points TMPDIR at a new folder on the memory filesystem; returns what removes it, or undefined when the run stays on the disk. */
export function scratchInMemory(): (() => void) | undefined {
  if (process.env.TMPDIR || process.platform !== 'linux') return undefined;
  let stats;
  try {
    stats = statfsSync(MEMORY_FS);
  } catch {
    return undefined;
  }
  if (stats.type !== TMPFS_MAGIC || stats.bavail * stats.bsize < ROOM_BYTES) return undefined;
  sweepAbandoned();
  let dir: string;
  try {
    dir = mkdtempSync(path.join(MEMORY_FS, `${PREFIX}${process.pid}-`));
  } catch {
    return undefined;
  }
  process.env.TMPDIR = dir;
  return () => {
    delete process.env.TMPDIR;
    rmSync(dir, { recursive: true, force: true });
  };
}

/**
 * Removes the folders of runs whose process is gone (killed before its teardown), which would
 * otherwise hold memory until the machine restarts. Other runs of the machine, still going, keep theirs.
 */
function sweepAbandoned(): void {
  for (const name of readdirSync(MEMORY_FS)) {
    const pid = name.startsWith(PREFIX) ? Number(name.slice(PREFIX.length).split('-')[0]) : 0;
    if (!pid || pid === process.pid || isProcessRunning(pid)) continue;
    rmSync(path.join(MEMORY_FS, name), { recursive: true, force: true });
  }
}
