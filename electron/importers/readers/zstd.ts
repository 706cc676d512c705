/**
 * zstd-compressed transcripts: OpenClaw compresses its archived sessions (`<id>.jsonl.reset.<ts>.zst`,
 * cold archives `sessions/cold/<sha256>.jsonl.zst`) and large events in its database. Node 20's
 * zlib has no zstd, so fzstd (pure JavaScript) decodes them. Compressed data is untrusted: decoding
 * stops as soon as the output passes the limit, so a small file cannot fill memory.
 */
import { Decompress } from 'fzstd';
import { ImportError } from '../errors.js';
import { formatBytes } from './zip.js';

export function isZstd(head: Uint8Array): boolean {
  return head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd;
}

class OutputLimitReached extends Error {}

/**
 * The decompressed bytes of one or more zstd frames.
 * @param label names the file (or database row) in errors.
 * @param maxBytes the largest output accepted.
 */
export function decompressZstd(label: string, compressed: Uint8Array, maxBytes: number): Buffer {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const stream = new Decompress((chunk) => {
    total += chunk.length;
    if (total > maxBytes) throw new OutputLimitReached();
    chunks.push(chunk);
  });
  try {
    // Pushed in slices so the limit is checked while decoding, not after a frame is whole.
    const slice = 1 << 16;
    for (let offset = 0; offset < compressed.length; offset += slice) {
      const end = Math.min(offset + slice, compressed.length);
      stream.push(compressed.subarray(offset, end), end === compressed.length);
    }
    if (compressed.length === 0) throw new Error('no data');
  } catch (error) {
    if (error instanceof OutputLimitReached) throw new ImportError(label, 'zip-bomb', `refused: zstd data decompresses to more than ${formatBytes(maxBytes)}`);
    const reason = error instanceof Error ? error.message : String(error);
    throw new ImportError(label, 'truncated', `damaged zstd data (${reason})`, { cause: error });
  }
  return Buffer.concat(chunks);
}
