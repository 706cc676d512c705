/**
 * Errors of the importers. Every failure names the file and says what is wrong in one line, so the
 * CLI can print it as is and the UI can show it beside the file without a stack trace.
 */

export type ImportErrorCode =
  /** The path cannot be read (missing, no permission, a device...). */
  | 'unreadable'
  /** Nothing to import: a 0-byte or whitespace-only file, an empty export, no messages. */
  | 'empty'
  /** Bytes that are not text at all (an image, a database, an executable). */
  | 'binary'
  /** Text in another encoding than UTF-8 (Latin-1, UTF-16...). */
  | 'not-utf8'
  /**
   * The file stops in the middle of a JSON value or of a character: an interrupted download or copy.
   * A JSON array of conversations cut so is not refused but read up to its last complete conversation.
   */
  | 'truncated'
  /** A JSON syntax error that is not a truncation. */
  | 'invalid-json'
  /** Valid JSON (or text) of a known format, but a field is missing or of the wrong type. */
  | 'wrong-shape'
  /** None of the formats we understand. */
  | 'unknown-format'
  /** A ZIP entry that would inflate to an unreasonable size, or inflates beyond what it declares. */
  | 'zip-bomb'
  /** A ZIP archive that cannot be read. */
  | 'bad-zip'
  /** A ZIP archive without any file that looks like a transcript. */
  | 'no-transcripts'
  /** Something we deliberately do not read (encrypted ZIP entries, ZIPs inside ZIPs). */
  | 'unsupported'
  /** The file changed between the validation pass and the reading pass of a large file. */
  | 'changed';

export class ImportError extends Error {
  override readonly name = 'ImportError';
  /** The file as the caller named it; `archive.zip/inner.json` for an entry of a ZIP archive. */
  readonly file: string;
  readonly code: ImportErrorCode;
  /** The message without the file name, for a UI that shows the file in its own column. */
  readonly problem: string;

  constructor(file: string, code: ImportErrorCode, problem: string, options?: { cause?: unknown }) {
    const oneLineFile = toOneLine(file);
    const oneLineProblem = toOneLine(problem);
    super(`${oneLineFile}: ${oneLineProblem}`, options);
    this.file = file;
    this.code = code;
    this.problem = oneLineProblem;
  }
}

/**
 * A field of a known format that is missing or of the wrong type. Thrown by the format mappers,
 * which do not know the file name; the reader turns it into an `ImportError` of code `wrong-shape`.
 */
export class ShapeError extends Error {
  override readonly name = 'ShapeError';
  constructor(readonly problem: string) {
    super(problem);
  }
}

/**
 * Line breaks, with the whitespace around them, become one space. Split and trimmed rather than
 * replaced with one regular expression (whitespace, line breaks, whitespace): that backtracks
 * through every run of whitespace without a line break, which is quadratic, and messages quote
 * ids from the file, which can be a run of a million spaces.
 */
function toOneLine(text: string): string {
  return text
    .split(/[\r\n]+/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}
