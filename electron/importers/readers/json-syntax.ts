/**
 * Where JSON breaks. `JSON.parse` and the streaming parser only say *that* it breaks; people need
 * to know where, and whether the file was merely cut short (an interrupted download) or is not
 * JSON at all. stream-json's Verifier reports the offset, line and column of the first error and
 * waits for more input while the text so far could still become valid: an error that shows up
 * only once the input ends is a truncation.
 */
import { StringDecoder } from 'node:string_decoder';

export type JsonSyntaxProblem =
  | { kind: 'truncated' }
  /** `charOffset` counts UTF-16 code units of the decoded text, `line` and `column` from 1. */
  | { kind: 'invalid'; charOffset: number; line: number; column: number };

interface VerifierError extends Error {
  offset?: number;
  line?: number;
  pos?: number;
}

/** The first syntax problem of the JSON text in `chunks` (UTF-8 bytes), or undefined when it is valid. */
export async function findJsonSyntaxProblem(chunks: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<JsonSyntaxProblem | undefined> {
  // Loaded when a JSON document fails to parse: reading a log does not need it.
  const { default: Verifier } = await import('stream-json/utils/Verifier.js');
  const verifier = new Verifier();
  let failure: VerifierError | undefined;
  verifier.on('error', (error: VerifierError) => {
    failure ??= error;
  });
  const write = (chunk: Buffer) => new Promise<void>((resolve) => verifier.write(chunk, () => resolve()));

  for await (const chunk of chunks) {
    await write(chunk);
    if (failure) return invalidAt(failure);
  }
  // Let a pending error surface before ending: errors raised at the end mean "input ran out".
  await new Promise((resolve) => setImmediate(resolve));
  if (failure) return invalidAt(failure);
  await new Promise<void>((resolve) => {
    verifier.once('finish', resolve);
    verifier.once('error', () => resolve());
    verifier.end();
  });
  return failure ? { kind: 'truncated' } : undefined;
}

function invalidAt(error: VerifierError): JsonSyntaxProblem {
  return { kind: 'invalid', charOffset: error.offset ?? 0, line: error.line ?? 1, column: error.pos ?? 1 };
}

/** Byte offset, in the UTF-8 bytes of `chunks`, of the character at `charOffset` of their decoded text. */
export async function byteOffsetOfChar(chunks: AsyncIterable<Buffer> | Iterable<Buffer>, charOffset: number): Promise<number> {
  const decoder = new StringDecoder('utf8');
  let chars = 0;
  let bytes = 0;
  for await (const chunk of chunks) {
    const text = decoder.write(chunk);
    if (chars + text.length >= charOffset) {
      return bytes + Buffer.byteLength(text.slice(0, charOffset - chars));
    }
    chars += text.length;
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}
