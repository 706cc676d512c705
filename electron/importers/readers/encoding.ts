/**
 * Bytes to text. Transcripts are UTF-8 nearly always; we check this ourselves instead of letting a
 * decoder replace bad bytes with U+FFFD, because a silently mangled transcript would be saved with
 * mangled content hashes forever; an error naming the offset lets the person fix the file.
 *
 * Two kinds of files that are not UTF-8 are read all the same, and the import names their encoding:
 * UTF-16 (with a byte order mark, or ASCII-range text with a NUL in every other byte), as some Windows
 * tools save; and files in a legacy encoding (GB18030/GBK and Big5 notes saved on Windows, Shift_JIS,
 * Windows-1252, ...), recognised by a statistical detector (chardet) when most non-ASCII sequences
 * of the file are invalid UTF-8. A UTF-8 file with a few bad bytes is damage, not another
 * encoding, and is still refused with the offset of the first.
 */
import { isUtf8 } from 'node:buffer';
import chardet from 'chardet';
import { Transform, type TransformCallback } from 'node:stream';
import { ImportError } from '../errors.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** How much of the start of a file is inspected to tell text from binary. */
export const SNIFF_BYTES = 8192;

export type Utf8Problem = { kind: 'invalid' | 'incomplete'; offset: number };

/**
 * The first place where `bytes` stop being UTF-8: an ill-formed sequence (`invalid`, at the
 * sequence's first byte) or a sequence cut off by the end of the bytes (`incomplete`).
 * Follows the well-formed byte sequences of Unicode, table 3-7 (no overlongs, no surrogates).
 */
export function findUtf8Problem(bytes: Uint8Array): Utf8Problem | undefined {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    let length: number;
    let secondMin = 0x80;
    let secondMax = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) secondMin = 0xa0;
      if (lead === 0xed) secondMax = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) secondMin = 0x90;
      if (lead === 0xf4) secondMax = 0x8f;
    } else return { kind: 'invalid', offset: i };

    for (let k = 1; k < length; k++) {
      if (i + k >= bytes.length) return { kind: 'incomplete', offset: i };
      const byte = bytes[i + k]!;
      const min = k === 1 ? secondMin : 0x80;
      const max = k === 1 ? secondMax : 0xbf;
      if (byte < min || byte > max) return { kind: 'invalid', offset: i };
    }
    i += length;
  }
  return undefined;
}

/** Length of a multi-byte sequence cut off at the end of `bytes` (0 to 3): it continues in the next chunk. */
export function incompleteTailLength(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    if (byte < 0xc0) return 0; // ASCII: nothing pending
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return needed > back ? back : 0;
  }
  return 0;
}

export type NotText = 'binary' | 'utf16';

/** Tells from the first bytes of a file whether it is not text at all, or UTF-16 text. */
export function sniffNotText(head: Uint8Array): NotText | undefined {
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return 'utf16';
  const sample = head.subarray(0, SNIFF_BYTES);
  if (looksLikeUtf16WithoutBom(sample)) return 'utf16';
  if (BINARY_SIGNATURES.some((signature) => startsWith(sample, signature))) return 'binary';
  // Text never holds NUL; nearly every binary format does, early on (git uses the same test).
  if (sample.includes(0)) return 'binary';
  let controls = 0;
  for (const byte of sample) {
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b) controls++;
  }
  return sample.length > 0 && controls / sample.length > 0.1 ? 'binary' : undefined;
}

/** Magic numbers of binary files people might drop by mistake and that may lack an early NUL. */
const BINARY_SIGNATURES: readonly Uint8Array[] = [
  Buffer.from('%PDF-'),
  Buffer.from([0x1f, 0x8b]), // gzip
  Buffer.from([0x89, 0x50, 0x4e, 0x47]), // PNG
  Buffer.from([0xff, 0xd8, 0xff]), // JPEG
  Buffer.from('GIF8'),
  Buffer.from('SQLite format 3'),
  Buffer.from([0x7f, 0x45, 0x4c, 0x46]), // ELF
  Buffer.from('Rar!'),
  Buffer.from([0x37, 0x7a, 0xbc, 0xaf]), // 7z
];

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);
}

/** ASCII-range UTF-16 has a NUL in every other byte; worth a precise message rather than "binary". */
function looksLikeUtf16WithoutBom(sample: Uint8Array): boolean {
  const pairs = Math.min(32, Math.floor(sample.length / 2));
  if (pairs < 2) return false;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < pairs; i++) {
    const even = sample[2 * i]!;
    const odd = sample[2 * i + 1]!;
    if (even === 0 && odd !== 0) evenNul++;
    if (odd === 0 && even !== 0) oddNul++;
  }
  return evenNul === pairs || oddNul === pairs;
}

export function notTextError(file: string, kind: NotText): ImportError {
  return kind === 'utf16'
    ? new ImportError(file, 'not-utf8', 'not UTF-8 text (it is UTF-16; save it as UTF-8)')
    : new ImportError(file, 'binary', 'binary file, not a transcript');
}

function utf8Error(file: string, problem: Utf8Problem, base: number): ImportError {
  const offset = base + problem.offset;
  return problem.kind === 'incomplete'
    ? new ImportError(file, 'truncated', `truncated in the middle of a UTF-8 character at byte ${offset}`)
    : new ImportError(file, 'not-utf8', `not UTF-8 text (invalid byte at offset ${offset})`);
}

export function utf8BomLength(bytes: Uint8Array): number {
  return startsWith(bytes, BOM) ? BOM.length : 0;
}

/** A file's text and the encoding it was read in (`UTF-8`, `UTF-16LE`, `GB18030`, ...). */
export interface DecodedText {
  text: string;
  encoding: string;
}

/**
 * The text of a whole file in whichever encoding it is (see the top of this file), or the
 * `not-utf8` / `truncated` error that says where it breaks.
 */
export function decodeText(file: string, bytes: Buffer): DecodedText {
  const utf16 = utf16Of(bytes);
  if (utf16) return { text: decodeStrictly(file, bytes.subarray(utf16.bom), utf16.label, utf16.name), encoding: utf16.name };
  if (isUtf8(bytes)) return { text: bytes.toString('utf8', utf8BomLength(bytes)), encoding: 'UTF-8' };
  const problem = findUtf8Problem(bytes) ?? { kind: 'invalid', offset: 0 };
  // Cut off in the middle of a character at the very end: a file still being written, or truncated.
  if (problem.kind === 'incomplete' || !mostlyNotUtf8(bytes)) throw utf8Error(file, problem, 0);
  const legacy = legacyEncodingOf(bytes);
  if (!legacy) throw utf8Error(file, problem, 0);
  return { text: decodeStrictly(file, bytes, legacy.label, legacy.name), encoding: legacy.name };
}

function utf16Of(bytes: Uint8Array): { label: string; name: string; bom: number } | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { label: 'utf-16le', name: 'UTF-16LE', bom: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { label: 'utf-16be', name: 'UTF-16BE', bom: 2 };
  const sample = bytes.subarray(0, SNIFF_BYTES);
  if (!looksLikeUtf16WithoutBom(sample)) return undefined;
  return sample[1] === 0 ? { label: 'utf-16le', name: 'UTF-16LE', bom: 0 } : { label: 'utf-16be', name: 'UTF-16BE', bom: 0 };
}

function decodeStrictly(file: string, bytes: Uint8Array, label: string, name: string): string {
  try {
    return new TextDecoder(label, { fatal: true }).decode(bytes);
  } catch {
    throw new ImportError(file, 'not-utf8', `not readable as ${name} (it is neither UTF-8 nor ${name} throughout; save it as UTF-8)`);
  }
}

/**
 * Whether the non-ASCII bytes of a file are mostly not UTF-8: fewer of its non-ASCII sequences are
 * well-formed UTF-8 than not (text in another encoding forms some by chance, about one in six for
 * GB18030 Chinese; a UTF-8 file with a damaged byte has nearly all of them well-formed).
 */
function mostlyNotUtf8(bytes: Uint8Array): boolean {
  let valid = 0;
  let invalid = 0;
  let i = 0;
  while (i < bytes.length) {
    if (bytes[i]! < 0x80) {
      i++;
      continue;
    }
    const problem = findUtf8Problem(bytes.subarray(i, Math.min(bytes.length, i + 4)));
    const length = utf8SequenceLength(bytes[i]!);
    if (problem === undefined || problem.offset >= length) {
      valid++;
      i += length;
    } else {
      invalid++;
      i++;
    }
  }
  return invalid > 0 && valid < invalid;
}

function utf8SequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

/** Encodings the detector names, as TextDecoder labels; ISO-8859-1 text is in practice Windows-1252. */
const DECODER_LABELS: Record<string, string> = {
  GB18030: 'gb18030',
  Big5: 'big5',
  Shift_JIS: 'shift_jis',
  'EUC-JP': 'euc-jp',
  'EUC-KR': 'euc-kr',
  'ISO-2022-JP': 'iso-2022-jp',
  'windows-1252': 'windows-1252',
  'ISO-8859-1': 'windows-1252',
  'windows-1250': 'windows-1250',
  'ISO-8859-2': 'iso-8859-2',
  'windows-1251': 'windows-1251',
  'KOI8-R': 'koi8-r',
  'ISO-8859-5': 'iso-8859-5',
  'windows-1253': 'windows-1253',
  'ISO-8859-7': 'iso-8859-7',
  'windows-1254': 'windows-1254',
  'ISO-8859-9': 'iso-8859-9',
  'windows-1256': 'windows-1256',
  'windows-1255': 'windows-1255',
};

/** The detector's best guess that a decoder knows, when it is confident enough to act on. */
function legacyEncodingOf(bytes: Uint8Array): { label: string; name: string } | undefined {
  for (const guess of chardet.analyse(bytes)) {
    if (guess.confidence < 30) return undefined;
    const label = DECODER_LABELS[guess.name];
    if (label) return { label, name: guess.name === 'ISO-8859-1' ? 'windows-1252' : guess.name };
  }
  return undefined;
}

/** The text of a whole file, or the `not-utf8` / `truncated` error that says where it breaks. */
export function decodeUtf8(file: string, bytes: Buffer): string {
  if (!isUtf8(bytes)) {
    const problem = findUtf8Problem(bytes) ?? { kind: 'invalid', offset: 0 };
    throw utf8Error(file, problem, 0);
  }
  return bytes.toString('utf8', utf8BomLength(bytes));
}

/**
 * Passes bytes through unchanged after checking they are UTF-8, so that a streaming parser behind
 * it never sees replacement characters. A character split across chunks is passed on whole, with
 * the next chunk. A byte order mark is passed on too (JSON parsers here take it for whitespace),
 * so that byte offsets downstream are offsets in the file.
 */
export class Utf8Validator extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes of the file before `pending`. */
  private offset = 0;

  constructor(private readonly file: string) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const bytes = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    const complete = bytes.subarray(0, bytes.length - incompleteTailLength(bytes));
    if (!isUtf8(complete)) {
      const problem = findUtf8Problem(complete) ?? { kind: 'invalid', offset: 0 };
      return callback(utf8Error(this.file, problem, this.offset));
    }
    this.offset += complete.length;
    this.pending = Buffer.from(bytes.subarray(complete.length));
    callback(null, complete.length > 0 ? complete : undefined);
  }

  override _flush(callback: TransformCallback): void {
    if (this.pending.length === 0) return callback();
    // What is left is a character cut off by the end of the file.
    callback(utf8Error(this.file, findUtf8Problem(this.pending) ?? { kind: 'incomplete', offset: 0 }, this.offset));
  }
}
