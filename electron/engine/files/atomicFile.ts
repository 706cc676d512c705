import { promises as fs } from 'node:fs';
import path from 'node:path';
import { crashPoint } from './crashPoints.js';

/**
 * Replaces a file so that a reader sees the old content or the new, never a mix or nothing:
 * write a temporary file beside it, fsync it, rename it over the target, fsync the directory.
 */
export async function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const handle = await fs.open(temp, 'w', 0o644);
  try {
    await handle.writeFile(content, typeof content === 'string' ? 'utf8' : undefined);
    await handle.sync();
  } finally {
    await handle.close();
  }
  crashPoint(`rename/${path.basename(file)}`);
  try {
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable. Not possible on every platform (Windows): best effort there.
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    /* directory fsync unsupported */
  } finally {
    await handle?.close();
  }
}
