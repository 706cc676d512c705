/**
 * Near-duplicate review: the same or nearly the same text stored by different sessions is listed as
 * a cluster, kept up to date by every save (of this process or another), without branches of one
 * conversation, with dismissals that stay, and healed when a save's check or the sketch was lost.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { SessionInput } from '../shared/domain.js';
import { NEAR_DUPLICATES_FILE } from '../electron/engine/duplicates/nearDuplicates.js';
import { PairJournal } from '../electron/engine/duplicates/pairJournal.js';
import { SKETCH_FILE } from '../electron/engine/duplicates/vectorSketch.js';
import { LOCK_FILE } from '../electron/engine/files/writeLock.js';
import { CANDIDATE_READS_PER_CHUNK, CANDIDATES_PER_CHUNK } from '../electron/engine/duplicates/nearestChunks.js';
import { conversation, engineTestBed } from './helpers/engine.js';

const bed = engineTestBed();

function fresh(options: { nearDuplicates?: boolean } = {}) {
  const dir = bed.dataDir();
  return { dir, open: (more: { nearDuplicates?: boolean } = {}) => bed.open(dir, { ...options, ...more }) };
}

/** Openings of the excerpts, unlike each other and unlike `conversation()`. */
const INTROS: Record<string, string[]> = {
  C: ['Before we start: which film would suit a rainy Friday evening?', 'A slow, warm comedy would fit a long week well.'],
  D: ['Quick one about my cat: she ignores the new scratching post.', 'Rub some catnip on it and put it beside her favourite sofa corner.'],
};

/** Messages `from`..`to` of `source` under new ids and another session id (not a branch: it does not start the same way). */
function excerpt(source: SessionInput, sessionId: string, from: number, to: number, edit: (text: string) => string = (t) => t): SessionInput {
  return {
    sessionId,
    title: `Excerpt ${sessionId}`,
    messages: [
      ...INTROS[sessionId]!.map((content, i) => ({ msgId: `${sessionId}-intro-${i}`, role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content })),
      ...source.messages.slice(from, to).map((m, i) => ({ msgId: `${sessionId}-${i}`, role: m.role, content: edit(m.content) })),
    ],
  };
}

const original = conversation(40, { sessionId: 'A' });

/** A conversation that shares nothing with `conversation()`'s templates. */
const unrelated = (sessionId: string): SessionInput => ({
  sessionId,
  title: `Unrelated ${sessionId}`,
  messages: [
    { msgId: `${sessionId}-1`, role: 'user', content: 'My bicycle chain keeps slipping on the smallest rear cog. What usually causes that?' },
    { msgId: `${sessionId}-2`, role: 'assistant', content: 'A worn chain or cassette is the usual culprit; measure the chain stretch first, then check the derailleur hanger alignment.' },
    { msgId: `${sessionId}-3`, role: 'user', content: 'The hanger looks bent. Can I straighten it myself without the special tool?' },
    { msgId: `${sessionId}-4`, role: 'assistant', content: 'Carefully, yes, but an alignment gauge makes it far more precise; a replacement hanger is cheap if it cracks.' },
  ],
});
const sessionsOf = (listing: { clusters: Array<{ chunks: Array<{ sessionId: string }> }> }) => listing.clusters.map((c) => [...new Set(c.chunks.map((x) => x.sessionId))].sort());

describe('near-duplicate review', () => {
  it('lists copies across sessions, exact and nearly exact, with texts and titles, and each save says how many it made', async () => {
    const { open } = fresh();
    const engine = await open();
    expect((await engine.save(original)).nearDuplicates).toBe(0);
    // C copies messages 10-19 word for word, D copies 20-29 with a word changed in each.
    const exact = await engine.save(excerpt(original, 'C', 10, 20));
    expect(exact.nearDuplicates).toBeGreaterThan(0);
    const near = await engine.save(excerpt(original, 'D', 20, 30, (t) => t.replace('steady', 'stable')));
    expect(near.nearDuplicates).toBeGreaterThan(0);
    // An unrelated conversation makes none.
    expect((await engine.save(unrelated('E'))).nearDuplicates).toBe(0);

    const listing = await engine.duplicates();
    expect(listing.threshold).toBe(0.95);
    expect(listing.total).toBe(listing.clusters.length);
    expect(sessionsOf(listing).every((s) => s.length === 2 && s[0] === 'A' && (s[1] === 'C' || s[1] === 'D'))).toBe(true);
    const exactClusters = listing.clusters.filter((c) => c.chunks.some((x) => x.sessionId === 'C'));
    const nearClusters = listing.clusters.filter((c) => c.chunks.some((x) => x.sessionId === 'D'));
    expect(exactClusters.length).toBeGreaterThan(0);
    expect(nearClusters.length).toBeGreaterThan(0);
    for (const c of exactClusters) {
      expect(c.similarity).toBe(1);
      expect(new Set(c.chunks.map((x) => x.text)).size).toBe(1);
    }
    for (const c of nearClusters) {
      expect(c.similarity).toBeGreaterThanOrEqual(0.95);
      expect(c.similarity).toBeLessThan(1);
      const [a, d] = [c.chunks.find((x) => x.sessionId === 'A')!, c.chunks.find((x) => x.sessionId === 'D')!];
      expect(d.text).toContain('stable');
      expect(a.text).toBe(d.text.replaceAll('stable', 'steady'));
      expect(d.sessionTitle).toBe('Excerpt D');
    }
    // Most similar first; --limit cuts the list, not the total.
    expect(listing.clusters.map((c) => c.similarity)).toEqual([...listing.clusters.map((c) => c.similarity)].sort((x, y) => y - x));
    const one = await engine.duplicates({ limit: 1 });
    expect(one.clusters).toHaveLength(1);
    expect(one.total).toBe(listing.total);
    // A threshold at the top keeps only the exact copies.
    expect(sessionsOf(await engine.duplicates({ threshold: 1 })).every((s) => s[1] === 'C')).toBe(true);
    await expect(engine.duplicates({ threshold: 0.5 })).rejects.toThrow(/between 0.9 and 1/);
    await engine.close();
  });

  it('leaves out the shared history of a branch, but not what a branch copies from elsewhere', async () => {
    const { open } = fresh();
    const engine = await open();
    await engine.save(original);
    const branch: SessionInput = { sessionId: 'B', title: 'Branch', messages: [...original.messages.slice(0, 30).map(({ role, content }) => ({ role, content })), ...conversation(6, { start: 500 }).messages] };
    const report = await engine.save(branch);
    expect(report.sharedMessages).toBe(30);
    expect(report.nearDuplicates).toBe(0);
    expect((await engine.duplicates()).total).toBe(0);
    // A third session copying part of A is listed with A, and the branch's copy of the same text with them.
    await engine.save(excerpt(original, 'C', 10, 20));
    const listing = await engine.duplicates();
    expect(listing.total).toBeGreaterThan(0);
    for (const c of listing.clusters) expect(c.chunks.some((x) => x.sessionId === 'C')).toBe(true);
    await engine.close();
  });

  it('a dismissed cluster stays dismissed across restarts; forgetting or editing a copy removes its clusters', async () => {
    const { dir, open } = fresh();
    let engine = await open();
    await engine.save(original);
    await engine.save(excerpt(original, 'C', 10, 20));
    await engine.save(excerpt(original, 'D', 20, 30));
    const before = await engine.duplicates();
    const target = before.clusters[0]!;
    expect(await engine.dismissDuplicates(target.id)).toEqual({ dismissed: target.chunks.length });
    await expect(engine.dismissDuplicates('no-such-cluster')).rejects.toThrow(/no near-duplicate cluster/);
    await engine.close();
    engine = await open();
    const after = await engine.duplicates();
    expect(after.total).toBe(before.total - 1);
    expect(after.dismissed).toBe(1);
    expect(after.clusters.map((c) => c.id)).not.toContain(target.id);
    expect((await engine.duplicates({ includeDismissed: true })).clusters.find((c) => c.id === target.id)?.dismissed).toBe(true);

    // Forget D: its clusters go. Overwrite C with other text: its clusters go too.
    const forgotten = (await engine.showSession('D')).chunks.map((c) => c.chunkId);
    expect(forgotten.some((id) => readFileSync(path.join(dir, SKETCH_FILE)).includes(Buffer.from(id)))).toBe(true);
    await engine.forget(['D']);
    // The files keep no trace of a forgotten session, not even in their history, before the list is read again.
    const lines = readFileSync(path.join(dir, NEAR_DUPLICATES_FILE), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const kept = JSON.parse(lines[0]!) as { checked: Record<string, string>; pairs: Array<{ as: string; bs: string }> };
    expect(Object.keys(kept.checked).sort()).toEqual(['A', 'C']);
    expect(kept.pairs.some((p) => p.as === 'D' || p.bs === 'D')).toBe(false);
    const sketch = readFileSync(path.join(dir, SKETCH_FILE));
    expect(forgotten.filter((id) => sketch.includes(Buffer.from(id)) || lines[0]!.includes(id))).toEqual([]);
    expect(sessionsOf(await engine.duplicates()).every((s) => s[1] === 'C')).toBe(true);
    await engine.save(unrelated('C'), { mode: 'overwrite' });
    expect((await engine.duplicates()).total).toBe(0);
    await engine.close();
  });

  it('a cluster keeps its id at every threshold that lists it, and is dismissed by that id whatever the threshold', async () => {
    const { dir, open } = fresh();
    const engine = await open();
    await engine.save(original);
    await engine.save(excerpt(original, 'C', 10, 20));
    const strict = await engine.duplicates();
    const exact = strict.clusters[0]!;
    // A weaker link (0.92) from C's copy to another chunk of A: listed from 0.90, the cluster has a third chunk.
    const copy = exact.chunks.find((x) => x.sessionId === 'C')!.chunkId;
    const listed = new Set(strict.clusters.flatMap((c) => c.chunks.map((x) => x.chunkId)));
    const extra = (await engine.showSession('A')).chunks.map((c) => c.chunkId).find((id) => !listed.has(id))!;
    const journal = new PairJournal(dir);
    await journal.refresh(true);
    const [a, b] = [{ id: copy, s: 'C' }, { id: extra, s: 'A' }].sort((x, y) => (x.id < y.id ? -1 : 1));
    await journal.append({ add: [{ a: a!.id, as: a!.s, b: b!.id, bs: b!.s, s: 0.92 }] });
    const wide = await engine.duplicates({ threshold: 0.9, limit: 1000 });
    const grown = wide.clusters.find((c) => c.chunks.some((x) => x.chunkId === extra))!;
    expect(grown.chunks.map((x) => x.chunkId).sort()).toEqual([...exact.chunks.map((x) => x.chunkId), extra].sort());
    // The clusters that are the same at both thresholds have the same ids.
    const unchanged = strict.clusters.filter((c) => c.id !== exact.id).map((c) => c.id);
    expect(wide.clusters.map((c) => c.id)).toEqual(expect.arrayContaining(unchanged));
    // Dismissed by the id the 0.90 listing showed, without naming that threshold again.
    expect(await engine.dismissDuplicates(grown.id)).toEqual({ dismissed: 3 });
    expect((await engine.duplicates({ threshold: 0.9, limit: 1000 })).clusters.map((c) => c.id)).not.toContain(grown.id);
    // Its stronger part went with it.
    expect((await engine.duplicates({ limit: 1000 })).clusters.map((c) => c.id)).not.toContain(exact.id);
    await engine.close();
  });

  it('finds copies of what another process saved, in a store with a vector index, and after the sketch file is lost or cut short', async () => {
    const { dir } = fresh();
    // Two engines on one folder stand for two processes (the app and the CLI); a small threshold
    // stands in for the 10k chunks from which a store gets its vector index.
    const first = await bed.open(dir, { vectorIndexMinRows: 300, optimizeEvery: 10_000 });
    const second = await bed.open(dir, { vectorIndexMinRows: 300, optimizeEvery: 10_000 });
    await first.save(original);
    for (let s = 0; s < 3; s++) await first.save(conversation(240, { sessionId: `filler-${s}`, start: 2000 + s * 1000 }));
    expect((await first.maintain()).vectorIndexBuilt).toBe(true);
    const near = await second.save(excerpt(original, 'D', 20, 30, (t) => t.replace('steady', 'stable')));
    expect(near.nearDuplicates).toBeGreaterThan(0);
    const withA = (await second.duplicates({ limit: 1000 })).clusters.filter((c) => c.chunks.some((x) => x.sessionId === 'D') && c.chunks.some((x) => x.sessionId === 'A'));
    expect(withA.length).toBeGreaterThan(0);
    for (const c of withA) expect(c.chunks.find((x) => x.sessionId === 'A')!.text).toBe(c.chunks.find((x) => x.sessionId === 'D')!.text.replaceAll('stable', 'steady'));
    // Each engine finds what the other saved since its own last save.
    await second.save(unrelated('T'));
    const bike = (sessionId: string) => {
      const copy = unrelated(sessionId);
      return { ...copy, messages: copy.messages.map((m) => ({ ...m, content: m.content.replace('bicycle', 'bike') })) };
    };
    expect((await first.save(bike('U'))).nearDuplicates).toBeGreaterThan(0);
    // The sketch file lost, then cut short: it is built again from the store.
    rmSync(path.join(dir, SKETCH_FILE));
    expect((await second.save(bike('V'))).nearDuplicates).toBeGreaterThan(0);
    truncateSync(path.join(dir, SKETCH_FILE), statSync(path.join(dir, SKETCH_FILE)).size - 100);
    expect((await first.save(bike('W'))).nearDuplicates).toBeGreaterThan(0);
    const bikes = (await first.duplicates({ limit: 1000 })).clusters.filter((c) => c.chunks.some((x) => x.sessionId === 'T'));
    expect(new Set(bikes.flatMap((c) => c.chunks.map((x) => x.sessionId)))).toEqual(new Set(['T', 'U', 'V', 'W']));
    await first.close();
    await second.close();
  });

  it('a save whose check for copies fails is still saved, says so, and the copies are found later', async () => {
    const { dir, open } = fresh();
    const engine = await open();
    await engine.save(original);
    // Something in the way of the sketch file (here a folder by its name): the check cannot run.
    const sketch = path.join(dir, SKETCH_FILE);
    rmSync(sketch);
    mkdirSync(sketch);
    const report = await engine.save(excerpt(original, 'C', 10, 20));
    expect(report.chunksWritten).toBeGreaterThan(0);
    expect(report.warnings.join('\n')).toMatch(/check for copies .* did not finish/);
    expect((await engine.showSession('C')).chunks).toHaveLength(report.chunksWritten);
    rmSync(sketch, { recursive: true });
    expect((await engine.duplicates()).clusters.some((c) => c.chunks.some((x) => x.sessionId === 'C') && c.chunks.some((x) => x.sessionId === 'A'))).toBe(true);
    await engine.close();
  });

  it('a save finds, while its chunks are embedded, the same pairs as a check of the store from scratch', async () => {
    const { dir, open } = fresh();
    let engine = await open();
    await engine.save(original);
    const stable = (t: string) => t.replace('steady', 'stable');
    await engine.save(excerpt(original, 'C', 10, 20));
    await engine.save(excerpt(original, 'D', 20, 26, stable));
    // An append: the session's last chunk is reopened, and the new chunks are checked as they are embedded.
    await engine.save(excerpt(original, 'D', 20, 34, stable));
    await engine.close();
    const pairsIn = async () => {
      const journal = new PairJournal(dir);
      await journal.refresh(false);
      return [...journal.pairs.values()].map((p) => `${p.a} ${p.b} ${p.s}`).sort();
    };
    const saved = await pairsIn();
    expect(saved.length).toBeGreaterThan(0);
    rmSync(path.join(dir, NEAR_DUPLICATES_FILE));
    engine = await open();
    await engine.duplicates();
    await engine.close();
    expect(await pairsIn()).toEqual(saved);
  });

  it('a store whose checks were lost (a kill before the list was written, an older version) is checked again when listed', async () => {
    const { dir, open } = fresh({ nearDuplicates: false });
    let engine = await open();
    await engine.save(original);
    await engine.save(excerpt(original, 'C', 10, 20));
    await engine.close();
    engine = await open({ nearDuplicates: true });
    const progress: number[] = [];
    const healed = await engine.duplicates({}, (done) => progress.push(done));
    expect(healed.total).toBeGreaterThan(0);
    expect(progress).toEqual([1, 2]);
    // The same clusters come back from a lost file, and from a save after the loss.
    rmSync(path.join(dir, NEAR_DUPLICATES_FILE));
    await engine.save(excerpt(original, 'D', 20, 30));
    const again = await engine.duplicates();
    expect(again.clusters.filter((c) => c.chunks.some((x) => x.sessionId === 'C')).map((c) => c.id).sort()).toEqual(healed.clusters.map((c) => c.id).sort());
    expect(again.clusters.some((c) => c.chunks.some((x) => x.sessionId === 'D'))).toBe(true);
    await engine.close();
  });

  it('checking many sessions again holds the write lock one session at a time: a save of another process goes through meanwhile', async () => {
    const { dir, open } = fresh({ nearDuplicates: false });
    let engine = await open();
    const stale = 8;
    for (let i = 0; i < stale; i++) await engine.save(i % 2 === 0 ? conversation(6, { sessionId: `s${i}`, start: i * 6 }) : unrelated(`s${i}`));
    await engine.close();
    engine = await open({ nearDuplicates: true });
    const other = await open({ nearDuplicates: true }); // another process (the app, watch, an MCP server) on the same folder
    const lockHeld: boolean[] = [];
    let saving: Promise<unknown> | null = null;
    let savedAfter: number | null = null;
    let done = 0;
    await engine.duplicates({}, (n, total) => {
      done = n;
      expect(total).toBe(stale);
      lockHeld.push(existsSync(path.join(dir, LOCK_FILE)));
      // After the first session: a save starts in the other process, and must not wait for the whole catch-up.
      if (n === 1) saving = other.save(unrelated('saved-meanwhile')).then(() => (savedAfter = done));
    });
    await saving;
    expect(lockHeld[0]).toBe(false); // released between two sessions
    expect(done).toBe(stale);
    expect(savedAfter).not.toBeNull();
    expect(savedAfter!).toBeLessThan(stale);
    expect((await engine.listSessions()).map((s) => s.sessionId)).toContain('saved-meanwhile');
    await other.close();
    await engine.close();
  });
  it('flags a new text whose near copies are more than the candidates read per chunk, and lists it with them', async () => {
    const { open } = fresh();
    const engine = await open();
    // More sessions holding the same near copy than a new chunk reads candidates, each starting its own way (no branches).
    const copies = CANDIDATES_PER_CHUNK + 2;
    const block = original.messages.slice(20, 26);
    const holding = (sessionId: string, edit: (text: string) => string): SessionInput => ({
      sessionId,
      title: `Holding ${sessionId}`,
      messages: [
        { msgId: `${sessionId}-intro`, role: 'user', content: `Note ${sessionId}: the weather at ${sessionId} was unusually windy and the ferry left late.` },
        ...block.map((m, i) => ({ msgId: `${sessionId}-${i}`, role: m.role, content: edit(m.content) })),
      ],
    });
    for (let k = 0; k < copies; k++) await engine.save(holding(`copy-${k}`, (t) => t.replace('steady', 'stable')));
    // The original wording is new to the store: found through the sketch's candidates, not by its hash.
    const saved = await engine.save(holding('new', (t) => t));
    expect(saved.nearDuplicates).toBeGreaterThan(0);
    const listing = await engine.duplicates();
    const withNew = listing.clusters.filter((c) => c.chunks.some((x) => x.sessionId === 'new'));
    expect(withNew.length).toBeGreaterThan(0);
    // Every copy is in the cluster, though the new chunk read only some of them.
    for (const c of withNew) expect(new Set(c.chunks.map((x) => x.sessionId)).size).toBe(copies + 1);
    await engine.close();
  });

  it('reads a bounded number of stored candidates for a large save whose every chunk has many near copies, and still groups it with all of them', async () => {
    const { open } = fresh();
    const engine = await open();
    // Whole near copies of one conversation, each starting its own way (no branches).
    const copy = (sessionId: string, edit: (text: string) => string): SessionInput => ({
      sessionId,
      title: `Copy ${sessionId}`,
      messages: [
        { msgId: `${sessionId}-intro`, role: 'user', content: `Note ${sessionId}: the weather at ${sessionId} was unusually windy and the ferry left late.` },
        ...original.messages.map((m, i) => ({ msgId: `${sessionId}-${i}`, role: m.role, content: edit(m.content) })),
      ],
    });
    await engine.save(original);
    // Every text a little changed, so that no chunk is found by its hash alone.
    for (const id of ['B', 'C', 'D', 'E']) await engine.save(copy(id, (t) => `${t} (kept by ${id})`));
    const reads = vi.spyOn(engine.store, 'vectorsByChunkId');
    const saved = await engine.save(copy('new', (t) => `${t} (kept here)`));
    const read = new Set(reads.mock.calls.flatMap(([ids]) => ids));
    reads.mockRestore();
    expect(saved.chunksWritten).toBeGreaterThan(8);
    // Five stored copies of each chunk: without a bound, up to CANDIDATES_PER_CHUNK reads for each.
    expect(read.size).toBeLessThanOrEqual(Math.max(16, CANDIDATE_READS_PER_CHUNK * saved.chunksWritten));
    expect(saved.nearDuplicates).toBeGreaterThan(0);
    const withNew = (await engine.duplicates()).clusters.filter((c) => c.chunks.some((x) => x.sessionId === 'new'));
    expect(withNew.length).toBeGreaterThan(0);
    expect(new Set(withNew.flatMap((c) => c.chunks.map((x) => x.sessionId)))).toEqual(new Set(['A', 'B', 'C', 'D', 'E', 'new']));
    await engine.close();
  }, 300_000);
});

