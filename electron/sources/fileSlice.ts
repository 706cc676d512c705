/**
 * A slice of a file read without reading the whole: its first or last bytes, with its stat, from one
 * open handle (so both describe the same file even while the tool that writes it appends).
 */
import { promises as fs, type Stats } from 'node:fs';

/** Up to `bytes` bytes from the start or the end of `file`, with its stat; null when it cannot be opened. */
export async function readFileSlice(file: string, from: 'start' | 'end', bytes: number): Promise<{ bytes: Buffer; stat: Stats } | null> {
  let handle;
  try {
    handle = await fs.open(file, 'r');
  } catch {
    return null;
  }
  try {
    const stat = await handle.stat();
    const length = Math.max(0, Math.min(bytes, stat.size));
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, from === 'start' ? 0 : stat.size - length);
    return { bytes: buffer.subarray(0, bytesRead), stat };
  } finally {
    await handle.close();
  }
}
