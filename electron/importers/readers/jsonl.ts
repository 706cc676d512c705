/**
 * Reading JSONL transcripts line by line, with errors that give the line and the byte.
 * One conversation per file, so all its lines are kept (parsed) until the conversation is built.
 */
import { ImportError } from '../errors.js';
import { byteOffsetOfChar, findJsonSyntaxProblem } from './json-syntax.js';
import type { JsonlRecord } from './jsonl-record.js';
import { isObject, lineWhere } from '../shape.js';

interface RawLine {
  /** From 1; blank lines count. */
  lineNo: number;
  /** Offset of the line's first byte in the file. */
  byteOffset: number;
  bytes: Buffer;
  /** The file's last line, with no newline after it. */
  unterminated: boolean;
}

async function* splitLines(chunks: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncGenerator<RawLine> {
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let lineNo = 1;
  let lineStart = 0;
  for await (const chunk of chunks) {
    let from = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, from)) {
      const piece = chunk.subarray(from, newline);
      const bytes = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
      yield { lineNo, byteOffset: lineStart, bytes, unterminated: false };
      lineStart += bytes.length + 1;
      lineNo++;
      pending = [];
      pendingLength = 0;
      from = newline + 1;
    }
    if (from < chunk.length) {
      pending.push(chunk.subarray(from));
      pendingLength += chunk.length - from;
    }
  }
  if (pendingLength > 0) yield { lineNo, byteOffset: lineStart, bytes: Buffer.concat(pending), unterminated: true };
}

function lineText(line: RawLine): string {
  // A byte order mark can only start line 1; \r ends lines written on Windows.
  return line.bytes.toString('utf8').replace(/^\uFEFF/, '').replace(/\r$/, '');
}

/**
 * The parsed lines of a JSONL file (blank lines skipped), or undefined when `requireJsonFirstLine`
 * is set and the first line is not a whole JSON object: then the text is not JSONL but a JSON
 * document spread over several lines.
 */
export async function readJsonlRecords(
  label: string,
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  requireJsonFirstLine: boolean,
  onBadLine?: (lineNo: number, problem: string) => void,
): Promise<JsonlRecord[] | undefined> {
  const records: JsonlRecord[] = [];
  const lines = splitLines(chunks);
  for await (const line of lines) {
    const text = lineText(line);
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (records.length === 0 && requireJsonFirstLine) {
        await lines.return(undefined);
        return undefined;
      }
      if (onBadLine) {
        // A damaged line (a crash mid-write, an editor's save) costs that line only.
        const bad = await lineSyntaxError(label, line, lines, false);
        onBadLine(line.lineNo, bad.problem);
        continue;
      }
      throw await lineSyntaxError(label, line, lines, true);
    }
    if (!isObject(value)) {
      if (records.length === 0 && requireJsonFirstLine) {
        await lines.return(undefined);
        return undefined;
      }
      if (onBadLine) {
        onBadLine(line.lineNo, `${lineWhere(line.lineNo)} must be a JSON object`);
        continue;
      }
      throw new ImportError(label, 'wrong-shape', `${lineWhere(line.lineNo)} must be a JSON object`);
    }
    records.push({ lineNo: line.lineNo, value });
  }
  return records;
}

/**
 * Whether a bad line is the file's last one decides between "truncated" and "invalid". With
 * `consumeRest` the rest of the lines are read to find out (the caller stops there); without, only
 * whether the line ended with a newline tells (the caller goes on reading).
 */
async function lineSyntaxError(label: string, line: RawLine, rest: AsyncGenerator<RawLine>, consumeRest: boolean): Promise<ImportError> {
  const problem = await findJsonSyntaxProblem([line.bytes]);
  let isLast = true;
  if (consumeRest) {
    for await (const later of rest) {
      if (lineText(later).trim() !== '') {
        isLast = false;
        break;
      }
    }
  } else {
    isLast = line.unterminated;
  }
  const lineEnd = line.byteOffset + line.bytes.length;
  if (problem === undefined) return new ImportError(label, 'invalid-json', `invalid JSON at byte ${line.byteOffset} (line ${line.lineNo})`);
  if (problem.kind === 'truncated') {
    return isLast
      ? new ImportError(label, 'truncated', `truncated JSON at byte ${lineEnd} (line ${line.lineNo})`)
      : new ImportError(label, 'invalid-json', `invalid JSON at byte ${lineEnd} (line ${line.lineNo}): the line ends before its JSON value does`);
  }
  const byte = line.byteOffset + (await byteOffsetOfChar([line.bytes], problem.charOffset));
  return new ImportError(label, 'invalid-json', `invalid JSON at byte ${byte} (line ${line.lineNo}, column ${problem.column})`);
}
