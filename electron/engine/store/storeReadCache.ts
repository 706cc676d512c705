/**
 * The searches' read cache of a store on S3 (`s3://`, `s3+ddb://`): the disk cache of immutable
 * objects (objectCache.ts) and the local endpoint that serves it to the search connection
 * (objectCacheEndpoint.ts). A store in a folder, or a size of 0 bytes, has none. The endpoint and
 * the S3 client are loaded when a store on S3 first needs them: the client is a third of a second
 * of CPU, which every start of the CLI on a local folder would pay for otherwise.
 */
import { storageOptionsFor, storeKindOf } from '../files/location.js';
import { testSwitch } from '../files/testSwitches.js';
import { BLOCK_BYTES, ObjectCache } from './objectCache.js';
import type { ObjectCacheEndpoint } from './objectCacheEndpoint.js';
import { ReadAheadGate } from './objectCacheReadAhead.js';

export interface ReadCacheOptions {
  dir: string;
  maxBytes: number;
}

export class StoreReadCache {
  private endpoint: Promise<ObjectCacheEndpoint | null> | null = null;
  /** Held by saves: the endpoint reads ahead only between them. */
  readonly gate = new ReadAheadGate();

  constructor(
    private readonly uri: string,
    private readonly options: ReadCacheOptions | undefined,
  ) {}

  /** The endpoint searches read through, started at the first call; null when the store has no cache. */
  start(): Promise<ObjectCacheEndpoint | null> {
    this.endpoint ??= (async () => {
      const cache = this.cache();
      if (!cache) return null;
      const options = storageOptionsFor(storeKindOf(this.uri), process.env);
      const { ObjectCacheEndpoint } = await import('./objectCacheEndpoint.js');
      return ObjectCacheEndpoint.start(cache, { ...(options.endpoint ? { endpoint: options.endpoint } : {}), region: options.region ?? 'us-east-1' }, this.gate);
    })();
    return this.endpoint;
  }

  close(): void {
    void this.endpoint?.then((endpoint) => endpoint?.close(), () => {});
    this.endpoint = null;
  }

  /**
   * Drops from the cache every object the store no longer has: after a forget or a redact here or
   * on another machine, no text they removed from the store stays on this machine's disk.
   * Returns how many objects went.
   */
  async prune(): Promise<number> {
    // No read ahead writes a block of a removed object after the prune (it restarts at the next read).
    await (await this.endpoint?.catch(() => null))?.stopReadAhead();
    const cache = this.cache();
    if (!cache || !(await cache.holdsAny())) return 0;
    const url = new URL(this.uri.replace(/^s3\+ddb:/, 's3:'));
    const bucket = url.hostname;
    const prefix = url.pathname.replace(/^\/+|\/+$/g, '');
    const options = storageOptionsFor(storeKindOf(this.uri), process.env);
    const { ListObjectsV2Command, S3Client } = await import('@aws-sdk/client-s3');
    const client = new S3Client({ region: options.region ?? 'us-east-1', ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}) });
    const kept = new Set<string>();
    try {
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix ? `${prefix}/` : undefined, ContinuationToken: token }));
        for (const item of page.Contents ?? []) if (item.Key) kept.add(`${bucket}/${item.Key}`);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } finally {
      client.destroy();
    }
    return cache.prune((objectPath) => kept.has(objectPath));
  }

  private cache(): ObjectCache | null {
    const kind = storeKindOf(this.uri);
    if (!this.options || this.options.maxBytes <= 0 || (kind !== 's3' && kind !== 's3+ddb')) return null;
    // Tests use small blocks, so that a small store spans many of them.
    const blockBytes = Number(testSwitch('SESSION_MEMORY_TEST_READ_CACHE_BLOCK_BYTES') ?? BLOCK_BYTES);
    return new ObjectCache(this.options.dir, this.options.maxBytes, Number.isInteger(blockBytes) && blockBytes > 0 ? blockBytes : BLOCK_BYTES);
  }
}
