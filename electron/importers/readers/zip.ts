/**
 * ZIP archives (the ChatGPT and Claude.ai exports come as ZIPs), read in place with yauzl: nothing
 * is unpacked to disk. An archive is untrusted input, so before an entry is inflated we refuse
 * entries that declare an unreasonable uncompressed size or a compression ratio no transcript has
 * (a zip bomb), and while inflating we stop at the size the entry declared.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type yauzl from 'yauzl';
import { ImportError } from '../errors.js';
import { collect, guardedStream, unreadableError, type TranscriptSource } from './sources.js';
import { isTranscriptFileName } from '../transcript-files.js';
import { antigravityLogsInArchive } from '../agents/antigravity.js';

export interface ZipLimits {
  /** Largest uncompressed entry we inflate. */
  maxEntryBytes: number;
  /** Largest uncompressed/compressed ratio we accept for entries of at least `ratioCheckMinBytes`. */
  maxCompressionRatio: number;
  ratioCheckMinBytes: number;
}

export function isZip(head: Uint8Array): boolean {
  // Local file header, or the end-of-central-directory record of an empty archive.
  return head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 0x03 && head[3] === 0x04) || (head[2] === 0x05 && head[3] === 0x06));
}

interface EntryInfo {
  /** Position in the central directory: names may repeat inside an archive. */
  ordinal: number;
  fileName: string;
  compressedSize: number;
  uncompressedSize: number;
  encrypted: boolean;
}

/**
 * The conversations of a data export: `conversations.json` (ChatGPT, Claude.ai, DeepSeek), or the
 * shards newer ChatGPT exports split it into (`conversations-000.json`, `conversations-001.json`...,
 * beside an `export_manifest.json`).
 */
const EXPORT_CONVERSATIONS = /^conversations(?:-\d+)?\.json$/;

/**
 * The transcripts inside an archive, each as a source, or the reason an entry is refused.
 * When the archive is a data export (it holds `conversations.json` or its shards), those are the
 * only files read: their neighbours (`user.json`, `projects.json`, `chat.html`...) are not transcripts.
 */
export async function transcriptsInZip(zipPath: string, label: string, limits: ZipLimits): Promise<Array<TranscriptSource | ImportError>> {
  const entries = await listEntries(zipPath, label);
  // An Antigravity conversation's log sits in a hidden folder; the conversation's other files are the agent's documents.
  const antigravity = antigravityLogsInArchive(entries.map((entry) => entry.fileName));
  const inConversation = (fileName: string) => antigravity.conversations.some((folder) => fileName.startsWith(folder));
  const candidates = entries.filter((entry) => !entry.fileName.endsWith('/') && (antigravity.logs.has(entry.fileName) || (!isHiddenPath(entry.fileName) && !inConversation(entry.fileName))));
  const exports = candidates.filter((entry) => EXPORT_CONVERSATIONS.test(path.posix.basename(entry.fileName)));
  const chosen = exports.length > 0 ? exports : candidates.filter((entry) => isTranscriptFileName(path.posix.basename(entry.fileName)));
  if (chosen.length === 0) return [new ImportError(label, 'no-transcripts', 'ZIP archive holds no transcript files')];
  return chosen.map((entry) => refusal(entry, `${label}/${entry.fileName}`, limits) ?? entrySource(zipPath, label, entry, limits));
}

function isHiddenPath(fileName: string): boolean {
  return fileName.split('/').some((segment) => segment.startsWith('.') || segment === '__MACOSX');
}

function refusal(entry: EntryInfo, label: string, limits: ZipLimits): ImportError | undefined {
  if (entry.encrypted) return new ImportError(label, 'unsupported', 'encrypted ZIP entry; unpack it first');
  if (entry.uncompressedSize > limits.maxEntryBytes) {
    return new ImportError(label, 'zip-bomb', `refused: ZIP entry declares ${formatBytes(entry.uncompressedSize)} uncompressed, over the limit of ${formatBytes(limits.maxEntryBytes)}`);
  }
  if (entry.uncompressedSize >= limits.ratioCheckMinBytes) {
    const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
    if (ratio > limits.maxCompressionRatio) {
      return new ImportError(label, 'zip-bomb', `refused: ZIP entry compressed ${Math.round(ratio)}:1, far beyond any transcript (limit ${limits.maxCompressionRatio}:1)`);
    }
  }
  return undefined;
}

function entrySource(zipPath: string, zipLabel: string, entry: EntryInfo, limits: ZipLimits): TranscriptSource {
  const label = `${zipLabel}/${entry.fileName}`;
  const open = async (): Promise<Readable> => {
    const zipfile = await openZip(zipPath, zipLabel);
    let released = false;
    const release = () => {
      if (!released) zipfile.close();
      released = true;
    };
    try {
      const found = await findEntry(zipfile, entry.ordinal);
      if (found === undefined || found.fileName !== entry.fileName) throw new ImportError(label, 'changed', 'ZIP archive changed while it was being imported; import it again');
      const inflating = await zipfile.openReadStreamPromise(found);
      let inflated = 0;
      return guardedStream(
        inflating,
        (error) => entryStreamError(label, entry, error),
        (chunk) => {
          inflated += chunk.length;
          // yauzl already stops at the declared size; this also holds if that check ever changes.
          if (inflated > entry.uncompressedSize || inflated > limits.maxEntryBytes) throw inflatesBeyondDeclared(label, entry);
        },
        release,
      );
    } catch (error) {
      release();
      throw error instanceof ImportError ? error : entryStreamError(label, entry, error);
    }
  };
  return {
    label,
    baseName: path.posix.basename(entry.fileName),
    size: entry.uncompressedSize,
    open,
    async readAll() {
      return collect(await open());
    },
    async readHead(bytes) {
      const stream = await open();
      const chunks: Buffer[] = [];
      let length = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        length += chunk.length;
        if (length >= bytes) break; // leaving the loop destroys the stream and releases the archive
      }
      return Buffer.concat(chunks).subarray(0, bytes);
    },
    async version() {
      try {
        const current = await stat(zipPath);
        return `${current.size}:${current.mtimeMs}`;
      } catch (error) {
        throw unreadableError(zipLabel, error);
      }
    },
  };
}

function inflatesBeyondDeclared(label: string, entry: EntryInfo): ImportError {
  return new ImportError(label, 'zip-bomb', `refused: ZIP entry inflates beyond the ${formatBytes(entry.uncompressedSize)} it declares`);
}

function entryStreamError(label: string, entry: EntryInfo, error: unknown): ImportError {
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith('too many bytes in the stream')) return inflatesBeyondDeclared(label, entry);
  return new ImportError(label, 'bad-zip', `corrupt ZIP entry (${message})`, { cause: error });
}

async function openZip(zipPath: string, label: string): Promise<yauzl.ZipFile> {
  try {
    // Loaded with the first archive: reading a log does not need it.
    const { default: zip } = await import('yauzl');
    return await zip.openPromise(zipPath, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false, decodeStrings: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== undefined) throw unreadableError(label, error);
    throw new ImportError(label, 'bad-zip', `not a readable ZIP archive (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
}

async function listEntries(zipPath: string, label: string): Promise<EntryInfo[]> {
  const zipfile = await openZip(zipPath, label);
  try {
    const entries: EntryInfo[] = [];
    for await (const entry of zipfile.eachEntry()) {
      entries.push({
        ordinal: entries.length,
        fileName: entry.fileName,
        compressedSize: entry.compressedSize,
        uncompressedSize: entry.uncompressedSize,
        encrypted: entry.isEncrypted(),
      });
    }
    return entries;
  } catch (error) {
    throw new ImportError(label, 'bad-zip', `not a readable ZIP archive (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  } finally {
    zipfile.close();
  }
}

async function findEntry(zipfile: yauzl.ZipFile, ordinal: number): Promise<yauzl.Entry | undefined> {
  let index = 0;
  for await (const entry of zipfile.eachEntry()) {
    if (index === ordinal) return entry; // leaving the loop stops reading the directory
    index++;
  }
  return undefined;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
