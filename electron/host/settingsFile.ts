/**
 * The desktop app's settings file (settings.json in the app's folder): the data folder, the model the
 * person chose, language and theme. It is replaced atomically, so a crash leaves the old file or the
 * new one, never an empty one. A file that cannot be read is never silently dropped: it is kept aside
 * (settings.json.unreadable) and the problem is reported, since starting on the default data folder
 * without a word would look as if every archived conversation were gone.
 */
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../engine/atomicFile.js';

/** What is saved: only what the person chose. The model is absent until they pick one. */
export interface PersistedSettings {
  dataDir?: string;
  model?: string;
  language?: 'en' | 'zh-CN' | 'system';
  theme?: 'light' | 'dark' | 'system';
  /** Absent means on: secrets are redacted before storing unless the person turned it off. */
  redactSecrets?: boolean;
}

const schema = z.object({
  dataDir: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  language: z.enum(['en', 'zh-CN', 'system']).optional(),
  theme: z.enum(['light', 'dark', 'system']).optional(),
  redactSecrets: z.boolean().optional(),
});

export interface LoadedSettings {
  settings: PersistedSettings;
  /** One line for the person when the file could not be used; its content is kept at `keptAs`. */
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
  let reason: string;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    if (parsed.success) return { settings: stripUndefined(parsed.data) };
    reason = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'the file'}: ${issue.message}`).join('; ');
  } catch (error) {
    reason = text.trim() === '' ? 'it is empty' : `it is not JSON (${(error as Error).message})`;
  }
  const keptAs = `${file}.unreadable`;
  await fs.copyFile(file, keptAs).catch(() => {});
  return { settings: {}, problem: `${file} could not be used: ${reason}. It is kept as ${keptAs}; the app starts with default settings`, keptAs };
}

export async function saveSettingsFile(file: string, settings: PersistedSettings): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(stripUndefined(settings), null, 2)}\n`);
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
