/**
 * Which of the catalogue's sources exist on this machine, and what each holds: the files (or
 * databases) it would save, how many sessions, and when it last changed. Only names and sizes are
 * looked at, and the small files in which a tool names a folder it moved (LM Studio's home pointer,
 * Jan's settings): listing sources reads no conversation.
 */
import { promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { SOURCE_CATALOGUE, sourceId, type PlaceContext, type SourceKind, type SourcePick, type SourceRoot } from './catalogue.js';

export interface FoundFile {
  path: string;
  size: number;
  mtimeMs: number;
}

export interface FoundPick {
  pick: SourcePick;
  files: FoundFile[];
}

export interface FoundSource {
  id: string;
  kind: SourceKind;
  tool: string;
  path: string;
  picks: FoundPick[];
  /** Transcript files, databases and folders read as a whole, found. */
  sessions: number;
  /** The newest modification among them, ISO; null when the folder holds none yet. */
  lastModified: string | null;
}

export interface DiscoverOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
  /** Folders a person added for tools without a default place (aider), by tool id. */
  personFolders?: Record<string, string[]>;
  catalogue?: readonly SourceKind[];
}

export function placeContext(options: DiscoverOptions = {}): PlaceContext {
  const env = options.env ?? process.env;
  // HOME (USERPROFILE on Windows) first, so a test or a person can point every default place elsewhere.
  const home = options.home ?? (process.platform === 'win32' ? env.USERPROFILE : env.HOME) ?? os.homedir();
  return { env, platform: options.platform ?? process.platform, home };
}

/** The roots of every source of the catalogue, whether they exist or not. */
export function sourceRoots(options: DiscoverOptions = {}): Array<{ id: string; kind: SourceKind; root: SourceRoot }> {
  const context = placeContext(options);
  const out: Array<{ id: string; kind: SourceKind; root: SourceRoot }> = [];
  for (const kind of options.catalogue ?? SOURCE_CATALOGUE) {
    const roots = namedRoots([...kind.roots(context)], context.platform);
    (options.personFolders?.[kind.id] ?? []).forEach((folder, i) => roots.push({ path: path.resolve(folder), variant: String(i + 1) }));
    for (const root of roots) out.push({ id: sourceId(kind, root), kind, root });
  }
  return out;
}

/** The roots of one tool with those its own files name resolved (see `SourceRoot.namedIn`): a few bytes read, no conversation. */
function namedRoots(roots: SourceRoot[], platform: NodeJS.Platform): SourceRoot[] {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const same = (a: string, b: string) => {
    const [x, y] = [p.normalize(a).replace(/[\\/]+$/, ''), p.normalize(b).replace(/[\\/]+$/, '')];
    return platform === 'win32' || platform === 'darwin' ? x.toLowerCase() === y.toLowerCase() : x === y;
  };
  const resolved: SourceRoot[] = [];
  for (const root of roots) {
    if (!root.namedIn) {
      resolved.push(root);
      continue;
    }
    let content: string;
    try {
      content = readFileSync(root.namedIn.file, 'utf8');
    } catch {
      continue;
    }
    const folder = root.namedIn.folder(content);
    if (folder === undefined || roots.some((other) => !other.namedIn && same(other.path, folder))) continue;
    const { namedIn: _namedIn, ...rest } = root;
    resolved.push({ ...rest, path: folder });
  }
  return resolved;
}

/** Sources whose folder exists on this machine, with what they hold. */
export async function discoverSources(options: DiscoverOptions = {}): Promise<FoundSource[]> {
  const found: FoundSource[] = [];
  for (const { id, kind, root } of sourceRoots(options)) {
    if (!(await isFolder(root.path))) continue;
    const picks: FoundPick[] = [];
    for (const pick of root.picks ?? kind.picks) picks.push({ pick, files: await pickedFiles(root.path, pick) });
    const all = picks.flatMap((p) => p.files);
    if (root.onlyWhenFound && all.length === 0) continue;
    const newest = all.reduce((max, f) => Math.max(max, f.mtimeMs), 0);
    found.push({ id, kind, tool: kind.tool, path: root.path, picks, sessions: all.length, lastModified: newest > 0 ? new Date(newest).toISOString() : null });
  }
  return found;
}

/** The files (or folders, for a `folder` pick) a pick selects under a root, in name order. */
export async function pickedFiles(root: string, pick: SourcePick): Promise<FoundFile[]> {
  const folders = pick.kind === 'folder';
  const names = await glob(pick.globs, { cwd: root, ignore: pick.kind === 'files' ? (pick.ignore ?? []) : [], dot: true, onlyFiles: !folders, onlyDirectories: folders, followSymbolicLinks: false, absolute: true });
  names.sort();
  // A folder's pattern also matches what is inside it: a folder picked is read whole, so its subfolders are not picks of their own.
  if (folders) names.splice(0, names.length, ...names.filter((name, i) => !names.slice(0, i).some((outer) => name.startsWith(outer.endsWith('/') ? outer : `${outer}/`))));
  if (pick.kind === 'files' && pick.passOverBeside) {
    const listed = new Set(names);
    const passOver = pick.passOverBeside;
    names.splice(0, names.length, ...names.filter((name) => {
      const own = path.basename(name);
      const beside = passOver[own];
      // As the glob wrote it (forward slashes on every system): the name swapped in place.
      return beside === undefined || !listed.has(name.slice(0, name.length - own.length) + beside);
    }));
  }
  const files: FoundFile[] = [];
  for (const name of names) {
    try {
      const stat = await fs.stat(name);
      if (folders ? stat.isDirectory() : stat.isFile()) files.push({ path: path.normalize(name).replace(/[\\/]$/, ''), size: stat.size, mtimeMs: stat.mtimeMs });
    } catch {
      // Removed between the listing and the look: not there.
    }
  }
  return files;
}

async function isFolder(dir: string): Promise<boolean> {
  try {
    return (await fs.stat(dir)).isDirectory();
  } catch {
    return false;
  }
}
