/**
 * Edits of an assistant's own configuration file: read it, change only our entries, write it back
 * beside a backup. A file that does not parse is refused (one line naming it and the problem) and
 * left as it is; a file our entries already match is not rewritten at all.
 */
import { isDeepStrictEqual } from 'node:util';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import JSON5 from 'json5';
import * as TOML from 'smol-toml';

export type ConfigFormat = 'json' | 'json5' | 'toml' | 'text';
export type JsonObject = Record<string, unknown>;

/** A configuration file this command will not touch: `<file>: <problem>`. */
export class ConfigFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'ConfigFileError';
  }
}

/** One of our entries in a file, before and after (null: absent). */
export interface EntryChange {
  entry: string;
  before: unknown;
  after: unknown;
}

/** What a file holds now and what it will hold (null: no such file). */
export interface FilePlan {
  file: string;
  format: ConfigFormat;
  before: string | null;
  after: string | null;
  entries: EntryChange[];
  /** Said to the person along with the change (a setting of theirs that stops our entry working). */
  notes?: string[];
  /** A file of ours in a folder of ours: the folder goes too once it is empty. */
  ownFolder?: boolean;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export async function readText(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigFileError(file, `cannot be read: ${(error as Error).message}`);
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

/** The file's top-level object; an empty file counts as `{}`. */
export function parseConfig(file: string, text: string | null, format: Exclude<ConfigFormat, 'text'>): JsonObject {
  if (text === null || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = format === 'toml' ? TOML.parse(text) : format === 'json5' ? JSON5.parse(text) : JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const kind = format === 'toml' ? 'TOML' : format === 'json5' ? 'JSON5' : 'JSON';
    throw new ConfigFileError(file, `not valid ${kind} (${firstLine((error as Error).message)}); fix or move it, then run this again`);
  }
  if (!isObject(parsed)) throw new ConfigFileError(file, 'holds no object at the top; fix or move it, then run this again');
  return parsed;
}

/** The object at `keys` under `doc`, created when absent; a non-object there is refused. */
function containerAt(file: string, doc: JsonObject, keys: readonly string[], create: boolean): JsonObject | null {
  let node = doc;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const next = node[key];
    if (next === undefined) {
      if (!create) return null;
      node[key] = {};
    } else if (!isObject(next)) {
      throw new ConfigFileError(file, `"${keys.slice(0, i + 1).join('.')}" is not an object; fix it, then run this again`);
    }
    node = node[key] as JsonObject;
  }
  return node;
}

/** Deletes the objects along `keys` that a removal left empty, innermost first. */
function pruneEmpty(doc: JsonObject, keys: readonly string[]): void {
  for (let depth = keys.length; depth > 0; depth--) {
    let parent: unknown = doc;
    for (const key of keys.slice(0, depth - 1)) parent = isObject(parent) ? parent[key] : undefined;
    const last = keys[depth - 1]!;
    if (!isObject(parent) || !isObject(parent[last]) || Object.keys(parent[last]).length > 0) return;
    delete parent[last];
  }
}

/** Sets (or with `value` undefined, deletes) `keys.name`. */
export function setEntry(file: string, doc: JsonObject, keys: readonly string[], name: string, value: unknown): EntryChange {
  const container = containerAt(file, doc, keys, value !== undefined);
  const before = container?.[name] ?? null;
  if (value === undefined) {
    if (container) delete container[name];
    pruneEmpty(doc, keys);
  } else if (!isDeepStrictEqual(before, value)) {
    container![name] = value;
  }
  return { entry: [...keys, name].join('.'), before, after: value ?? null };
}

/**
 * Our hook in an event's list, for clients whose list holds groups (`{matcher?, hooks: [...]}`:
 * Claude Code, Codex, Gemini CLI) or the hooks themselves (Cursor). Ours are the hooks `isOurs`
 * recognises; every other hook and group stays where it is. Connected means exactly `desired` once.
 */
export function setHookInList(
  file: string,
  doc: JsonObject,
  keys: readonly string[],
  event: string,
  desired: JsonObject | undefined,
  isOurs: (hook: unknown) => boolean,
  shape: 'groups' | 'flat',
): EntryChange {
  const container = containerAt(file, doc, keys, desired !== undefined);
  const where = [...keys, event].join('.');
  const list = container?.[event];
  if (list !== undefined && !Array.isArray(list)) throw new ConfigFileError(file, `"${where}" is not a list; fix it, then run this again`);
  const items: unknown[] = list ?? [];
  const hooksOf = (item: unknown): unknown[] | null => (shape === 'flat' ? [item] : isObject(item) && Array.isArray(item.hooks) ? item.hooks : null);
  const mine = items.filter((item) => hooksOf(item)?.some(isOurs));
  const before = mine.length === 0 ? null : mine.length === 1 ? mine[0] : mine;
  if (desired !== undefined && mine.length === 1 && isDeepStrictEqual(mine[0], desired)) return { entry: where, before, after: desired };
  const kept: unknown[] = [];
  for (const item of items) {
    const hooks = hooksOf(item);
    if (!hooks || !hooks.some(isOurs)) kept.push(item);
    else if (shape === 'groups' && hooks.some((h) => !isOurs(h))) kept.push({ ...(item as JsonObject), hooks: hooks.filter((h) => !isOurs(h)) });
  }
  if (desired !== undefined) kept.push(desired);
  if (container) {
    if (kept.length > 0) container[event] = kept;
    else {
      delete container[event];
      pruneEmpty(doc, keys);
    }
  }
  return { entry: where, before, after: desired ?? null };
}

/** A JSON (or JSON5) file's plan: the edits applied to its object; unchanged text when nothing of ours changed. */
export async function planJsonFile(file: string, format: 'json' | 'json5', edit: (doc: JsonObject) => EntryChange[], notes?: (doc: JsonObject) => string[]): Promise<FilePlan> {
  const before = await readText(file);
  const doc = parseConfig(file, before, format);
  const original = structuredClone(doc);
  const entries = edit(doc);
  const changed = !isDeepStrictEqual(original, doc);
  const after = changed ? `${JSON.stringify(doc, null, 2)}\n` : before;
  return { file, format, before, after, entries, ...(notes ? { notes: notes(original) } : {}) };
}

const TABLE_HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;

/** The dotted key of a table header, its parts unquoted (`mcp_servers."session-memory".env` -> [mcp_servers, session-memory, env]). */
function headerKeys(header: string): string[] {
  const parts: string[] = [];
  const pattern = /\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(?:\.|$)/gy;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(header)) !== null && match[0] !== '') {
    const part = match[1]!;
    parts.push(part.startsWith('"') ? (JSON.parse(part) as string) : part.startsWith("'") ? part.slice(1, -1) : part);
    if (pattern.lastIndex >= header.length) break;
  }
  return parts;
}

/**
 * Sets (or with `value` undefined, removes) the table `keys` of a TOML file, keeping every other
 * line as it is (comments too): our table and its sub-tables are cut out and written again at the
 * end. When the table is written some other way (inline, dotted keys), the whole file is written
 * again from its parsed form, comments lost (the backup keeps them).
 */
export async function planTomlTable(file: string, keys: readonly string[], value: JsonObject | undefined): Promise<FilePlan> {
  const before = await readText(file);
  const doc = parseConfig(file, before, 'toml');
  let current: unknown = doc;
  for (const key of keys) current = isObject(current) ? current[key] : undefined;
  const entry: EntryChange = { entry: keys.join('.'), before: current ?? null, after: value ?? null };
  if (sameData(current, value)) return { file, format: 'toml', before, after: before, entries: [entry] };

  const lines = (before ?? '').split(/\r?\n/);
  const kept: string[] = [];
  let inOurs = false;
  let cut: string[] = [];
  for (const line of lines) {
    const header = TABLE_HEADER.exec(line);
    if (header) {
      const parts = headerKeys(header[1]!);
      const ours = parts.length >= keys.length && keys.every((k, i) => parts[i] === k);
      // Comments right above the next table belong to it, not to ours.
      if (inOurs && !ours) {
        let start = cut.length;
        while (start > 0 && /^\s*(#.*)?$/.test(cut[start - 1]!)) start--;
        const moved = cut.slice(start);
        while (moved.length > 0 && moved[0]!.trim() === '' && (kept.length === 0 || kept[kept.length - 1]!.trim() === '')) moved.shift();
        kept.push(...moved);
      }
      if (ours && !inOurs) cut = [];
      inOurs = ours;
    }
    if (inOurs) cut.push(line);
    else kept.push(line);
  }
  while (kept.length > 0 && kept[kept.length - 1]!.trim() === '') kept.pop();
  let nested: JsonObject | undefined;
  if (value !== undefined) {
    nested = value;
    for (const key of [...keys].reverse()) nested = { [key]: nested };
  }
  const block = nested ? TOML.stringify(nested).trimEnd() : '';
  let after = [...kept, ...(block ? [...(kept.length > 0 ? [''] : []), block] : [])].join('\n') + '\n';
  // The cut must leave the rest of the file as it was and our table as asked; otherwise rewrite from the parse.
  if (!tableCutWorked(file, after, doc, keys, value)) {
    const whole = structuredClone(doc);
    removeAt(whole, keys);
    if (value !== undefined) containerAt(file, whole, keys.slice(0, -1), true)![keys[keys.length - 1]!] = value;
    after = TOML.stringify(whole);
  }
  return { file, format: 'toml', before, after, entries: [entry] };
}

/** Whether `after` parses to `doc` with only the table at `keys` changed to `value` (our table written some other way leaves a duplicate or a stale copy). */
function tableCutWorked(file: string, after: string, doc: JsonObject, keys: readonly string[], value: JsonObject | undefined): boolean {
  let check: JsonObject;
  try {
    check = parseConfig(file, after, 'toml');
  } catch {
    return false;
  }
  let written: unknown = check;
  for (const key of keys) written = isObject(written) ? written[key] : undefined;
  const rest = structuredClone(check);
  const expected = structuredClone(doc);
  removeAt(rest, keys);
  removeAt(expected, keys);
  // A table above ours that holds nothing else comes and goes with ours (`[mcp_servers.x]` makes
  // `mcp_servers`; cutting it out leaves none): not a change to the rest of the file.
  for (let depth = keys.length - 1; depth > 0; depth--) {
    const parent = keys.slice(0, depth);
    const [was, is] = [valueAt(expected, parent), valueAt(rest, parent)];
    if ((was === undefined && sameData(is, {})) || (is === undefined && sameData(was, {}))) {
      removeAt(rest, parent);
      removeAt(expected, parent);
    }
  }
  return sameData(written, value) && sameData(rest, expected);
}

function valueAt(doc: JsonObject, keys: readonly string[]): unknown {
  let node: unknown = doc;
  for (const key of keys) node = isObject(node) ? node[key] : undefined;
  return node;
}

/** Equal as data: TOML tables come with no prototype, which a strict comparison would call different. */
function sameData(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));
}

function removeAt(doc: JsonObject, keys: readonly string[]): void {
  let node: unknown = doc;
  for (const key of keys.slice(0, -1)) node = isObject(node) ? node[key] : undefined;
  if (isObject(node)) delete node[keys[keys.length - 1]!];
}

/** A file wholly ours (a hook's handler): written as given, or deleted when `content` is null. */
export async function planOwnFile(file: string, content: string | null, entry: string, ownFolder = false): Promise<FilePlan> {
  const before = await readText(file);
  return { file, format: 'text', before, after: content, entries: [{ entry, before: before === null ? null : file, after: content === null ? null : file }], ...(ownFolder ? { ownFolder } : {}) };
}

export function planChanges(plan: FilePlan): boolean {
  return plan.before !== plan.after;
}

/** `<file>.<UTC stamp>.bak` beside the file. */
export function backupName(file: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${file}.${stamp}.bak`;
}

/**
 * Writes the files that change: an existing configuration file is copied to its backup first,
 * then replaced through a temporary file beside it (a crash leaves the old or the new file, never
 * half of one), keeping its permissions. Returns the backups made, by file.
 */
export async function writePlans(plans: readonly FilePlan[], now = new Date()): Promise<Map<string, string>> {
  const backups = new Map<string, string>();
  for (const plan of plans) {
    if (!planChanges(plan)) continue;
    if (plan.after === null) {
      await fs.rm(plan.file, { force: true });
      if (plan.ownFolder) await fs.rmdir(path.dirname(plan.file)).catch(() => {});
      continue;
    }
    await fs.mkdir(path.dirname(plan.file), { recursive: true });
    let mode: number | undefined;
    if (plan.before !== null && plan.format !== 'text') {
      const backup = backupName(plan.file, now);
      await fs.copyFile(plan.file, backup);
      backups.set(plan.file, backup);
      mode = (await fs.stat(plan.file)).mode & 0o777;
    }
    const temporary = `${plan.file}.${process.pid}.tmp`;
    await fs.writeFile(temporary, plan.after, { encoding: 'utf8', ...(mode !== undefined ? { mode } : {}) });
    await fs.rename(temporary, plan.file);
  }
  return backups;
}
