import type { JsonObject } from '../shape.js';

/** One line of a JSONL transcript, parsed. `lineNo` counts from 1, blank lines included. */
export interface JsonlRecord {
  lineNo: number;
  value: JsonObject;
}
