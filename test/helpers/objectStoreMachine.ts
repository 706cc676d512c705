// A test file whose own process is a machine of a shared store: the S3 and DynamoDB servers run
// for the file, this process reaches them as the CLI does (their endpoints in its environment), and
// (useObjectStoreMachine) an embedder is shared by the engines it opens. All of it is stopped, and
// the environment put back, after the file.
import { afterAll, beforeAll } from 'vitest';
import type { WorkerEmbedder } from '../../electron/embedding/embedder.js';
import { startTestEmbedder } from './engine.js';
import { startObjectStoreServers, type ObjectStoreServers } from './objectStore.js';

export function useObjectStoreMachine(started: (servers: ObjectStoreServers, embedder: WorkerEmbedder) => void, cleanups: Array<() => void> = []): void {
  let embedder: WorkerEmbedder | undefined;
  serversForFile(
    async (servers) => {
      embedder = await startTestEmbedder();
      started(servers, embedder);
    },
    async () => embedder?.close(),
    cleanups,
  );
}

/**
 * The same without the real model, for a file whose machines all embed with the hashing stand-in
 * (HASH_EMBEDDER): a model in a worker is two seconds of CPU to start, for nothing there.
 */
export function useObjectStoreServers(started: (servers: ObjectStoreServers) => void, cleanups: Array<() => void> = []): void {
  serversForFile(async (servers) => started(servers), async () => {}, cleanups);
}

function serversForFile(started: (servers: ObjectStoreServers) => Promise<void>, stopFirst: () => Promise<void>, cleanups: Array<() => void>): void {
  const savedEnv = { ...process.env };
  let servers: ObjectStoreServers | undefined;
  beforeAll(async () => {
    servers = await startObjectStoreServers();
    Object.assign(process.env, servers.env);
    await started(servers);
  }, 60_000);
  afterAll(async () => {
    await stopFirst();
    await servers?.close();
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    cleanups.forEach((cleanup) => cleanup());
  });
}
