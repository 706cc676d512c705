// A test file whose own process is a machine of a shared store: the S3 and DynamoDB servers run
// for the file, this process reaches them as the CLI does (their endpoints in its environment), and
// an embedder is shared by the engines it opens. All of it is stopped, and the environment put back,
// after the file.
import { afterAll, beforeAll } from 'vitest';
import type { WorkerEmbedder } from '../../electron/embedding/embedder.js';
import { startTestEmbedder } from './engine.js';
import { startObjectStoreServers, type ObjectStoreServers } from './objectStore.js';

export function useObjectStoreMachine(started: (servers: ObjectStoreServers, embedder: WorkerEmbedder) => void, cleanups: Array<() => void> = []): void {
  const savedEnv = { ...process.env };
  let servers: ObjectStoreServers | undefined;
  let embedder: WorkerEmbedder | undefined;
  beforeAll(async () => {
    servers = await startObjectStoreServers();
    Object.assign(process.env, servers.env);
    embedder = await startTestEmbedder();
    started(servers, embedder);
  }, 60_000);
  afterAll(async () => {
    await embedder?.close();
    await servers?.close();
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    cleanups.forEach((cleanup) => cleanup());
  });
}
