/**
 * Where the person points the app: a folder or a store URI, read as the settings keep it, and the
 * copy of the current memory to it that Settings › Storage offers.
 */
import path from 'node:path';
import { copyStore } from '../engine/store/index.js';
import { carrySourceSettings } from '../sources/sourceSettings.js';
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
 * are what `--data` takes (the engine's copier, as `session-memory copy` uses it), with the person's
 * choice of sources.
 */
export async function copyMemory(from: string, to: string, options: { singleWriter?: boolean }): Promise<void> {
  await copyStore(from, to, options);
  await carrySourceSettings(locateOrRefuse(from).dataDir, locateOrRefuse(to).dataDir);
}
