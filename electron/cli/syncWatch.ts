/**
 * `sync --watch`: after the first sync, follows every source: file events on their folders (a log
 * is saved as it grows), a poll of their databases, and saves handed over by hooks (see
 * sources/handoff.ts), all in one queue so saves never overlap. Follows until `stop` is aborted
 * (Ctrl-C, see stopRequests.ts): then the hooks' socket and its token go first (a hook whose save
 * was not finished saves on its own), the save under way ends at a safe point, the watcher closes.
 */
import path from 'node:path';
import { isDynamicPattern } from 'tinyglobby';
import { reportJson, type Io } from './support.js';
import type { FoundSource } from '../sources/discover.js';
import { pickedFiles } from '../sources/discover.js';
import { followFiles } from '../sources/follow.js';
import { serveHandoff } from '../sources/handoff.js';
import { syncFile, type SyncOptions } from '../sources/sync.js';
import { whenAborted } from './stopRequests.js';

export interface FollowSettings {
  debounceMs: number;
  pollMs: number;
  json: boolean;
  io: Io;
  /** Aborted to stop following; `options.signal` should be the same, so that a save under way ends early. */
  stop: AbortSignal;
}

export async function followSources(dataDir: string, sources: FoundSource[], options: SyncOptions, settings: FollowSettings): Promise<void> {
  const followed = (pick: FoundSource['picks'][number]['pick']) => pick.imports && pick.kind !== 'database';
  const fileSources = sources.filter((s) => s.picks.some((p) => followed(p.pick)));
  const inside = (file: string, folder: string) => file === folder || file.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
  const ownersOf = (file: string) => fileSources.filter((s) => inside(file, s.path));
  // A source whose picks are named files (aider's log in the home folder) is followed by those files, not its whole folder.
  const watched = fileSources.flatMap((s) => {
    const globs = s.picks.filter((p) => followed(p.pick)).flatMap((p) => p.pick.globs);
    return globs.some((g) => isDynamicPattern(g)) ? [s.path] : globs.map((g) => path.join(s.path, g));
  });

  const follower = followFiles({
    dirs: [...new Set(watched)],
    debounceMs: settings.debounceMs,
    accept: (file) => ownersOf(file).length > 0,
    // A folder no followed pick reaches (OpenClaw's `agents/<id>/agent/`, whose database makes and
    // removes its log files at each read) is not watched.
    outside: (file) => {
      const owners = ownersOf(file);
      return owners.length > 0 && owners.every((s) => !s.picks.some((p) => followed(p.pick) && pickMayHold(p.pick, path.relative(s.path, file))));
    },
    // aider's log is a hidden file; other hidden files and folders are not followed.
    hiddenAllowed: (file) => file.endsWith('.aider.chat.history.md'),
    onChange: async (file) => {
      for (const source of ownersOf(file)) {
        for (const { pick } of source.picks) {
          if (!followed(pick)) continue;
          // The picks' globs decide, as for the first sync: a file is saved when the source would list it,
          // a folder read as a whole when a file in it changed.
          const picked = await pickedFiles(source.path, pick);
          const unit = pick.kind === 'folder' ? picked.find((f) => inside(file, f.path)) : picked.find((f) => f.path === file);
          if (unit) {
            await syncFile(source.id, unit.path, pick.kind, options, undefined, pick.kind !== 'folder' && pick.mayHoldNone === true);
            return;
          }
        }
      }
    },
  });

  // Databases are written through a log beside them (SQLite's WAL), whose events are unreliable across systems: polled.
  const poll = setInterval(() => {
    void follower.enqueue(async () => {
      for (const source of sources) {
        for (const { pick } of source.picks) {
          if (!pick.imports || pick.kind !== 'database') continue;
          for (const db of await pickedFiles(source.path, pick)) await syncFile(source.id, db.path, 'database', options, undefined, pick.mayHoldNone === true);
        }
      }
    });
  }, settings.pollMs);

  const server = await serveHandoff(dataDir, (request, reply) =>
    follower.enqueue(async () => {
      await syncFile('hook', request.file, 'files', {
        ...options,
        ...(request.include ? { include: request.include } : {}),
        onReport: (source, file, report) => {
          options.onReport(source, file, report);
          reply({ report: { source, file, ...reportJson(report) } });
        },
        onError: (source, file, message) => {
          options.onError(source, file, message);
          reply({ error: message, file });
        },
      });
    }).then(() => true),
    // A saver a hook left running gives way.
    { takeOver: true },
  ).catch((error: unknown) => {
    settings.io.err(`session-memory: hooks cannot hand saves to this process (${error instanceof Error ? error.message : String(error)}); they save on their own`);
    return null;
  });

  const stopped = whenAborted(settings.stop);
  await Promise.race([follower.ready, stopped]);
  if (!settings.stop.aborted && !settings.json) settings.io.err(`following ${sources.length} source${sources.length === 1 ? '' : 's'} (Ctrl-C to stop)`);
  await stopped;
  clearInterval(poll);
  // Closed before the queue ends: a hook is told nothing more (no "done"), so a save it handed
  // over and that the stop cut short is saved by the hook itself.
  const closing = server?.close();
  await follower.close();
  await closing;
}

/**
 * Whether `relative` (a path below the source's folder) can be, or lead to, a file or folder the
 * pick's globs match: each of its parts matches the glob's part at the same depth. A part the
 * simple reading below does not understand (braces, classes, escapes), or a `**`, matches anything,
 * so that a doubt keeps a path followed.
 */
export function pickMayHold(pick: { kind: string; globs: string[] }, relative: string): boolean {
  if (relative === '') return true;
  const parts = relative.split(/[\\/]/);
  return pick.globs.some((glob) => {
    const globParts = glob.split('/');
    for (let i = 0; i < parts.length; i++) {
      const globPart = globParts[i];
      // Deeper than the glob: inside a folder it picks (read whole), or not a pick at all.
      if (globPart === undefined) return pick.kind === 'folder';
      if (globPart === '**' || !/^[\w.*?@+-]*$/.test(globPart)) return true;
      if (!partPattern(globPart).test(parts[i]!)) return false;
    }
    return true;
  });
}

const partPatterns = new Map<string, RegExp>();

function partPattern(globPart: string): RegExp {
  const known = partPatterns.get(globPart);
  if (known) return known;
  const source = globPart.replace(/[.+@]/g, (c) => `\\${c}`).replace(/\*/g, '[^/\\\\]*').replace(/\?/g, '[^/\\\\]');
  const pattern = new RegExp(`^${source}$`);
  partPatterns.set(globPart, pattern);
  return pattern;
}
