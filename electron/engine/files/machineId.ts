/**
 * This machine's random id, kept in its local folder: a shared store's lease names its holder by it,
 * so that a process of this machine is told from one of another computer that has the same name
 * (two laptops both called "MacBook-Pro", the default machine name being the host name). Created
 * once, whole (written beside and linked into place, so of two processes creating it at once both
 * read the same id); a folder deleted or copied from elsewhere only costs a wait for a lease its
 * dead processes held (taken over after the lease's time instead of at once).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../errors.js';
import { MACHINE_ID_FILE } from './layout.js';

const ID = /^[0-9a-f]{32}$/;

export async function machineId(dataDir: string): Promise<string> {
  const file = path.join(dataDir, MACHINE_ID_FILE);
  const stored = await readId(file);
  if (stored) return stored;
  await fs.mkdir(dataDir, { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temp, `${randomBytes(16).toString('hex')}\n`);
  try {
    // A link fails when the file exists: the id another process made first is kept.
    await fs.link(temp, file).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
      // One that is not an id (damaged) is replaced.
      if (!(await readId(file))) await fs.rename(temp, file);
    });
  } finally {
    await fs.rm(temp, { force: true });
  }
  const id = await readId(file);
  if (!id) throw new EngineError('internal', `${file}: this machine's id could not be written; check that the folder is writable`);
  return id;
}

async function readId(file: string): Promise<string | null> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const id = text.trim();
  return ID.test(id) ? id : null;
}
