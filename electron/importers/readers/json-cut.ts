/**
 * Where the complete elements of a cut-off JSON array end. A download or copy that was interrupted
 * leaves an export's top-level array open, with its last element cut somewhere inside; the elements
 * before it are whole, and the bytes up to the end of the last of them, with `]` after them, are a
 * valid array of exactly those elements, which the ordinary readers then read (parsed whole or
 * streamed).
 *
 * JSON.parse and the streaming parser say only that such text is bad, not where the last whole
 * element ends (and a stream that fails drops the elements it still buffers), so this scanner tracks
 * just what that takes: strings (with their escapes) and nesting depth. It reads bytes: in UTF-8 the
 * bytes of a multi-byte character are all 0x80 or above, so they never look like a quote, a
 * backslash or a bracket, and a character cut off by the end of the file sits inside the cut element.
 * It is used only on text already known to break off at its end, not before.
 */

/** The shape of a top-level JSON array that is cut off before its closing bracket. */
export interface CutArray {
  /** How many elements are complete. */
  complete: number;
  /** The byte just after the last complete element (or after the opening bracket, with none). */
  completeEnd: number;
  /** Where the first element starts and ends, when it is complete. */
  first?: { start: number; end: number };
  /** Whether an element was begun after the last complete one (and is cut off). */
  partial: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKETS = new Set([0x5b, 0x7b]);
const CLOSE_BRACKETS = new Set([0x5d, 0x7d]);
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
/** What a number, `true`, `false` or `null` is made of. */
const SCALAR = /^[-+.0-9a-zA-Z]$/;
const BOM = [0xef, 0xbb, 0xbf];

/**
 * The complete elements of the top-level array in `chunks` (UTF-8 bytes), or undefined when the
 * text is not an array left open at its end (another value, an array that was closed, not JSON).
 */
export async function findCutArray(chunks: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<CutArray | undefined> {
  let offset = 0;
  let opened = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let inScalar = false;
  let elementStart = -1;
  const cut: CutArray = { complete: 0, completeEnd: 0, partial: false };
  const endElement = (end: number): void => {
    if (cut.complete === 0) cut.first = { start: elementStart, end };
    cut.complete++;
    cut.completeEnd = end;
    cut.partial = false;
  };
  const startElement = (start: number): void => {
    elementStart = start;
    cut.partial = true;
  };

  for await (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      const at = offset + i;
      if (!opened) {
        if (at < BOM.length && byte === BOM[at]) continue;
        if (WHITESPACE.has(byte)) continue;
        if (byte !== 0x5b) return undefined;
        opened = true;
        depth = 1;
        cut.completeEnd = at + 1;
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) {
          inString = false;
          if (depth === 1) endElement(at + 1);
        }
        continue;
      }
      if (inScalar && !SCALAR.test(String.fromCharCode(byte))) {
        inScalar = false;
        endElement(at);
      }
      if (WHITESPACE.has(byte) || (byte === COMMA && depth > 0)) continue;
      if (byte === QUOTE) {
        if (depth === 1) startElement(at);
        inString = true;
      } else if (OPEN_BRACKETS.has(byte)) {
        if (depth === 1) startElement(at);
        depth++;
      } else if (CLOSE_BRACKETS.has(byte)) {
        depth--;
        // The array was closed: not cut off inside it.
        if (depth === 0) return undefined;
        if (depth === 1) endElement(at + 1);
      } else if (byte < 0x80 && SCALAR.test(String.fromCharCode(byte))) {
        if (depth === 1 && !inScalar) {
          startElement(at);
          inScalar = true;
        }
      } else {
        // Outside a string, only JSON's own ASCII punctuation, words and numbers may appear.
        if (byte !== 0x3a || depth < 2) return undefined;
      }
    }
    offset += chunk.length;
  }
  // A number at the very end may still have been cut short: it is not counted as complete.
  return opened ? cut : undefined;
}
