/**
 * An S3 endpoint on 127.0.0.1 for LanceDB's search connection to a store on S3 (`s3://`,
 * `s3+ddb://`), in front of the store's own: a read of an object that never changes (objectCache.ts)
 * is served from this machine's disk after its first read; every other request (manifests, version
 * listings, a reader's repair of a commit) goes to the store as it came. LanceDB (through Rust's
 * object_store) offers no hook for a cache of its own, so the cache sits where it can: as the
 * endpoint the search connection is given.
 *
 * After the first read of such an object, the rest of it is read ahead in the background
 * (objectCacheReadAhead.ts).
 *
 * Requests are signed again for the store (AWS Signature V4, `@smithy/signature-v4`, with the AWS
 * SDK's own credential chain), since LanceDB signed them for this endpoint. Only requests whose path
 * starts with this endpoint's random token are served: another program on this machine cannot read
 * the bucket through it.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import { isImmutableObject, ObjectCache, type CachedObjectMeta } from './objectCache.js';
import { ReadAhead, ReadAheadGate } from './objectCacheReadAhead.js';

export interface UpstreamS3 {
  /** The store's endpoint (`AWS_ENDPOINT_URL_S3`), addressed by path; none for AWS S3 itself. */
  endpoint?: string;
  region: string;
}

const bytesOf = (data: string | ArrayBuffer | ArrayBufferView): string | Buffer =>
  typeof data === 'string' ? data : Buffer.from(ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data));

/** SHA-256 (and its HMAC, given a secret) for the signer, from node:crypto. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytesOf(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {}
}

const EMPTY_SHA256 = createHash('sha256').digest('hex');

/** Request headers passed on to the store (signed again); the rest (LanceDB's signature, host, ...) is not. */
const FORWARDED = /^(range|if-match|if-none-match|if-modified-since|if-unmodified-since|content-type|content-md5|x-amz-(?!date$|content-sha256$|security-token$).*)$/;
/** Answer headers passed back. */
const RETURNED = ['content-type', 'content-length', 'content-range', 'etag', 'last-modified', 'accept-ranges', 'x-amz-request-id', 'x-amz-version-id'];

/** S3's RFC 3986 encoding of a query component, as the signer's canonical query has it. */
function s3Escape(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export class ObjectCacheEndpoint {
  /** Counts of reads served from disk and sent to the store, and of the reads ahead and their bytes (for the benchmark and the tests). */
  readonly counts = { fromDisk: 0, toStore: 0, readAhead: 0, readAheadBytes: 0 };
  /** When set (the benchmark's trace), each read served here is added: the object's path and the bytes asked. */
  readLog: Array<{ path: string; range: string | undefined; method: string }> | null = null;
  private readonly signer: SignatureV4;
  private readonly client: S3Client;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly readAhead: ReadAhead;

  private constructor(
    private readonly server: http.Server,
    readonly cache: ObjectCache,
    private readonly upstream: UpstreamS3,
    private readonly token: string,
    gate: ReadAheadGate,
  ) {
    this.readAhead = new ReadAhead(cache, gate, (objectPath, rawPath, meta, first, last) => this.fetchBlocks(objectPath, rawPath, meta, first, last, true));
    this.client = new S3Client({ region: upstream.region, ...(upstream.endpoint ? { endpoint: upstream.endpoint, forcePathStyle: true } : {}) });
    this.signer = new SignatureV4({ service: 's3', region: upstream.region, credentials: this.client.config.credentials, sha256: Sha256, uriEscapePath: false, applyChecksum: false });
  }

  static async start(cache: ObjectCache, upstream: UpstreamS3, gate = new ReadAheadGate()): Promise<ObjectCacheEndpoint> {
    const token = randomBytes(16).toString('hex');
    let endpoint: ObjectCacheEndpoint | null = null;
    const server = http.createServer((request, response) => {
      void endpoint!.serve(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/xml' });
        response.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>${String(error instanceof Error ? error.message : error).replace(/[<&>]/g, ' ')}</Message></Error>`);
      });
    });
    server.keepAliveTimeout = 60_000;
    endpoint = new ObjectCacheEndpoint(server, cache, upstream, token, gate);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    return endpoint;
  }

  /** The endpoint to give LanceDB (`endpoint` storage option), path-style, plain http on the loopback. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/${this.token}`;
  }

  /** LanceDB's storage options for the store, with this endpoint in place of the store's. */
  storageOptions(options: Record<string, string>): Record<string, string> {
    // `aws_endpoint_url_s3` too: LanceDB lets the AWS_ENDPOINT_URL_S3 variable win over `endpoint`, not over it.
    return { ...options, endpoint: this.url, aws_endpoint_url_s3: this.url, allow_http: 'true', virtual_hosted_style_request: 'false', region: this.upstream.region };
  }

  close(): void {
    this.readAhead.close();
    this.server.closeAllConnections();
    this.server.close();
    this.client.destroy();
  }

  /** Resolves when nothing is left to read ahead (the benchmark and the tests wait for it). */
  readAheadIdle(): Promise<void> {
    return this.readAhead.idle();
  }

  /** Stops reading ahead (objectCacheReadAhead.ts), before a prune. */
  stopReadAhead(): Promise<void> {
    return this.readAhead.stop();
  }

  private async serve(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const prefix = `/${this.token}/`;
    if (!url.pathname.startsWith(prefix)) {
      request.resume();
      response.writeHead(403).end();
      return;
    }
    // Path-style: /<bucket>/<key>, as LanceDB escaped it.
    const rawPath = url.pathname.slice(prefix.length - 1);
    const objectPath = decodeURIComponent(rawPath.slice(1));
    const conditional = ['if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since'].some((h) => request.headers[h] !== undefined);
    if ((request.method === 'GET' || request.method === 'HEAD') && url.search === '' && !conditional && isImmutableObject(objectPath)) {
      this.readLog?.push({ path: objectPath, range: request.headers.range, method: request.method });
      const answer = await this.cachedRead(request.method, objectPath, rawPath, request.headers.range);
      if (answer) return this.send(response, answer);
    }
    const body = await readBody(request);
    this.counts.toStore++;
    this.send(response, await this.forward(request.method ?? 'GET', rawPath, url.searchParams, request.headers, body));
  }

  private send(response: http.ServerResponse, answer: Answer): void {
    const headers: http.OutgoingHttpHeaders = {};
    for (const name of RETURNED) if (answer.headers[name] !== undefined) headers[name] = answer.headers[name];
    headers['content-length'] = String(answer.headers['content-length'] ?? answer.body.length);
    response.writeHead(answer.status, headers);
    response.end(answer.body);
  }

  /**
   * A read of an immutable object (a whole one, or a range of bytes) from the cache, fetching the
   * blocks it lacks from the store in one request per run of missing blocks. Null when it cannot be
   * answered this way (a range of a kind not served, or the store's answer is not the object's bytes):
   * the request then goes to the store as it came.
   */
  private async cachedRead(method: 'GET' | 'HEAD', objectPath: string, rawPath: string, range: string | undefined): Promise<Answer | null> {
    const asked = parseRange(range);
    if (asked === 'unsupported') return null;
    let meta = await this.cache.meta(objectPath);
    if (!meta) {
      // Not known yet: the blocks around what is asked, which also tell the object's size and headers.
      if (method === 'HEAD' || asked?.start === null) return null;
      const first = asked ? Math.floor(asked.start / this.cache.blockBytes) : 0;
      const last = asked?.end == null ? first : Math.floor(asked.end / this.cache.blockBytes);
      meta = await this.fetchBlocks(objectPath, rawPath, null, first, last);
      if (!meta) return null;
    }
    this.readAhead.schedule(objectPath, rawPath);
    const size = meta.size;
    const headers = { 'last-modified': meta.lastModified, ...(meta.etag ? { etag: meta.etag } : {}), 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream' };
    if (method === 'HEAD') {
      this.counts.fromDisk++;
      return { status: 200, headers: { ...headers, 'content-length': String(size) }, body: Buffer.alloc(0) };
    }
    let start = 0;
    let end = size - 1;
    if (asked) {
      if (asked.start === null) start = Math.max(0, size - asked.suffix!);
      else {
        start = asked.start;
        end = asked.end === null ? size - 1 : Math.min(asked.end, size - 1);
      }
      if (start >= size) return null;
    }
    if (size === 0) return { status: 200, headers: { ...headers, 'content-length': '0' }, body: Buffer.alloc(0) };
    const first = Math.floor(start / this.cache.blockBytes);
    const last = Math.floor(end / this.cache.blockBytes);
    let blocks = await this.blocks(meta, first, last);
    if (blocks.some((b) => b === null)) {
      this.counts.toStore++;
      // Each run of missing blocks in one request.
      for (let i = first; i <= last; i++) {
        if (blocks[i - first] !== null) continue;
        let j = i;
        while (j < last && blocks[j + 1 - first] === null) j++;
        if (!(await this.fetchBlocks(objectPath, rawPath, meta, i, j))) return null;
        i = j;
      }
      blocks = await this.blocks(meta, first, last);
      if (blocks.some((b) => b === null)) return null;
    } else {
      this.counts.fromDisk++;
    }
    const whole = Buffer.concat(blocks as Buffer[]);
    const offset = first * this.cache.blockBytes;
    const body = whole.subarray(start - offset, end - offset + 1);
    return asked
      ? { status: 206, headers: { ...headers, 'content-range': `bytes ${start}-${end}/${size}` }, body }
      : { status: 200, headers, body };
  }

  private blocks(meta: CachedObjectMeta, first: number, last: number): Promise<Array<Buffer | null>> {
    const reads: Array<Promise<Buffer | null>> = [];
    for (let i = first; i <= last; i++) reads.push(this.cache.block(meta, i));
    return Promise.all(reads);
  }

  /**
   * Reads blocks `first`..`last` of an object from the store and keeps them (requests for the same
   * blocks at the same moment share one). Returns the object's record, or null when the store's
   * answer was not its bytes (missing, refused): the caller then passes the request on.
   */
  private async fetchBlocks(objectPath: string, rawPath: string, known: CachedObjectMeta | null, first: number, last: number, ahead = false): Promise<CachedObjectMeta | null> {
    const key = `${objectPath}\n${first}-${last}`;
    const running = this.inFlight.get(key);
    if (running) {
      await running;
      return this.cache.meta(objectPath);
    }
    let result: CachedObjectMeta | null = null;
    if (!ahead) this.readAhead.foregroundStarted();
    const job = (async () => {
      const start = first * this.cache.blockBytes;
      const end = (last + 1) * this.cache.blockBytes - 1;
      const answer = await this.forward('GET', rawPath, new URLSearchParams(), { range: `bytes=${start}-${known ? Math.min(end, known.size - 1) : end}` }, Buffer.alloc(0), ahead ? this.readAhead.requests : undefined);
      if (ahead) {
        this.counts.readAhead++;
        this.counts.readAheadBytes += answer.body.length;
      }
      let size: number;
      if (answer.status === 206) {
        const total = /\/(\d+)$/.exec(String(answer.headers['content-range'] ?? ''));
        if (!total) return;
        size = Number(total[1]);
      } else if (answer.status === 200 && start === 0) {
        size = answer.body.length;
      } else {
        return;
      }
      const lastModified = answer.headers['last-modified'];
      if (!lastModified) return;
      const meta: CachedObjectMeta = { path: objectPath, size, lastModified, etag: typeof answer.headers.etag === 'string' ? answer.headers.etag : null };
      await this.cache.remember(meta);
      const data = answer.status === 200 ? answer.body.subarray(start) : answer.body;
      // Read ahead: on disk only, until a search reads them (objectCache.ts).
      await this.cache.store(meta, first, data, !ahead);
      result = meta;
    })();
    this.inFlight.set(key, job);
    try {
      await job;
    } finally {
      this.inFlight.delete(key);
      if (!ahead) this.readAhead.foregroundEnded();
    }
    return result;
  }

  /** Sends a request to the store, signed for it (kept in `track` while under way, when given). */
  private async forward(method: string, rawPath: string, query: URLSearchParams, headers: http.IncomingHttpHeaders, body: Buffer, track?: Set<http.ClientRequest>): Promise<Answer> {
    let target: URL;
    let signedPath: string;
    if (this.upstream.endpoint) {
      target = new URL(this.upstream.endpoint);
      signedPath = `${target.pathname.replace(/\/$/, '')}${rawPath}`;
    } else {
      // AWS S3 itself: the bucket in the host name.
      const slash = rawPath.indexOf('/', 1);
      const bucket = rawPath.slice(1, slash < 0 ? undefined : slash);
      target = new URL(`https://${bucket}.s3.${this.upstream.region}.amazonaws.com`);
      signedPath = slash < 0 ? '/' : rawPath.slice(slash);
    }
    const forwarded: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (value !== undefined && FORWARDED.test(name)) forwarded[name] = Array.isArray(value) ? value.join(', ') : value;
    const queryObject: Record<string, string> = {};
    for (const [k, v] of query) queryObject[k] = v;
    const signed = await this.signer.sign({
      method,
      protocol: target.protocol,
      hostname: target.hostname,
      ...(target.port ? { port: Number(target.port) } : {}),
      path: signedPath,
      query: queryObject,
      headers: { ...forwarded, host: target.host, 'x-amz-content-sha256': body.length > 0 ? createHash('sha256').update(body).digest('hex') : EMPTY_SHA256, ...(body.length > 0 ? { 'content-length': String(body.length) } : {}) },
    });
    const search = [...query].map(([k, v]) => `${s3Escape(k)}=${s3Escape(v)}`).join('&');
    const transport = target.protocol === 'https:' ? https : http;
    return new Promise<Answer>((resolve, reject) => {
      const outgoing = transport.request(
        { method, protocol: target.protocol, hostname: target.hostname, port: target.port || undefined, path: `${signedPath}${search ? `?${search}` : ''}`, headers: signed.headers, agent: target.protocol === 'https:' ? httpsAgent : httpAgent },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (c: Buffer) => chunks.push(c));
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 502, headers: incoming.headers, body: Buffer.concat(chunks) }));
          incoming.on('error', reject);
          incoming.on('aborted', () => reject(new Error('the request was ended')));
        },
      );
      if (track) {
        track.add(outgoing);
        outgoing.on('close', () => track.delete(outgoing));
      }
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }
}

const httpAgent = new http.Agent({ keepAlive: true });
const httpsAgent = new https.Agent({ keepAlive: true });

function readBody(request: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** A `Range` header: null (none), a first and last byte (last null: to the end), a suffix length, or one not served from the cache (several ranges). */
function parseRange(range: string | undefined): null | 'unsupported' | { start: number; end: number | null; suffix?: undefined } | { start: null; end: null; suffix: number } {
  if (range === undefined) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'unsupported';
  if (m[1] === '') return Number(m[2]) > 0 ? { start: null, end: null, suffix: Number(m[2]) } : 'unsupported';
  const start = Number(m[1]);
  const end = m[2] === '' ? null : Number(m[2]);
  if (end !== null && end < start) return 'unsupported';
  return { start, end };
}
