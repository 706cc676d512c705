/**
 * The desktop app's settings file (settings.json in the app's folder): the data folder, the model the
 * person chose, language and theme. It is replaced atomically, so a crash leaves the old file or the
 * new one, never an empty one. A file that cannot be read is never silently dropped: it is kept aside
 * (settings.json.unreadable) and the problem is reported, since starting on the default data folder
 * without a word would look as if every archived conversation were gone. A file with one invalid
 * field keeps the others (the data folder above all) and names the field that was dropped.
 */
import { promises as fs } from 'node:fs';
import * as z from 'zod';
import { writeFileAtomic } from '../engine/files/index.js';

/** What is saved: only what the person chose. The model is absent until they pick one. */
export interface PersistedSettings {
  dataDir?: string;
  model?: string;
  language?: 'en' | 'zh-CN' | 'system';
  theme?: 'light' | 'dark' | 'system';
  /** Absent means on: secrets are redacted before storing unless the person turned it off. */
  redactSecrets?: boolean;
}

/** Each field on its own, so that one invalid field costs only itself. */
const FIELDS = {
  dataDir: z.string().min(1),
  model: z.string().min(1),
  language: z.enum(['en', 'zh-CN', 'system']),
  theme: z.enum(['light', 'dark', 'system']),
  redactSecrets: z.boolean(),
} satisfies Record<keyof PersistedSettings, z.ZodType>;

export interface LoadedSettings {
  settings: PersistedSettings;
  /** One line for the person when the file, or a field of it, could not be used; the file is kept at `keptAs`. */
  problem?: string;
  keptAs?: string;
}

export async function loadSettingsFile(file: string): Promise<LoadedSettings> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { settings: {} };
    return { settings: {}, problem: `${file} could not be read (${(error as Error).message}); the app starts with default settings` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return await keepAside(file, {}, `${file} could not be used: ${text.trim() === '' ? 'it is empty' : `it is not JSON (${(error as Error).message})`}`, 'the app starts with default settings');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return await keepAside(file, {}, `${file} could not be used: it is not a JSON object`, 'the app starts with default settings');
  }
  const settings: Record<string, unknown> = {};
  const invalid: string[] = [];
  for (const [name, field] of Object.entries(FIELDS)) {
    const given = (value as Record<string, unknown>)[name];
    if (given === undefined) continue;
    const parsed = field.safeParse(given);
    if (parsed.success) settings[name] = parsed.data;
    else invalid.push(`${name}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  }
  if (invalid.length === 0) return { settings: settings as PersistedSettings };
  const dropped = invalid.map((line) => line.slice(0, line.indexOf(':')));
  return await keepAside(file, settings as PersistedSettings, `${file}: ${invalid.join('; ')}`, `${dropped.join(' and ')} ${dropped.length === 1 ? 'is' : 'are'} back to the default; the other settings are used`);
}

/** Keeps the file as it was beside it (the next save replaces it) and says what the app does instead. */
async function keepAside(file: string, settings: PersistedSettings, problem: string, instead: string): Promise<LoadedSettings> {
  const keptAs = `${file}.unreadable`;
  await fs.copyFile(file, keptAs).catch(() => {});
  return { settings, problem: `${problem}. It is kept as ${keptAs}; ${instead}`, keptAs };
}

export async function saveSettingsFile(file: string, settings: PersistedSettings): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(stripUndefined(settings), null, 2)}\n`);
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
