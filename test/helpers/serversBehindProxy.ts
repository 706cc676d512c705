/**
 * For a test file about what a store on S3 reads: the object-store servers (objectStore.ts) with a
 * counting proxy in front of S3 (scripts/latencyProxy.ts, no latency), started before the file's
 * tests with this process's AWS variables pointing at them (S3 through the proxy), and stopped after
 * them, the variables as they were. Call at the top level of a test file.
 */
import { afterAll, beforeAll } from 'vitest';
import { startObjectStoreServers, type ObjectStoreServers } from './objectStore.js';
import { startLatencyProxy, type LatencyProxy } from '../../scripts/latencyProxy.js';

export interface ServersBehindProxy {
  servers: ObjectStoreServers;
  proxy: LatencyProxy;
}

export function serversBehindProxy(): ServersBehindProxy {
  const started = {} as ServersBehindProxy;
  const savedEnv = { ...process.env };
  beforeAll(async () => {
    started.servers = await startObjectStoreServers();
    started.proxy = await startLatencyProxy(Number(new URL(started.servers.env.AWS_ENDPOINT_URL_S3!).port), 0);
    Object.assign(process.env, started.servers.env, { AWS_ENDPOINT_URL_S3: started.proxy.endpoint });
  }, 60_000);
  afterAll(async () => {
    await started.proxy?.close();
    await started.servers?.close();
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    Object.assign(process.env, savedEnv);
  });
  return started;
}
