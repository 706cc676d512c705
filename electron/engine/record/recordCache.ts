/**
 * The archive record as the engine uses it: read once and kept while no other process replaces it,
 * checked against the store's version, and rebuilt from the store (the source of truth) when it is
 * missing, unreadable or stale.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FORK_MIN_SHARED, type ArchiveEntry } from '../../../shared/domain.js';
import { isRemoteStore } from '../store/connect.js';
import { assertWriteLock } from '../files/writeLock.js';
import { appendArchiveRecord, ARCHIVE_JOURNAL_FILE, ARCHIVE_RECORD_FILE, fileIdentity, readArchiveRecord, writeArchiveRecord, type ArchiveRecord, type RecordChange, type RecordOnDisk } from './archiveRecord.js';
import type { Logger } from '../files/logger.js';
import { sortById } from '../save/diff.js';
import { messageSetFingerprint } from '../save/hashing.js';
import { inChunkOrder, type ChunkHead, type ChunkStore } from '../store/store.js';
import { sqlIn } from '../store/storeRows.js';
import { testSwitch } from '../files/testSwitches.js';

/**
 * Records of at least this many bytes take a save's changes in the journal (archiveRecord.ts); smaller
 * ones are written whole, which costs about as little.
 */
export const RECORD_JOURNAL_FROM_BYTES = 64 * 1024;

/** The journal is folded into the record once it holds this share of the record's size, or JOURNAL_FOLD_BYTES if more. */
const JOURNAL_SHARE = 0.5;
const JOURNAL_FOLD_BYTES = 64 * 1024;

/** What this process knows to be on disk: the file it read or wrote, with copies of its entries. */
interface KnownOnDisk {
  at: RecordOnDisk;
  /** The entries as written, copied: the save pipeline changes the record's entries in place. */
  entries: Map<string, ArchiveEntry>;
}

export class RecordCache {
  /**
   * `unwritten`: rebuilt by a reader without the lock; the next locked load writes it. `disk`: what
   * the files hold, when the record is exactly what they hold (read, or written by this process).
   */
  private cached: { stamp: string; record: ArchiveRecord; unwritten?: boolean; disk?: KnownOnDisk } | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly store: ChunkStore,
    private readonly logger: Logger,
    /** Forks, kept in the store's state (forks.ts): a record rebuilt from the store keeps them. */
    private readonly forks: () => Promise<Map<string, NonNullable<ArchiveEntry['fork_of']>>> = async () => new Map(),
    private readonly journalFromBytes = RECORD_JOURNAL_FROM_BYTES,
  ) {}

  /** Writes the record whole (and drops the journal): after a rebuild, a forget, a repair. */
  async write(record: ArchiveRecord): Promise<void> {
    assertWriteLock(this.dataDir);
    this.cached = null;
    const at = await writeArchiveRecord(this.dataDir, record);
    this.cached = { stamp: await recordStamp(this.dataDir), record, disk: { at, entries: copyEntries(record) } };
  }

  /**
   * Writes the record a save changed: only the entries that changed since it was read, appended to
   * the journal, when the record is large; whole when it is small, when the journal has grown to its
   * share, and when an entry went or a title changed (so that the journal keeps no trace of them).
   */
  async writeSaved(record: ArchiveRecord): Promise<void> {
    assertWriteLock(this.dataDir);
    const known = this.cached?.record === record && !this.cached.unwritten ? this.cached.disk : undefined;
    const change = known ? this.changeSince(known, record) : null;
    if (!known || !change) return this.write(record);
    this.cached = null;
    let at: RecordOnDisk;
    try {
      at = await appendArchiveRecord(this.dataDir, known.at, change);
    } catch (error) {
      // The journal removed since it was read, or refusing the line: the record is written whole, which drops it.
      this.logger.warn(`could not append to the archive record's journal (${(error as Error).message}); writing the record whole`);
      return this.write(record);
    }
    for (const sessionId of Object.keys(change.set ?? {})) known.entries.set(sessionId, copyEntry(record.sessions[sessionId]!));
    this.cached = { stamp: await recordStamp(this.dataDir), record, disk: { at, entries: known.entries } };
  }

  /** The journal line that brings what is on disk to `record`; null when the record is to be written whole. */
  private changeSince(known: KnownOnDisk, record: ArchiveRecord): RecordChange | null {
    const { at } = known;
    if (at.bytes < this.journalFromBytes || at.torn) return null;
    if ((at.journalEnd ?? 0) > Math.max(at.bytes * JOURNAL_SHARE, JOURNAL_FOLD_BYTES)) return null;
    const set: Record<string, ArchiveEntry> = {};
    let kept = 0;
    for (const [sessionId, entry] of Object.entries(record.sessions)) {
      const before = known.entries.get(sessionId);
      if (before) kept++;
      if (before && sameEntry(before, entry)) continue;
      if (before && before.title !== entry.title) return null;
      set[sessionId] = entry;
    }
    if (kept < known.entries.size) return null;
    return {
      storeVersion: record.storeVersion,
      writesSinceOptimize: record.writesSinceOptimize,
      ...(record.newestChunkAt !== undefined ? { newestChunkAt: record.newestChunkAt } : {}),
      set,
    };
  }

  /**
   * The archive record, checked against the store. A missing, unreadable or stale record is
   * rebuilt from the store (the source of truth) and the rebuild is reported. The rebuilt record is
   * written only by a caller that holds the write lock (`locked`): listings, previews and dry runs
   * keep it in memory, so that they never race a writer's record.
   */
  async load(warnings: string[] = [], options: { locked?: boolean } = {}): Promise<ArchiveRecord> {
    const version = await this.store.version();
    // A long-running process re-reads the record only when another process has replaced it.
    const stamp = await recordStamp(this.dataDir);
    if (this.cached && stamp === this.cached.stamp && this.cached.record.storeVersion === version) {
      if (this.cached.unwritten && options.locked) await this.writeRebuilt(this.cached.record);
      return this.cached.record;
    }
    // What this process knew (a record it rebuilt without the lock is in memory only).
    const previous = this.cached?.record ?? null;
    this.cached = null;
    const read = await readArchiveRecord(this.dataDir);
    if (read.record && read.record.storeVersion === version) {
      this.cached = { stamp, record: read.record, disk: { at: read.disk, entries: copyEntries(read.record) } };
      return read.record;
    }
    // A shared store changed by other machines: read what they wrote since, not every chunk.
    const known = [read.record, previous].reduce<ArchiveRecord | null>((best, r) => (r && (!best || r.storeVersion > best.storeVersion) ? r : best), null);
    const caught = known && isRemoteStore(this.store.uri) ? await this.catchUp(known, version) : null;
    if (caught) {
      this.logger.info(`caught up with saves of other machines: ${caught.sessions} session(s) changed since store version ${known!.storeVersion}`);
      if (!options.locked) {
        this.cached = { stamp, record: caught.record, unwritten: true };
        return caught.record;
      }
      await this.writeRebuilt(caught.record);
      return caught.record;
    }
    const why = read.record ? `the archive record describes store version ${read.record.storeVersion}, the store is at ${version}` : read.problem;
    const rebuilt = await this.rebuild(version);
    const hadData = Object.keys(rebuilt.sessions).length > 0 || read.record !== null;
    if (hadData) {
      const message = `${why}; rebuilt it from the store (${Object.keys(rebuilt.sessions).length} sessions)`;
      // On a shared store another machine's save, or this machine's first use, makes the record stale: routine, not a warning.
      if (isRemoteStore(this.store.uri)) {
        this.logger.info(message);
      } else {
        warnings.push(message);
        this.logger.warn(message);
      }
    }
    if (!options.locked) {
      // Kept for this process while the file and the store stay as they are; a writer replaces both.
      this.cached = { stamp, record: rebuilt, unwritten: true };
      return rebuilt;
    }
    await this.writeRebuilt(rebuilt);
    return rebuilt;
  }

  private async writeRebuilt(record: ArchiveRecord): Promise<void> {
    try {
      await this.write(record);
    } catch (error) {
      this.logger.warn(`could not write the rebuilt archive record: ${(error as Error).message}`);
    }
  }

  /**
   * The record the store's chunks give, at `version` (read before the scan: a commit that lands
   * during the scan then makes the record stale, never wrongly current).
   */
  async rebuild(version?: number): Promise<ArchiveRecord> {
    const storeVersion = version ?? (await this.store.version());
    const heads: ChunkHead[] = [];
    for await (const batch of this.store.allHeads()) heads.push(...batch);
    return this.rebuildFrom(heads, storeVersion);
  }

  /**
   * The record brought up to `version` by reading only the chunks created since the newest one it
   * knows (less CLOCK_SKEW_MS, for machines whose clocks differ) and the whole of the sessions they
   * belong to. Chunks that only went (a forget, a sync of deletions) leave the count of rows short of
   * the record's: then null, and the caller rebuilds from every chunk. Null too for a record from
   * before `newestChunkAt`.
   */
  private async catchUp(known: ArchiveRecord, version: number): Promise<{ record: ArchiveRecord; sessions: number } | null> {
    if (known.newestChunkAt === undefined) return null;
    const rows = await this.store.countChunks();
    const skew = Number(testSwitch('SESSION_MEMORY_TEST_CLOCK_SKEW_MS') ?? CLOCK_SKEW_MS);
    const fresh = await this.store.headsWhere(`created_at > ${known.newestChunkAt - skew}`);
    const touched = [...new Set(fresh.map((h) => h.sessionId))];
    const heads = touched.length > 0 ? await this.store.headsWhere(sqlIn('session_id', touched)) : [];
    const metas = touched.length > 0 ? await this.store.sessionMetas() : new Map();
    const forks = await this.forks();
    const sessions = { ...known.sessions };
    const bySession = groupBySession(heads);
    for (const sessionId of touched) {
      const own = bySession.get(sessionId);
      if (!own) {
        delete sessions[sessionId];
        continue;
      }
      const meta = metas.get(sessionId);
      sessions[sessionId] = archiveEntry(sessionId, inChunkOrder(own), known.sessions[sessionId], { title: meta?.title, source: meta?.source, parentSessionId: meta?.parentSessionId || undefined });
      sessions[sessionId]!.last_saved_at = new Date(own.reduce((max, h) => Math.max(max, h.createdAt), 0)).toISOString();
    }
    for (const entry of Object.values(sessions)) {
      const fork = forks.get(entry.session_id);
      if (fork) entry.fork_of = fork;
      else delete entry.fork_of;
    }
    if (Object.values(sessions).reduce((sum, e) => sum + e.chunk_count, 0) !== rows) return null;
    const newest = fresh.reduce((max, h) => Math.max(max, h.createdAt), known.newestChunkAt);
    return { record: { ...known, storeVersion: version, newestChunkAt: newest, sessions }, sessions: touched.length };
  }

  private async rebuildFrom(allHeads: readonly ChunkHead[], storeVersion: number): Promise<ArchiveRecord> {
    const bySession = groupBySession(allHeads);
    const metas = await this.store.sessionMetas();
    const forks = await this.forks();
    const sessions: Record<string, ArchiveEntry> = {};
    for (const [sessionId, unordered] of bySession) {
      const heads = inChunkOrder(unordered);
      const meta = metas.get(sessionId);
      sessions[sessionId] = archiveEntry(sessionId, heads, undefined, { title: meta?.title, source: meta?.source, parentSessionId: meta?.parentSessionId || undefined });
      const fork = forks.get(sessionId);
      if (fork) sessions[sessionId]!.fork_of = fork;
    }
    const newestChunkAt = allHeads.reduce((max, h) => Math.max(max, h.createdAt), 0);
    return { format: 1, storeVersion, writesSinceOptimize: 0, newestChunkAt, sessions };
  }
}

/**
 * How far apart the clocks of machines sharing a store may be: a catch-up reads the chunks created
 * up to this long before the newest one the record knows, so that a chunk stamped by a slower clock
 * is not missed.
 */
const CLOCK_SKEW_MS = 10 * 60_000;

function groupBySession(heads: readonly ChunkHead[]): Map<string, ChunkHead[]> {
  const bySession = new Map<string, ChunkHead[]>();
  for (const head of heads) {
    const list = bySession.get(head.sessionId);
    if (list) list.push(head);
    else bySession.set(head.sessionId, [head]);
  }
  return bySession;
}

/**
 * Identifies one version of the record and its journal: the record is replaced by rename, so a new
 * write changes its inode or modification time; an append changes the journal's size.
 */
async function recordStamp(dataDir: string): Promise<string> {
  const identity = async (name: string) => {
    try {
      return fileIdentity(await fs.stat(path.join(dataDir, name), { bigint: true }));
    } catch {
      return 'missing';
    }
  };
  return `${await identity(ARCHIVE_RECORD_FILE)}|${await identity(ARCHIVE_JOURNAL_FILE)}`;
}

function copyEntry(entry: ArchiveEntry): ArchiveEntry {
  return { ...entry, msg_range: [...entry.msg_range] as ArchiveEntry['msg_range'], ...(entry.fork_of ? { fork_of: { ...entry.fork_of } } : {}) };
}

function copyEntries(record: ArchiveRecord): Map<string, ArchiveEntry> {
  return new Map(Object.entries(record.sessions).map(([sessionId, entry]) => [sessionId, copyEntry(entry)]));
}

/** The entry's plain members, every one but `msg_range` and `fork_of` (compared apart): the type check below keeps the list whole. */
const PLAIN_MEMBERS = ['session_id', 'title', 'source', 'parent_session_id', 'archived_at', 'last_saved_at', 'message_count', 'chunk_count', 'fingerprint', 'input_fingerprint', 'input_total', 'head_key'] as const;
const everyMember: Exclude<keyof ArchiveEntry, (typeof PLAIN_MEMBERS)[number] | 'msg_range' | 'fork_of'> extends never ? true : never = true;
void everyMember;

/** Whether two entries are equal, member by member (a thousand of them at each save: no serialising). */
function sameEntry(a: ArchiveEntry, b: ArchiveEntry): boolean {
  for (const member of PLAIN_MEMBERS) if (a[member] !== b[member]) return false;
  if (a.msg_range.length !== b.msg_range.length || a.msg_range[0] !== b.msg_range[0] || a.msg_range[1] !== b.msg_range[1]) return false;
  return a.fork_of?.session_id === b.fork_of?.session_id && a.fork_of?.shared_messages === b.fork_of?.shared_messages;
}

/** The record's entry for a session holding these chunks. */
export function archiveEntry(sessionId: string, heads: readonly ChunkHead[], previous: ArchiveEntry | undefined, meta: { title?: string; source?: string; parentSessionId?: string } = {}): ArchiveEntry {
  const messages = heads.flatMap((h) => h.owned).sort((a, b) => a.seq - b.seq || a.msgId.localeCompare(b.msgId));
  const now = new Date().toISOString();
  const times = heads.map((h) => h.createdAt);
  const created = times.length > 0 ? new Date(times.reduce((a, b) => Math.min(a, b))).toISOString() : now;
  const t = meta.title ?? previous?.title;
  const s = meta.source ?? previous?.source;
  const parent = meta.parentSessionId ?? previous?.parent_session_id;
  return {
    session_id: sessionId,
    ...(t ? { title: t } : {}),
    ...(s ? { source: s } : {}),
    ...(parent ? { parent_session_id: parent } : {}),
    archived_at: previous?.archived_at ?? created,
    last_saved_at: previous ? now : times.length > 0 ? new Date(times.reduce((a, b) => Math.max(a, b))).toISOString() : now,
    message_count: messages.length,
    chunk_count: heads.length,
    msg_range: messages.length > 0 ? [messages[0]!.msgId, messages[messages.length - 1]!.msgId] : [],
    fingerprint: messageSetFingerprint(sortById(messages)),
    ...(messages.length >= FORK_MIN_SHARED ? { head_key: messages.slice(0, FORK_MIN_SHARED).map((m) => m.contentHash).join(',') } : {}),
    ...(previous?.fork_of ? { fork_of: previous.fork_of } : {}),
  };
}
