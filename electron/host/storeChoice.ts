/**
 * Where the person points the app: a folder or a store URI, read as the settings keep it, and the
 * copy of the current memory to it that Settings › Storage offers.
 */
import path from 'node:path';
import { EngineError } from '../engine/errors.js';
import { isStoreUri, locate, StoreLocationError, type EngineLocation } from '../engine/files/index.js';

/** What the person chose, as kept in the settings: a store URI as given, a folder as an absolute path. */
export function chosenLocation(data: string): string {
  const trimmed = data.trim();
  if (!trimmed) throw new EngineError('invalid_input', 'name a folder or a store URI (s3+ddb://bucket/prefix?ddbTableName=T, s3://…, gs://…, az://…)');
  return isStoreUri(trimmed) ? trimmed : path.resolve(trimmed);
}

/** Reads a folder or store URI; a URI the parser refuses is a bad request, with the parser's message. */
export function locateOrRefuse(data: string): EngineLocation {
  try {
    return locate(data);
  } catch (error) {
    if (error instanceof StoreLocationError) throw new EngineError('invalid_input', error.message);
    throw error;
  }
}

/**
 * Copies the memory at `from` (a folder or store URI) to `to`, which must hold no memory yet; both
 * are what `--data` takes. Until the engine's copier is connected here, it refuses with a message
 * that says how to copy instead, and nothing is written anywhere.
 */
export async function copyMemory(from: string, to: string, _options: { singleWriter?: boolean }): Promise<void> {
  // Not connected yet: this line becomes `await copyStore(from, to, _options);` (copyStore from '../engine/store/index.js').
  throw new EngineError('invalid_request', `copying from the app is not available in this build: nothing was copied to ${locateOrRefuse(to).display}, and the app stays on ${locateOrRefuse(from).display}`);
}
