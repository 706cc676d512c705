/** Checking the store against itself and the archive record, and recovering a damaged store. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { VerifyResult } from '../../../shared/domain.js';
import { isRemoteStore } from './connect.js';
import { readArchiveRecord } from '../record/archiveRecord.js';
import type { EngineContext } from '../context.js';
import { describeIoError } from '../errors.js';
import type { ChunkHead } from './store.js';

/**
 * Keeps every session that can still be read whole and drops the damaged data files from the
 * store (one new version); the sessions that could not be read are named so they can be saved again.
 */
async function repairDamagedStore(ctx: EngineContext, problems: string[]): Promise<VerifyResult> {
  const release = await ctx.lock();
  try {
    const recorded = (await readArchiveRecord(ctx.dataDir)).record;
    // What the rollback drops is copied first: nothing is deleted that cannot be handed back.
    const backup = await backUpStore(ctx);
    problems.push(`repair: the store as it was is kept in ${backup}`);
    const restored = await ctx.store.restoreNewestReadable();
    if (restored === null) {
      problems.push('repair: no earlier version of the store can be read whole; the store was left as it is (restore the data directory from a backup, or import the conversations into a new one)');
      return { ok: false, sessions: 0, messages: 0, chunks: 0, problems };
    }
    const after = await ctx.records.rebuild();
    problems.push(`repair: the store was rolled back to version ${restored}, its newest version that reads whole`);
    for (const [id, entry] of Object.entries(recorded?.sessions ?? {})) {
      const now = after.sessions[id]?.message_count ?? 0;
      if (now < entry.message_count) problems.push(`repair: session ${id} now holds ${now} of ${entry.message_count} messages; save or import it again to restore the rest`);
    }
    await ctx.records.write(after);
  } finally {
    await release();
  }
  const after = await verifyStore(ctx);
  return { ...after, ok: false, problems: [...problems, ...after.problems.map((p) => `after repair: ${p}`)] };
}

/** Copies the store's tables to `<data folder>/backups/repair-<time>/` and returns that folder. */
async function backUpStore(ctx: EngineContext): Promise<string> {
  const target = path.join(ctx.dataDir, 'backups', `repair-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await fs.mkdir(target, { recursive: true });
  // A remote store (an object-store URI) is not copied here; its provider keeps versions.
  if (!ctx.store.uri.includes('://')) await fs.cp(ctx.store.uri, path.join(target, path.basename(ctx.store.uri)), { recursive: true });
  return target;
}

/** Checks the store against itself and the archive record; `repair` rebuilds the record from the store. */
export async function verifyStore(ctx: EngineContext, options: { repair?: boolean } = {}): Promise<VerifyResult> {
  const problems: string[] = [];
  const bySession = new Map<string, ChunkHead[]>();
  const chunkSeen = new Set<string>();
  let chunks = 0;
  const damaged = await ctx.store.damagedFiles();
  problems.push(...damaged.map((p) => `store: ${p}`));
  const scan = async () => {
    for await (const heads of ctx.store.allHeads()) {
      for (const head of heads) {
        chunks++;
        if (chunkSeen.has(head.chunkId)) problems.push(`chunk ${head.chunkId} is stored more than once`);
        chunkSeen.add(head.chunkId);
        const list = bySession.get(head.sessionId) ?? [];
        list.push(head);
        bySession.set(head.sessionId, list);
      }
    }
  };
  const problemsBefore = problems.length;
  try {
    try {
      await scan();
    } catch {
      problems.length = problemsBefore;
      // Another process may have compacted the version this one was reading: read again, once, from
      // the newest version before calling it damage.
      bySession.clear();
      chunkSeen.clear();
      chunks = 0;
      await ctx.store.refresh();
      await scan();
    }
  } catch (error) {
    problems.push(`store: cannot be read whole (${describeIoError(error, 'read').message.replace(/^read: /, '').slice(0, 240)})`);
    if (options.repair) return repairDamagedStore(ctx, problems);
    return { ok: false, sessions: 0, messages: 0, chunks: 0, problems };
  }
  if (damaged.length > 0 && options.repair) return repairDamagedStore(ctx, problems);
  let messages = 0;
  for (const [sessionId, heads] of bySession) {
    const owner = new Map<string, string>();
    for (const head of heads) {
      for (const m of head.owned) {
        messages++;
        const first = owner.get(m.msgId);
        if (first) problems.push(`session ${sessionId}: message ${m.msgId} is stored twice (chunks ${first} and ${head.chunkId})`);
        else owner.set(m.msgId, head.chunkId);
        if (!head.msgIds.includes(m.msgId)) problems.push(`session ${sessionId}: chunk ${head.chunkId} keeps message ${m.msgId} but does not list it`);
      }
    }
    for (const head of heads) {
      for (const id of head.msgIds) if (!owner.has(id)) problems.push(`session ${sessionId}: chunk ${head.chunkId} refers to message ${id}, which is not stored`);
    }
  }
  const read = await readArchiveRecord(ctx.dataDir);
  // A shared store's record is this machine's cache: missing before its first save, stale after
  // another machine's, and rebuilt on next use either way. Only a current one can be wrong.
  const cacheOnly = isRemoteStore(ctx.store.uri) && (!read.record || read.record.storeVersion !== (await ctx.store.version()));
  if (cacheOnly) {
    // Nothing to compare.
  } else if (!read.record) {
    if (bySession.size > 0) problems.push(`archive record: ${read.problem}`);
  } else {
    const version = await ctx.store.version();
    if (read.record.storeVersion !== version) problems.push(`archive record: describes store version ${read.record.storeVersion}, the store is at ${version}`);
    const fromStore = await ctx.records.rebuild();
    for (const [id, entry] of Object.entries(fromStore.sessions)) {
      const kept = read.record.sessions[id];
      if (!kept) problems.push(`archive record: session ${id} is stored but not recorded`);
      else if (kept.fingerprint !== entry.fingerprint || kept.chunk_count !== entry.chunk_count) problems.push(`archive record: session ${id} does not match the store`);
    }
    for (const id of Object.keys(read.record.sessions)) if (!fromStore.sessions[id]) problems.push(`archive record: session ${id} is recorded but not stored`);
  }
  if (options.repair && problems.length > 0) {
    await ctx.records.write(await ctx.records.rebuild());
  }
  return { ok: problems.length === 0, sessions: bySession.size, messages, chunks, problems };
}
