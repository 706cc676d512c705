/**
 * `session-memory copy`: a memory moves from a folder to an `s3+ddb://` bucket (S3 and DynamoDB
 * servers on 127.0.0.1) and from there to another folder, as it is: every place verifies, lists the
 * same sessions, finds the same chunks and keeps the same save history. A target that already holds
 * a memory is refused and left as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { realisticConversation } from '../scripts/transcriptGenerator.js';
import { HASH_EMBEDDER, runCli, type CliResult } from './helpers/cli.js';
import { tempDir, withHashStore } from './helpers/engine.js';
import { folderSnapshot } from './helpers/files.js';
import { startObjectStoreServers, type ObjectStoreServers } from './helpers/objectStore.js';
import type { MemoryEngine } from '../electron/engine/engine.js';

let servers: ObjectStoreServers;
const cleanups: Array<() => void> = [];
const savedEnv = { ...process.env };

beforeAll(async () => {
  servers = await startObjectStoreServers();
  // This process reads the bucket too (see view), as a machine of its own.
  Object.assign(process.env, servers.env);
});
afterAll(async () => {
  await servers?.close();
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  cleanups.forEach((c) => c());
});

function workDir(): string {
  const { dir, cleanup } = tempDir('sm-copy-');
  cleanups.push(cleanup);
  return dir;
}

describe('session-memory copy', () => {
  it('copies a memory from a folder to a bucket and back, and refuses a target that holds one', async () => {
    const dir = workDir();
    // The subject is the copy, not embedding: the hashing stand-in embeds the saves and the searches.
    const env = { ...servers.env, SESSION_MEMORY_HOME: path.join(dir, 'home'), ...HASH_EMBEDDER };
    const cli = (args: string[]): Promise<CliResult> => runCli(args, env);
    const ok = async (args: string[]): Promise<string> => {
      const result = await cli(args);
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      return result.stdout;
    };

    // A memory with several sessions, one branched from another (a row of the state table), a
    // re-save and an append (so the history has several events per session).
    const first = path.join(dir, 'first');
    const sessions = [realisticConversation('copy-a', 60, 1), realisticConversation('copy-b', 40, 2), realisticConversation('copy-c', 30, 3), realisticConversation('copy-d', 24, 1)];
    await fs.writeFile(path.join(dir, 'all.json'), JSON.stringify(sessions));
    await ok(['--data', first, 'save', path.join(dir, 'all.json')]);
    await ok(['--data', first, 'save', path.join(dir, 'all.json')]);
    await fs.writeFile(path.join(dir, 'longer.json'), JSON.stringify(realisticConversation('copy-a', 64, 1)));
    await ok(['--data', first, 'save', path.join(dir, 'longer.json')]);
    // Its indexes brought up to date: a copy's indexes are built fresh over its rows, and full-text
    // scores count the rows an index covers (a store's own index lags its newest saves until then).
    await ok(['--data', first, 'optimize']);

    const { bucket, sharedUri } = await servers.newStore('copy');
    const toBucket = JSON.parse(await ok(['--data', first, 'copy', '--to', sharedUri, '--json'])) as Record<string, unknown> & { verify: { from: { ok: boolean }; to: { ok: boolean } } };
    expect(toBucket).toMatchObject({ sessions: 4, messages: 64 + 40 + 30 + 24, historyEvents: 9 });
    expect(toBucket.verify.from.ok && toBucket.verify.to.ok).toBe(true);
    expect(toBucket.indexes).toEqual(expect.arrayContaining(['session_id', 'chunk_id', 'text_hash', 'text']));
    expect((await servers.objects(bucket)).some((o) => o.key.startsWith('memory/chunks.lance/'))).toBe(true);

    const back = path.join(dir, 'back');
    const toFolder = JSON.parse(await ok(['--data', sharedUri, 'copy', '--to', back, '--json'])) as typeof toBucket;
    expect(toFolder).toMatchObject({ sessions: 4, messages: 158, chunks: toBucket.chunks, historyEvents: 9 });

    const places = [first, sharedUri, back];
    // What `verify`, `sessions`, `search`, `history` and `show` print with --json (each the engine's
    // answer as JSON), read in this process: the commands' own output is tested in cli.test.ts and
    // sharedStore.test.ts. A bucket is read as a machine with a new folder of its own would.
    let readers = 0;
    const view = (data: string) => {
      const json = (value: unknown) => JSON.parse(JSON.stringify(value));
      const read = async (engine: MemoryEngine) => {
        // What the place keeps of deleted objects is the place's own (a folder keeps none; a bucket may), not the memory's.
        const { retention: _retention, ...verify } = json(await engine.verify()) as Record<string, unknown>;
        const listed = (json(await engine.listSessions()) as Array<Record<string, unknown>>).map(({ sessionId, title, forkOf, messageCount, chunkCount, saves, lastSavedAt }) => ({ sessionId, title, forkOf, messageCount, chunkCount, saves, lastSavedAt }));
        const search = (json(await engine.search('how do I fix the failing build', { limit: 8, collapse: true })) as Array<Record<string, unknown>>).map((h) => [h.chunkId, h.sessionId, Number(h.score).toFixed(4)]);
        const history = [];
        for (const id of ['copy-a', 'copy-b', 'copy-c', 'copy-d']) history.push(json(await engine.history(id)));
        const shown = json(await engine.showSession('copy-a'));
        return { verify, listed, search, history, shown };
      };
      return data === sharedUri ? withHashStore(path.join(dir, `reader-${++readers}`), read, { storeUri: data }) : withHashStore(data, read);
    };
    const [original, inBucket, copiedBack] = [await view(places[0]!), await view(places[1]!), await view(places[2]!)];
    expect(original!.verify).toMatchObject({ ok: true, sessions: 4, messages: 158, problems: [] });
    expect(original!.listed).toHaveLength(4);
    expect(original!.listed.find((s) => s.sessionId === 'copy-d')?.forkOf).toMatchObject({ sessionId: 'copy-a' });
    expect(original!.search.length).toBeGreaterThan(0);
    expect(original!.history.map((h: unknown[]) => h.length)).toEqual([3, 2, 2, 2]);
    for (const copy of [inBucket, copiedBack]) expect(copy).toEqual(original);

    // A target that holds a memory is refused with one line, exit status 2, and left as it was.
    const before = folderSnapshot(back);
    const bucketBefore = (await servers.objects(bucket)).map((o) => `${o.key} ${o.body.length}`).sort();
    const refused = await cli(['--data', first, 'copy', '--to', back]);
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^session-memory: ${back.replace(/[/\\]/g, '.')} already holds a memory`))]);
    const refusedBucket = await cli(['--data', back, 'copy', '--to', sharedUri]);
    expect(refusedBucket.status).toBe(2);
    expect(refusedBucket.stderr).toMatch(/already holds a memory/);
    expect(folderSnapshot(back)).toEqual(before);
    expect((await servers.objects(bucket)).map((o) => `${o.key} ${o.body.length}`).sort()).toEqual(bucketBefore);
    expect(await view(back)).toEqual(original);
  });
});
