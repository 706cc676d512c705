/**
 * One memory on object storage, shared by machines: an `s3+ddb://` store on real S3 and DynamoDB
 * servers (s3rver and dynalite on 127.0.0.1). Each "machine" is a process with its own local folder
 * (SESSION_MEMORY_HOME) and name (SESSION_MEMORY_MACHINE); they meet only in the bucket. Where the
 * subject is not embedding (machines writing at once, a refused store, a killed save, a forget
 * finished elsewhere) they embed with the hashing stand-in; saves, searches, duplicates and the MCP
 * server's search run with the real model.
 */
import { describe, it, vi } from 'vitest';
import { existsSync, promises as fs, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';
import { realisticConversation } from '../scripts/transcriptGenerator.js';
import type { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, cliEnv, collect, HASH_EMBEDDER, jsonLines, REPO, runCli, runCliInProcess, startCli } from './helpers/cli.js';
import { conversation, tempDir } from './helpers/engine.js';
import { TEST_MODELS_DIR } from './helpers/model.js';
import type { ObjectStoreServers } from './helpers/objectStore.js';
import { useObjectStoreMachine } from './helpers/objectStoreMachine.js';

let servers: ObjectStoreServers;
let embedder: WorkerEmbedder;
const cleanups: Array<() => void> = [];

// This process is a machine too (the engine tests below): it reaches the servers as the CLI does.
useObjectStoreMachine((started, startedEmbedder) => {
  servers = started;
  embedder = startedEmbedder;
}, cleanups);

function dir(): string {
  const t = tempDir('sm-shared-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** A machine: its own local folder and name, the servers' endpoints; it embeds with the hashing stand-in unless `model` is 'real'. */
function machine(name: string, model: 'hash' | 'real' = 'hash'): Record<string, string> {
  return { ...servers.env, ...(model === 'hash' ? HASH_EMBEDDER : {}), SESSION_MEMORY_HOME: dir(), SESSION_MEMORY_MACHINE: name };
}

function openShared(storeUri: string, extra: Partial<Parameters<typeof MemoryEngine.open>[0]> = {}): Promise<MemoryEngine> {
  return MemoryEngine.open({ dataDir: dir(), storeUri, embedder, modelsDir: TEST_MODELS_DIR, lockWaitMs: 60_000, ...extra });
}

// Two tests at a time (describe.concurrent, maxConcurrency 2 for the file), each on its own bucket,
// table and local folders: much of a test's time is a process it waits on (a machine's CLI, the MCP
// server) or a lease it waits out. The forget finished on another machine, which waits 15 s for a dead
// lease, starts first, beside the tests that run the engine in this process; the two machines saving
// at once (four processes) come after them. The tests that set a test switch in this process's
// environment (the catch-up's clock skew), which every engine and process started meanwhile would
// read, run after all of them, one at a time. Each test asserts with its own `expect` (the test
// context's), as tests running at the same time must.
vi.setConfig({ maxConcurrency: 2 });

describe.concurrent('what the store holds besides chunks', () => {
  it('a forget killed on one machine is finished by the next save on another, and no object keeps the text', async ({ expect }) => {
    const { sharedUri, bucket } = await servers.newStore('owed');
    const marker = 'Wombatcarnival';
    const files = dir();
    const secret = path.join(files, 'secret.json');
    writeFileSync(secret, JSON.stringify({ sessionId: 'secret', messages: [
      { msgId: 's1', role: 'user', content: `The password hint is ${marker}, remember it.` },
      { msgId: 's2', role: 'assistant', content: `Noted: ${marker}.` },
    ] }));
    const other = path.join(files, 'other.json');
    writeFileSync(other, JSON.stringify(conversation(6, { sessionId: 'other' })));
    // Both machines keep a 15 s lease instead of 30 s (a test switch): the desktop waits 15 s for the dead
    // one's. A live writer must still have a renewal confirmed every 10 s (20 s with the usual lease).
    const lease = { SESSION_MEMORY_TEST_LEASE_TTL_MS: '15000' };
    const laptop = { ...machine('laptop'), ...lease };
    expect((await runCli(['--data', sharedUri, 'save', secret], laptop)).status).toBe(0);
    // Killed once the journal names the work, before anything is removed.
    const killed = await runCli(['--data', sharedUri, 'forget', 'secret'], { ...laptop, SESSION_MEMORY_TEST_CRASH: 'forget-journal:1' });
    expect(killed.signal).toBe('SIGKILL');
    expect((await servers.objects(bucket)).some((o) => o.body.toString('latin1').includes(marker))).toBe(true);

    // Another machine's save is the next writer: it finishes the forget first (after the dead lease runs out).
    const desktop = { ...machine('desktop'), ...lease };
    const waitStarted = Date.now();
    const saved = await runCli(['--data', sharedUri, 'save', other, '--json'], desktop);
    expect(saved.status, saved.stderr).toBe(0);
    expect(Date.now() - waitStarted, 'the lease of a process killed on another machine was taken over before it ran out').toBeGreaterThanOrEqual(15_000);
    const listed = JSON.parse((await runCli(['--data', sharedUri, 'sessions', '--json'], desktop)).stdout) as Array<{ sessionId: string }>;
    expect(listed.map((s) => s.sessionId)).toEqual(['other']);
    expect((await servers.objects(bucket)).filter((o) => o.body.toString('latin1').toLowerCase().includes(marker.toLowerCase())).map((o) => o.key)).toEqual([]);
    const history = JSON.parse((await runCli(['--data', sharedUri, 'history', 'secret', '--json'], desktop)).stdout) as Array<{ forgotten?: boolean }>;
    expect(history.map((e) => e.forgotten === true)).toEqual([true]);
  }, 180_000);

  it('a dismissed cluster and a fork are the store\'s: another machine, its record rebuilt from the store, sees both', async ({ expect }) => {
    const { sharedUri } = await servers.newStore('decisions');
    const a = conversation(40, { sessionId: 'A' });
    const idless = (m: SessionInput['messages']) => m.map(({ role, content }) => ({ role, content }));
    const branch: SessionInput = { sessionId: 'B', title: 'Branch', messages: [...idless(a.messages.slice(0, 30)), ...idless(conversation(6, { start: 500 }).messages)] };
    const excerpt: SessionInput = { sessionId: 'C', title: 'Excerpt', messages: [...idless(conversation(4, { start: 900 }).messages), ...idless(a.messages.slice(10, 20))] };
    const laptop = await openShared(sharedUri);
    let target: string;
    try {
      await laptop.save(a);
      expect((await laptop.save(branch)).sharedMessages).toBe(30);
      await laptop.save(excerpt);
      const listing = await laptop.duplicates();
      expect(listing.total).toBeGreaterThan(0);
      target = listing.clusters[0]!.id;
      await laptop.dismissDuplicates(target);
    } finally {
      await laptop.close();
    }
    const desktop = await openShared(sharedUri);
    try {
      expect((await desktop.listSessions()).find((s) => s.sessionId === 'B')?.forkOf).toEqual({ sessionId: 'A', sharedMessages: 30 });
      const seen = await desktop.duplicates({ includeDismissed: true });
      expect(seen.clusters.find((c) => c.id === target)?.dismissed).toBe(true);
      expect((await desktop.duplicates()).clusters.map((c) => c.id)).not.toContain(target);
    } finally {
      await desktop.close();
    }
  }, 180_000);
});

describe.concurrent('a memory on object storage', () => {
  it('a plain s3:// store on a server that ignores conditional writes is refused for writing, with one line naming s3+ddb://', async ({ expect }) => {
    const { plainUri, bucket } = await servers.newStore('plain');
    const file = path.join(dir(), 'one.json');
    writeFileSync(file, JSON.stringify(realisticConversation('one', 6, 3)));
    const refused = await runCli(['--data', plainUri, 'save', file], machine('laptop'));
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(new RegExp(`s3://${bucket}/memory: the server accepted a second put-if-absent.*s3\\+ddb://${bucket}/memory\\?ddbTableName=.*--single-writer`));
    // Nothing of the session was written; the probe left no object behind.
    expect((await servers.objects(bucket)).filter((o) => o.body.includes('one'))).toEqual([]);
    expect((await servers.objects(bucket)).filter((o) => o.key.includes('_probe'))).toEqual([]);
    // A person who says only this machine writes may use it.
    const single = await runCli(['--data', plainUri, '--single-writer', 'save', file, '--json'], machine('laptop'));
    expect(single.status, single.stderr).toBe(0);
    expect(jsonLines(single.stdout)[0]).toMatchObject({ sessionId: 'one', new: 6 });
  }, 120_000);

  it('a save, a re-save and an append behave as on a local folder; search finds the answer', async ({ expect }) => {
    const { sharedUri } = await servers.newStore('engine');
    const engine = await openShared(sharedUri);
    try {
      expect((await engine.save(conversation(10))).new).toBe(10);
      const again = await engine.save(conversation(10));
      expect(again).toMatchObject({ skippedSession: true, embeddingsComputed: 0 });
      const appended = await engine.save(conversation(14));
      expect(appended).toMatchObject({ new: 4, skipped: 10 });
      const hits = await engine.search('Question 12 weekly check', { limit: 3 });
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.some((h) => h.msgIds.includes('msg-12'))).toBe(true);
      expect((await engine.verify()).ok).toBe(true);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('forgetting a session leaves no byte of its text in any object of the bucket', async ({ expect }) => {
    const { sharedUri, bucket } = await servers.newStore('forget');
    const marker = 'Quokkamarmalade';
    const secret = { sessionId: 'to-forget', title: `About ${marker}`, messages: [
      { msgId: 'f1', role: 'user' as const, content: `My neighbour's cat is called ${marker} and it likes sardines.` },
      { msgId: 'f2', role: 'assistant' as const, content: `${marker} sounds like a cat with taste; sardines are a classic.` },
    ] };
    const engine = await openShared(sharedUri);
    try {
      await engine.save(conversation(8, { sessionId: 'kept' }));
      await engine.save(secret);
      const holding = (await servers.objects(bucket)).filter((o) => o.body.toString('latin1').toLowerCase().includes(marker.toLowerCase()));
      expect(holding.length).toBeGreaterThan(0); // the check can see the text while it is stored
      await engine.forget(['to-forget']);
      const objects = await servers.objects(bucket);
      const left = objects.filter((o) => {
        const body = o.body.toString('latin1').toLowerCase();
        return body.includes(marker.toLowerCase()) || body.includes('quokkamarmalad') || body.includes('to-forget') && !o.key.includes('history');
      });
      expect(left.map((o) => o.key)).toEqual([]);
      // The history keeps only that it was forgotten.
      expect((await engine.history('to-forget')).map((e) => e.forgotten)).toEqual([true]);
      expect((await engine.showSession('kept')).messages).toHaveLength(8);
      expect((await engine.verify()).ok).toBe(true);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('a machine killed mid-save leaves what a re-run finishes; its lease is taken over at once on the same machine', async ({ expect }) => {
    const { sharedUri } = await servers.newStore('killed');
    // A 10-minute lease (a test switch; 30 s otherwise), far beyond the minute a save waits for one: a
    // re-run that succeeds has taken the killed process's lease over, not waited it out, however long
    // the busy machine makes the re-run itself.
    const laptop = { ...machine('laptop'), SESSION_MEMORY_TEST_LEASE_TTL_MS: String(10 * 60_000) };
    const file = path.join(dir(), 'long.json');
    writeFileSync(file, JSON.stringify(realisticConversation('long', 160, 11)));
    const env = { ...laptop, SESSION_MEMORY_TEST_WRITE_BATCH: '4' };
    const child = startCli(['--data', sharedUri, 'save', file, '--json'], env);
    const done = collect(child);
    // Kill it once the store holds some of its chunks.
    const engine = await openShared(sharedUri, { embedder: new HashEmbedder() });
    try {
      await expect.poll(async () => (await engine.listSessions()).find((s) => s.sessionId === 'long')?.chunkCount ?? 0, { timeout: 90_000, interval: 200 }).toBeGreaterThan(0);
      child.kill('SIGKILL');
      await done;
      const rerun = await runCli(['--data', sharedUri, 'save', file, '--json'], laptop);
      // Had it not taken the dead process's lease over at once, it would have given up after a minute (locked).
      expect(rerun.status, rerun.stderr).toBe(0);
      const shown = await engine.showSession('long');
      expect(shown.messages).toHaveLength(160);
      expect(new Set(shown.messages.map((m) => m.msgId)).size).toBe(160);
      expect((await engine.verify()).ok).toBe(true);
    } finally {
      await engine.close();
    }
  }, 180_000);

  it('two machines save the same and different sessions at once; a third finds both, nothing lost or doubled', async ({ expect }) => {
    const { sharedUri } = await servers.newStore('two-machines');
    const laptop = machine('laptop');
    const desktop = machine('desktop');
    const files = dir();
    for (let round = 1; round <= 2; round++) {
      const shorter = path.join(files, `shared-${round}-a.json`);
      const longer = path.join(files, `shared-${round}-b.json`);
      writeFileSync(shorter, JSON.stringify(realisticConversation('shared-session', 30 * round, 5)));
      writeFileSync(longer, JSON.stringify(realisticConversation('shared-session', 30 * round + 10, 5)));
      const ownA = path.join(files, `laptop-${round}.json`);
      const ownB = path.join(files, `desktop-${round}.json`);
      writeFileSync(ownA, JSON.stringify(realisticConversation('laptop-notes', 12 * round, 7)));
      writeFileSync(ownB, JSON.stringify(realisticConversation('desktop-notes', 12 * round, 9)));
      const runs = await Promise.all([
        collect(startCli(['--data', sharedUri, 'save', shorter, '--json'], laptop)),
        collect(startCli(['--data', sharedUri, 'save', longer, '--json'], desktop)),
        collect(startCli(['--data', sharedUri, 'save', ownA, '--json'], laptop)),
        collect(startCli(['--data', sharedUri, 'save', ownB, '--json'], desktop)),
      ]);
      for (const run of runs) expect(run.status, run.stderr).toBe(0);
      for (const run of runs) expect(run.stderr).not.toMatch(/warning/);
    }
    // A third machine, which never saved, reads the memory the two left (its commands run the CLI's
    // code in this process: a read needs no process of its own).
    const reader = machine('phone');
    const shown = JSON.parse((await runCliInProcess(['--data', sharedUri, 'show', 'shared-session', '--json'], reader)).stdout) as { messages: Array<{ msgId: string }> };
    const ids = shown.messages.map((m) => m.msgId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(70);
    for (const [session, count] of [['laptop-notes', 24], ['desktop-notes', 24]] as const) {
      const own = JSON.parse((await runCliInProcess(['--data', sharedUri, 'show', session, '--json'], reader)).stdout) as { messages: unknown[] };
      expect(own.messages).toHaveLength(count);
    }
    const verify = await runCliInProcess(['--data', sharedUri, 'verify', '--json'], reader);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, sessions: 3, messages: 118, problems: [] });
    // Every save is in the store's history, with the machine that made it.
    const history = JSON.parse((await runCliInProcess(['--data', sharedUri, 'history', 'shared-session', '--json'], reader)).stdout) as Array<{ machine?: string }>;
    expect(history).toHaveLength(4);
    expect(new Set(history.map((e) => e.machine))).toEqual(new Set(['laptop', 'desktop']));
    // The reader's local folder holds no part of the memory: only caches of this machine.
    const home = reader.SESSION_MEMORY_HOME!;
    const local = readdirSync(path.join(home, 'stores'), { recursive: true }).map(String);
    expect(local.filter((name) => name.includes('lancedb') || name.includes('history'))).toEqual([]);
  }, 240_000);
});

describe.concurrent('an assistant on a shared store', () => {
  it('the MCP server on a bucket URI finds what another machine saved, and its saves are seen there', async ({ expect }) => {
    const { sharedUri } = await servers.newStore('mcp');
    const laptop = await openShared(sharedUri);
    await laptop.save({ ...conversation(8, { sessionId: 'garden' }), title: 'Garden plans' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--data', sharedUri, 'mcp'], cwd: REPO, env: cliEnv(machine('desktop', 'real')) as Record<string, string>, stderr: 'pipe' });
    const assistant = new Client({ name: 'test-assistant', version: '1.0.0' });
    await assistant.connect(transport);
    try {
      const found = (await assistant.callTool({ name: 'search_memory', arguments: { query: 'how should I think about the budget', limit: 3 } })) as { structuredContent?: { results?: Array<{ sessionId: string }> } };
      expect(found.structuredContent?.results?.[0]?.sessionId).toBe('garden');
      const input = conversation(6, { sessionId: 'from-assistant', start: 300 });
      const transcript = { session_id: input.sessionId, messages: input.messages.map((m) => ({ msg_id: m.msgId, role: m.role, content: m.content })) };
      const saved = (await assistant.callTool({ name: 'save_session', arguments: { transcript } })) as { isError?: boolean; structuredContent?: { reports?: Array<{ new: number }> } };
      expect(saved.isError).toBeFalsy();
      expect(saved.structuredContent?.reports?.[0]?.new).toBe(6);
      expect((await laptop.showSession('from-assistant')).messages).toHaveLength(6);
      // The save's history event is committed with the lease's give-back, at most 1.5 s after the save.
      await expect.poll(async () => (await laptop.history('from-assistant')).map((e) => e.machine), { timeout: 15_000, interval: 250 }).toEqual(['desktop']);
    } finally {
      await assistant.close();
      await laptop.close();
    }
  }, 180_000);
});

describe('another machine\'s saves', () => {
  it('are caught up by reading what they wrote, and the record then equals one rebuilt from every chunk', async ({ expect }) => {
    const { sharedUri } = await servers.newStore('catch-up');
    const logged: string[] = [];
    const logger = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m) };
    const laptop = await openShared(sharedUri);
    const desktop = await openShared(sharedUri, { logger });
    const summary = async (engine: MemoryEngine) => (await engine.listSessions()).map(({ sessionId, messageCount, chunkCount, forkOf }) => ({ sessionId, messageCount, chunkCount, forkOf })).sort((a, b) => (a.sessionId < b.sessionId ? -1 : 1));
    try {
      for (let i = 0; i < 4; i++) await laptop.save(conversation(12, { sessionId: `s${i}`, start: i * 100 }));
      await desktop.listSessions();
      // Clocks that agree to the millisecond: the catch-up reads only the chunks created since.
      process.env.SESSION_MEMORY_TEST_CLOCK_SKEW_MS = '0';
      await new Promise((resolve) => setTimeout(resolve, 20));
      // New sessions, an append, an edit that rebuilds a chunk in place, a fork: all seen by reading what changed.
      await laptop.save(conversation(10, { sessionId: 'new-one', start: 900 }));
      await laptop.save(conversation(18, { sessionId: 's1', start: 100 }));
      const edited = conversation(12, { sessionId: 's2', start: 200 });
      edited.messages[3] = { ...edited.messages[3]!, content: 'An edited answer about the weather in Lisbon.' };
      await laptop.save(edited, { mode: 'overwrite' });
      await laptop.save({ sessionId: 'fork', messages: conversation(12, { start: 0 }).messages.map(({ role, content }) => ({ role, content })).concat(conversation(4, { start: 700 }).messages.map(({ role, content }) => ({ role, content }))) });
      logged.length = 0;
      const caughtUp = await summary(desktop);
      expect(logged.some((m) => /caught up with saves of other machines: 4 session\(s\)/.test(m)), logged.join('\n')).toBe(true);
      expect(logged.some((m) => /rebuilt it from the store/.test(m))).toBe(false);
      const fresh = await openShared(sharedUri);
      try {
        expect(caughtUp).toEqual(await summary(fresh));
        expect(caughtUp.find((s) => s.sessionId === 'fork')?.forkOf).toEqual({ sessionId: 's0', sharedMessages: 12 });
        // A forget only removes chunks: the count tells, and the record is rebuilt whole.
        await laptop.forget(['s3']);
        logged.length = 0;
        expect((await summary(desktop)).map((s) => s.sessionId)).not.toContain('s3');
        expect(logged.some((m) => /rebuilt it from the store/.test(m))).toBe(true);
        expect(await summary(desktop)).toEqual(await summary(fresh));
        // The desktop writes on the caught-up record: a re-save of what the laptop saved is skipped.
        expect((await desktop.save(conversation(10, { sessionId: 'new-one', start: 900 }))).skippedSession).toBe(true);
      } finally {
        await fresh.close();
      }
    } finally {
      delete process.env.SESSION_MEMORY_TEST_CLOCK_SKEW_MS;
      await laptop.close();
      await desktop.close();
    }
  }, 180_000);
});

describe('the local folder of a shared store', () => {
  it('is this machine\'s only: deleting it loses nothing, the next run rebuilds its caches from the store', async ({ expect }) => {
    const { sharedUri } = await servers.newStore('caches');
    const local = dir();
    const first = await openShared(sharedUri, { dataDir: local });
    await first.save(conversation(12, { sessionId: 'cached' }));
    await first.close();
    expect(existsSync(path.join(local, 'lancedb'))).toBe(false);
    await fs.rm(local, { recursive: true, force: true });
    const again = await openShared(sharedUri, { dataDir: local });
    try {
      expect((await again.save(conversation(12, { sessionId: 'cached' }))).skippedSession).toBe(true);
      expect((await again.history('cached')).length).toBe(2);
    } finally {
      await again.close();
    }
  }, 120_000);
});
