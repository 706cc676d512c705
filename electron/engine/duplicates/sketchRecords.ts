/**
 * The layout of `vector-sketch.bin` (vectorSketch.ts): a header, then records of session changes.
 * Every field starts at a multiple of 4 bytes (strings are padded), so that codes can be copied word
 * by word out of a record; each record carries its payload's length and a CRC-32 of the length and
 * the payload together. (Format 1 summed the payload alone, so that a run of zeros, as a power loss
 * can leave at the end of a file, read as records with nothing in them; a format-1 file is not read,
 * and is rebuilt from the store like any journal that cannot be read.)
 */
import { crc32 } from 'node:zlib';

const MAGIC = 0x534d5653; // "SMVS"
const FORMAT = 2;
/** The smallest payload: the replace flag and the lengths of three strings and two lists. */
const MIN_PAYLOAD = 24;

/** One session's change, as appended to the journal. */
export interface SketchChange {
  sessionId: string;
  /** The fingerprint the session had in the sketch before (ignored when `replace`). */
  previous: string;
  /** Its fingerprint after ('' with `replace` and nothing added: the session is gone). */
  fingerprint: string;
  /** Drop all of the session's entries first. */
  replace: boolean;
  removed: readonly string[];
  /** Chunks and their codes. */
  added: ReadonlyArray<{ chunkId: string; code: Uint32Array }>;
}

/** A length rounded up to a multiple of 4. */
export const padded = (length: number): number => (length + 3) & ~3;

/** The file's header: format, code bits, generation, model. */
export function headerBytes(modelName: string, bits: number, generation: Buffer): Buffer {
  const model = Buffer.from(modelName, 'utf8');
  const header = Buffer.alloc(24 + padded(model.length));
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(FORMAT, 4);
  header.writeUInt32LE(bits, 8);
  generation.copy(header, 12);
  header.writeUInt32LE(model.length, 20);
  model.copy(header, 24);
  return header;
}

/** The generation and length of a header written for this model and code size, or null. */
export function parseHeader(data: Buffer, modelName: string, bits: number): { generation: Buffer; length: number } | null {
  if (data.length < 24 || data.readUInt32LE(0) !== MAGIC || data.readUInt32LE(4) !== FORMAT || data.readUInt32LE(8) !== bits) return null;
  const modelLength = data.readUInt32LE(20);
  if (data.length < 24 + modelLength || data.toString('utf8', 24, 24 + modelLength) !== modelName) return null;
  return { generation: Buffer.from(data.subarray(12, 20)), length: 24 + padded(modelLength) };
}

/** A record: its payload's length and checksum, then the payload (codes of `words` words). */
export function encodeRecord(change: SketchChange, words: number): Buffer {
  const strings = [change.sessionId, change.previous, change.fingerprint, ...change.removed].map((s) => Buffer.from(s, 'utf8'));
  const ids = change.added.map((a) => Buffer.from(a.chunkId, 'utf8'));
  const size = 12 + strings.reduce((n, s) => n + 4 + padded(s.length), 0) + ids.reduce((n, s) => n + 4 + padded(s.length) + words * 4, 0);
  const record = Buffer.alloc(8 + size);
  let at = 8;
  const putNumber = (n: number) => {
    record.writeUInt32LE(n, at);
    at += 4;
  };
  const putString = (s: Buffer) => {
    putNumber(s.length);
    s.copy(record, at);
    at += padded(s.length);
  };
  putNumber(change.replace ? 1 : 0);
  strings.slice(0, 3).forEach(putString);
  putNumber(change.removed.length);
  strings.slice(3).forEach(putString);
  putNumber(change.added.length);
  change.added.forEach((a, i) => {
    putString(ids[i]!);
    for (let w = 0; w < words; w++) putNumber(a.code[w]!);
  });
  record.writeUInt32LE(size, 0);
  record.writeUInt32LE(checksum(record, 0, size), 4);
  return record;
}

/** The CRC-32 of a record's length field and payload. */
function checksum(data: Buffer, at: number, length: number): number {
  return crc32(data.subarray(at + 8, at + 8 + length), crc32(data.subarray(at, at + 4)));
}

/** The payload length of the whole, intact record at `at`, or null (cut short, zeros, damaged). */
export function recordLength(data: Buffer, at: number): number | null {
  if (at + 8 > data.length) return null;
  const length = data.readUInt32LE(at);
  if (length < MIN_PAYLOAD || length % 4 !== 0 || at + 8 + length > data.length) return null;
  return checksum(data, at, length) === data.readUInt32LE(at + 4) ? length : null;
}
