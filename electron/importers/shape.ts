/**
 * Reading untyped JSON of foreign formats: small guards that either return the typed value or throw
 * a `ShapeError` naming the exact place (`[3].mapping["a1"].message.author.role must be a string`).
 * Exports are huge and only loosely specified, so the mappers check what they rely on and
 * tolerate everything else.
 */
import { ShapeError } from './errors.js';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `where` extended by a key or an index, as a JavaScript-like path. A `where` ending in a colon
 * names a line of a JSONL file (`line 7:`), and the path inside that line follows it.
 */
export function at(where: string, key: string | number): string {
  const base = where.endsWith(':') ? `${where} ` : where;
  if (typeof key === 'number') return `${base}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return where === '' || where.endsWith(':') ? `${base}${key}` : `${where}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

/** The `where` of a line of a JSONL file. */
export function lineWhere(lineNo: number): string {
  return `line ${lineNo}:`;
}

/** The place for a message: the path, the whole document, or a whole line. */
function subject(where: string): string {
  if (where === '') return 'the document';
  return where.endsWith(':') ? `${where} the line` : where;
}

export function requireObject(value: unknown, where: string): JsonObject {
  if (isObject(value)) return value;
  throw new ShapeError(`${subject(where)} must be an object${describeFound(value)}`);
}

export function requireArray(value: unknown, where: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new ShapeError(`${subject(where)} must be an array${describeFound(value)}`);
}

export function requireString(value: unknown, where: string): string {
  if (typeof value === 'string') return value;
  throw new ShapeError(`${subject(where)} must be a string${describeFound(value)}`);
}

export function requireNonEmptyString(value: unknown, where: string): string {
  if (typeof value === 'string' && value.length > 0) return value;
  throw new ShapeError(`${subject(where)} must be a non-empty string${describeFound(value)}`);
}

/**
 * Text made from a parsed JSON value by something that recurses once per level of nesting
 * (`JSON.stringify`). `JSON.parse` reads any depth, so a hostile file can nest deeper than the stack
 * goes: such a file is of the wrong shape, not a crash.
 */
export function serializeNested(what: string, serialize: () => string): string {
  try {
    return serialize();
  } catch (error) {
    if (error instanceof RangeError) throw new ShapeError(`${what} is nested too deeply`);
    throw error;
  }
}

/** A string worth keeping (non-empty after trimming), or undefined for anything else. */
export function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function describeFound(value: unknown): string {
  if (value === undefined) return ' (it is missing)';
  if (value === null) return ' (found null)';
  if (Array.isArray(value)) return ' (found an array)';
  return ` (found ${typeof value})`;
}
