/**
 * A TCP proxy on 127.0.0.1 for the benchmarks: every byte it passes, in either direction, waits
 * `delayMs` first (so a request and its answer cost one round trip of twice that), and it counts the
 * connections it accepts and the HTTP requests it forwards, by kind: for an S3 server GET (a read of
 * an object or a part of one), HEAD, PUT, DELETE, POST and LIST (a GET of a listing); for DynamoDB
 * the operation its `X-Amz-Target` names (GetItem, PutItem, Query, ...).
 */
import net from 'node:net';

export interface ProxyCounts {
  connections: number;
  requests: number;
  /** Requests by kind (GET, PUT, LIST, HEAD, ..., or a DynamoDB operation). */
  byKind: Record<string, number>;
  /** Bytes sent by the server (answers), and by the client (requests with their bodies). */
  bytesDown: number;
  bytesUp: number;
}

export interface LatencyProxy {
  /** `http://127.0.0.1:<port>`: the endpoint to give clients instead of the server's. */
  endpoint: string;
  /** The delay each way, in ms; may be changed between measurements. */
  delayMs: number;
  /** When set, each request is added to it: when it came (performance.now()), its kind, path and byte range (to see what an operation reads). */
  trace: string[] | null;
  counts(): ProxyCounts;
  close(): Promise<void>;
}

/** Counts minus an earlier snapshot of them. */
export function countsSince(now: ProxyCounts, before: ProxyCounts): ProxyCounts {
  const byKind: Record<string, number> = {};
  for (const [kind, n] of Object.entries(now.byKind)) if (n - (before.byKind[kind] ?? 0) > 0) byKind[kind] = n - (before.byKind[kind] ?? 0);
  return { connections: now.connections - before.connections, requests: now.requests - before.requests, byKind, bytesDown: now.bytesDown - before.bytesDown, bytesUp: now.bytesUp - before.bytesUp };
}

/**
 * Reads the HTTP/1.1 requests of one connection as they stream by: the head of each (request line and
 * headers), then its body by `Content-Length`, or chunk by chunk when it is sent chunked.
 */
class RequestReader {
  private buffer: Buffer = Buffer.alloc(0);
  private bodyLeft = 0;
  private chunked = false;

  constructor(private readonly onRequest: (kind: string, requestLine: string, headers: Map<string, string>) => void) {}

  push(data: Buffer): void {
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data]);
    for (;;) {
      if (this.bodyLeft > 0) {
        const take = Math.min(this.bodyLeft, this.buffer.length);
        this.bodyLeft -= take;
        this.buffer = this.buffer.subarray(take);
        if (this.bodyLeft > 0) return;
        continue;
      }
      if (this.chunked) {
        const lineEnd = this.buffer.indexOf('\r\n');
        if (lineEnd < 0) return;
        const size = parseInt(this.buffer.subarray(0, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size)) throw new Error('the proxy could not read a chunked request body');
        if (size === 0) {
          // The last chunk: no trailers are sent by the clients measured, so the body ends at the next blank line.
          const end = this.buffer.indexOf('\r\n\r\n', lineEnd);
          if (end < 0) return;
          this.buffer = this.buffer.subarray(end + 4);
          this.chunked = false;
          continue;
        }
        if (this.buffer.length < lineEnd + 2 + size + 2) return;
        this.buffer = this.buffer.subarray(lineEnd + 2 + size + 2);
        continue;
      }
      const headEnd = this.buffer.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = this.buffer.subarray(0, headEnd).toString('latin1');
      this.buffer = this.buffer.subarray(headEnd + 4);
      const [requestLine, ...headerLines] = head.split('\r\n');
      const headers = new Map(headerLines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      this.onRequest(kindOf(requestLine ?? '', headers), requestLine ?? '', headers);
      this.bodyLeft = Number(headers.get('content-length') ?? 0);
      this.chunked = /chunked/i.test(headers.get('transfer-encoding') ?? '');
    }
  }
}

function kindOf(requestLine: string, headers: Map<string, string>): string {
  const target = headers.get('x-amz-target');
  if (target) return target.slice(target.indexOf('.') + 1);
  const [method = '?', url = ''] = requestLine.split(' ');
  if (method === 'GET' && /[?&](list-type|prefix|delimiter)=/.test(url)) return 'LIST';
  return method;
}

/** Starts a proxy to `127.0.0.1:<targetPort>`. */
export async function startLatencyProxy(targetPort: number, delayMs: number): Promise<LatencyProxy> {
  const counts: ProxyCounts = { connections: 0, requests: 0, byKind: {}, bytesDown: 0, bytesUp: 0 };
  const sockets = new Set<net.Socket>();
  const proxy: LatencyProxy = {
    endpoint: '',
    delayMs,
    trace: null,
    counts: () => ({ ...counts, byKind: { ...counts.byKind } }),
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
  /** Passes `from`'s bytes to `to` after the delay, in order; an end or error is passed on the same way. */
  const pipeDelayed = (from: net.Socket, to: net.Socket, onData: (data: Buffer) => void) => {
    from.on('data', (data: Buffer) => {
      onData(data);
      const send = () => {
        if (!to.destroyed) to.write(data);
      };
      // Timers of equal delay fire in the order they were set: the bytes stay in order.
      if (proxy.delayMs > 0) setTimeout(send, proxy.delayMs);
      else send();
    });
    from.on('end', () => (proxy.delayMs > 0 ? setTimeout(() => to.end(), proxy.delayMs) : to.end()));
    from.on('error', () => to.destroy());
    from.on('close', () => setTimeout(() => to.destroy(), proxy.delayMs + 1));
  };
  const server = net.createServer((client) => {
    counts.connections++;
    const upstream = net.connect(targetPort, '127.0.0.1');
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client);
    sockets.add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    const reader = new RequestReader((kind, requestLine, headers) => {
      counts.requests++;
      counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
      const range = headers.get('range');
      proxy.trace?.push(`${performance.now().toFixed(0)} ${kind} ${decodeURIComponent(requestLine.split(' ')[1] ?? '')}${range ? ` ${range}` : ''}`);
    });
    pipeDelayed(client, upstream, (data) => {
      counts.bytesUp += data.length;
      reader.push(data);
    });
    pipeDelayed(upstream, client, (data) => (counts.bytesDown += data.length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return proxy;
}
