/**
 * Where transcript bytes come from: a file on disk or an entry of a ZIP archive. Large files are
 * read twice (a validation pass, then the pass that hands out sessions), so a source can be opened
 * more than once; `version()` lets the second pass check it reads what the first one checked.
 */
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ImportError } from '../errors.js';

export interface TranscriptSource {
  /** How results and errors name it: the path, or `archive.zip/inner/path.json` inside a ZIP. */
  readonly label: string;
  /** The file name without folders (Markdown and Claude Code derive session ids from it). */
  readonly baseName: string;
  readonly size: number;
  /** The bytes from the start. Read errors surface as `ImportError`s from the stream. */
  open(): Promise<Readable>;
  readAll(): Promise<Buffer>;
  readHead(bytes: number): Promise<Buffer>;
  /** Changes whenever the bytes may have changed. */
  version(): Promise<string>;
}

/** Node's system errors, in the words a person understands. */
export function unreadableError(label: string, error: unknown): ImportError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reasons: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'a part of the path is not a directory',
    ELOOP: 'too many symbolic links',
    EMFILE: 'too many open files',
    EIO: 'input/output error',
  };
  const reason = (code !== undefined ? reasons[code] : undefined) ?? (error instanceof Error ? error.message : String(error));
  return new ImportError(label, 'unreadable', `cannot read: ${reason}`, { cause: error });
}

export function fileSource(filePath: string, size: number, label = filePath): TranscriptSource {
  const stats = async () => {
    try {
      return await stat(filePath);
    } catch (error) {
      throw unreadableError(label, error);
    }
  };
  return {
    label,
    baseName: path.basename(filePath),
    size,
    async open() {
      // 64 KiB chunks: the streaming JSON parser is markedly slower and bigger on larger ones
      // (measured with scripts/bench-import.ts: 1 MiB chunks took 21 s and 213 MB for 200 MB, 64 KiB 13 s and 162 MB).
      return guardedStream(createReadStream(filePath, { highWaterMark: 1 << 16 }), (error) => unreadableError(label, error));
    },
    async readAll() {
      try {
        return await readFile(filePath);
      } catch (error) {
        throw unreadableError(label, error);
      }
    },
    async readHead(bytes) {
      try {
        const handle = await open(filePath, 'r');
        try {
          const buffer = Buffer.alloc(Math.min(bytes, size));
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
          return buffer.subarray(0, bytesRead);
        } finally {
          await handle.close();
        }
      } catch (error) {
        throw unreadableError(label, error);
      }
    },
    async version() {
      const current = await stats();
      return `${current.size}:${current.mtimeMs}`;
    },
  };
}

/** The text of a compressed file (OpenClaw's `.zst` archives), under the file's own name. */
export function decompressedSource(compressed: TranscriptSource, bytes: Buffer): TranscriptSource {
  return {
    label: compressed.label,
    baseName: compressed.baseName.replace(/\.zst$/i, ''),
    size: bytes.length,
    async open() {
      return Readable.from([bytes], { objectMode: false });
    },
    async readAll() {
      return bytes;
    },
    async readHead(count) {
      return bytes.subarray(0, count);
    },
    version: () => compressed.version(),
  };
}

/**
 * The first `end` bytes of a source followed by `tail`: a cut-off export's complete part, closed
 * (see json-cut.ts). Named and versioned as the source itself.
 */
export function prefixSource(source: TranscriptSource, end: number, tail: Buffer): TranscriptSource {
  async function* bytes(): AsyncGenerator<Buffer> {
    let left = end;
    for await (const chunk of (await source.open()) as AsyncIterable<Buffer>) {
      if (left <= 0) break;
      const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
      left -= part.length;
      yield part;
    }
    yield tail;
  }
  return {
    label: source.label,
    baseName: source.baseName,
    size: end + tail.length,
    async open() {
      return Readable.from(bytes(), { objectMode: false });
    },
    async readAll() {
      return Buffer.concat([await source.readHead(end), tail]);
    },
    async readHead(count) {
      const head = await source.readHead(Math.min(count, end));
      return count > end ? Buffer.concat([head, tail.subarray(0, count - end)]) : head;
    },
    version: () => source.version(),
  };
}

/**
 * A byte stream whose failures arrive as `ImportError`s, with a hook to release what it reads
 * from (a ZIP file handle) however the reading ends.
 */
export function guardedStream(
  input: AsyncIterable<Buffer>,
  toImportError: (error: unknown) => ImportError,
  onChunk?: (chunk: Buffer) => void,
  release?: () => void,
): Readable {
  async function* guarded(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of input) {
        onChunk?.(chunk);
        yield chunk;
      }
    } catch (error) {
      throw error instanceof ImportError ? error : toImportError(error);
    } finally {
      release?.();
    }
  }
  return Readable.from(guarded(), { objectMode: false });
}

/** All the bytes of a stream (small sources only). */
export async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}
