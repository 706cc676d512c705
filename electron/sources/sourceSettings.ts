/**
 * What a person chose about sources, kept with the store (`<data folder>/sources.json`) so the app
 * and the CLI see the same: which sources are on (none until a person turns one on in the app:
 * nothing is read before that), folders added for tools without a default place (aider), and how
 * each source's last sync went.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../engine/files/index.js';

export const SOURCE_SETTINGS_FILE = 'sources.json';

export interface SourceStatus {
  lastSync: string;
  sessionsSaved: number;
  errors: string[];
  unsupported?: string;
}

export interface SourceSettings {
  enabled: Record<string, boolean>;
  folders: Record<string, string[]>;
  status: Record<string, SourceStatus>;
}

// Checked by hand, not with a schema library: the CLI reads this file on every sync, where start-up time counts.
function record<T>(value: unknown, check: (item: unknown) => item is T): Record<string, T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, item]) => check(item))) as Record<string, T>;
}
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isFolders = (v: unknown): v is string[] => Array.isArray(v) && v.every((f) => typeof f === 'string' && f !== '');
const isStatus = (v: unknown): v is SourceStatus => {
  const s = v as Partial<SourceStatus> | null;
  return typeof s === 'object' && s !== null && typeof s.lastSync === 'string' && typeof s.sessionsSaved === 'number' && Array.isArray(s.errors) && s.errors.every((e) => typeof e === 'string') && (s.unsupported === undefined || typeof s.unsupported === 'string');
};

export function emptySourceSettings(): SourceSettings {
  return { enabled: {}, folders: {}, status: {} };
}

/** The settings, or none chosen when the file is missing or unusable (then every source stays off). */
export async function loadSourceSettings(dataDir: string): Promise<SourceSettings> {
  try {
    const parsed = JSON.parse(await fs.readFile(path.join(dataDir, SOURCE_SETTINGS_FILE), 'utf8')) as Record<string, unknown>;
    return { enabled: record(parsed.enabled, isBoolean), folders: record(parsed.folders, isFolders), status: record(parsed.status, isStatus) };
  } catch {
    return emptySourceSettings();
  }
}

export async function saveSourceSettings(dataDir: string, settings: SourceSettings): Promise<void> {
  await fs.mkdir(dataDir, { recursive: true });
  await writeFileAtomic(path.join(dataDir, SOURCE_SETTINGS_FILE), `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * The person's choices (which sources are on, the folders they added) carried to another place of
 * the memory when it is copied or the app moves to it, so that the sources stay as they were there
 * (and, with the store's marks of forgotten sessions copied too, turning them on brings no forgotten
 * session back). A place that has choices of its own keeps them. The last syncs' status stays behind:
 * it describes the old place. Returns whether anything was carried.
 */
export async function carrySourceSettings(fromDir: string, toDir: string): Promise<boolean> {
  if (path.resolve(fromDir) === path.resolve(toDir) || existsSync(path.join(toDir, SOURCE_SETTINGS_FILE))) return false;
  const chosen = await loadSourceSettings(fromDir);
  if (Object.keys(chosen.enabled).length === 0 && Object.keys(chosen.folders).length === 0) return false;
  await saveSourceSettings(toDir, { enabled: chosen.enabled, folders: chosen.folders, status: {} });
  return true;
}

/** After a forget (write lock held): the errors of the last syncs that name one of `terms` (a session id, a file's path) go. */
export async function dropStatusErrorsNaming(dataDir: string, terms: readonly string[]): Promise<void> {
  const needles = terms.filter((t) => t !== '');
  if (needles.length === 0) return;
  const settings = await loadSourceSettings(dataDir);
  let changed = false;
  for (const status of Object.values(settings.status)) {
    const kept = status.errors.filter((error) => !needles.some((n) => error.includes(n)));
    if (kept.length === status.errors.length) continue;
    status.errors = kept;
    changed = true;
  }
  if (changed) await saveSourceSettings(dataDir, settings);
}
