/**
 * Web mode: the same UI in a browser, backed by the same handlers over HTTP.
 *
 * Listens on 127.0.0.1 only. Every API request must carry this run's random token (a bearer header,
 * or `?token=` for the event stream, which browsers cannot give headers); without it the answer is
 * 401. The Host header must name this server (no DNS rebinding), and a request from another page's
 * Origin is refused (403), so no other origin can call it.
 */
import http from 'node:http';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import type { EventMap, EventName, ResponseMap } from '../../shared/ipc.js';
import { MAX_INLINE_STAGED_BYTES, MAX_STAGED_BYTES } from '../../shared/ipc.js';
import { toErrorInfo } from './memoryHost.js';
import { FileTooLargeError } from './staging.js';
import { dispatch } from './dispatch.js';
import type { Handlers } from './memoryHost.js';

export interface WebServerOptions {
  handlers: Handlers;
  /** The built UI (dist-renderer). */
  staticDir: string;
  port?: number;
  token?: string;
  /** Stages a file from a streamed request body (`POST /api/files:upload?name=...`). */
  upload?: (name: string, body: Readable) => Promise<ResponseMap['files:stage']>;
}

export interface WebServer {
  url: string;
  token: string;
  port: number;
  emit<E extends EventName>(event: E, payload: EventMap[E]): void;
  close(): Promise<void>;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";
/** Base64 of the largest file sent whole, plus room for the JSON around it; larger files are uploaded as a stream. */
const MAX_BODY = Math.ceil(MAX_INLINE_STAGED_BYTES / 3) * 4 + 64 * 1024;

function sameToken(given: string | null | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const listeners = new Set<http.ServerResponse>();
  let port = 0;
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const origins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      if (!allowedHosts().has(req.headers.host ?? '')) return send(res, 403, { ok: false, error: { code: 'forbidden', message: 'wrong Host header' } });
      if (url.pathname.startsWith('/api/')) {
        const origin = req.headers.origin;
        if (origin && !origins().has(origin)) return send(res, 403, { ok: false, error: { code: 'forbidden', message: 'requests from other origins are refused' } });
        const bearer = req.headers.authorization?.replace(/^Bearer\s+/i, '');
        if (!sameToken(bearer ?? url.searchParams.get('token'), token)) return send(res, 401, { ok: false, error: { code: 'forbidden', message: 'missing or wrong token' } });
        if (url.pathname === '/api/events' && req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
          res.write(': connected\n\n');
          listeners.add(res);
          req.on('close', () => listeners.delete(res));
          return;
        }
        if (req.method !== 'POST') return send(res, 405, { ok: false, error: { code: 'invalid_request', message: 'use POST' } });
        if (url.pathname === '/api/files:upload' && options.upload) {
          // The file is the raw body, streamed to disk: never held whole, in memory or as a string.
          const name = url.searchParams.get('name') ?? '';
          if (name === '' || name.length > 255) return send(res, 400, { ok: false, error: { code: 'invalid_request', message: 'files:upload: name: give the file name (1 to 255 characters)' } });
          const declared = Number(req.headers['content-length'] ?? 0);
          if (declared > MAX_STAGED_BYTES) {
            return refuseBody(req, res, 413, { ok: false, error: { code: 'invalid_request', message: `${name}: larger than the ${MAX_STAGED_BYTES / 1024 / 1024} MB a file may have` } });
          }
          // The stager reads a stream of its own: when it stops early (the limit), the request stays
          // open, so the client reads the answer instead of a reset connection.
          const body = new PassThrough();
          req.pipe(body);
          try {
            return send(res, 200, { ok: true, value: await options.upload(name, body) });
          } catch (error) {
            req.unpipe(body);
            return refuseBody(req, res, error instanceof FileTooLargeError ? 413 : 200, { ok: false, error: toErrorInfo(error) });
          }
        }
        const body = await readBody(req);
        let request: unknown;
        try {
          request = body.length === 0 ? {} : JSON.parse(body);
        } catch {
          return send(res, 400, { ok: false, error: { code: 'invalid_request', message: 'the body is not JSON' } });
        }
        const channel = decodePath(url.pathname.slice('/api/'.length));
        if (channel === null) return send(res, 400, { ok: false, error: { code: 'invalid_request', message: 'the path has a malformed % escape' } });
        const result = await dispatch(options.handlers, channel, request);
        return send(res, result.ok || result.error.code !== 'invalid_request' ? 200 : 400, result);
      }
      return await serveStatic(options.staticDir, url.pathname, res);
    } catch (error) {
      if ((error as Error).message === 'too large') return refuseBody(req, res, 413, { ok: false, error: { code: 'invalid_request', message: 'request too large' } });
      send(res, 500, { ok: false, error: { code: 'internal', message: 'internal error' } });
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    token,
    port,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    emit(event, payload) {
      const frame = `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
      for (const res of listeners) res.write(frame);
    },
    async close() {
      for (const res of listeners) res.end();
      listeners.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL path with its % escapes decoded; null when one is malformed (`%E0%A4%A`, `%zz`). */
function decodePath(pathname: string): string | null {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return null;
  }
}

/**
 * Answers a request whose body is refused, then reads and drops the rest of the body: a client
 * still sending would otherwise meet a reset connection before it reads the answer. The connection
 * is closed once the body has ended.
 */
function refuseBody(req: http.IncomingMessage, res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', connection: 'close' });
  res.end(JSON.stringify(body));
  req.resume();
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        // Not destroyed: the answer (413) goes out first, and the rest of the body is read and dropped.
        req.removeAllListeners('data');
        reject(new Error('too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function serveStatic(root: string, pathname: string, res: http.ServerResponse): Promise<void> {
  const decoded = decodePath(pathname);
  if (decoded === null) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('malformed % escape in the path');
    return;
  }
  const relative = pathname === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
  const file = path.resolve(root, relative);
  if (!file.startsWith(path.resolve(root) + path.sep)) {
    res.writeHead(404).end();
    return;
  }
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) throw new Error('not a file');
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream', 'content-security-policy': CSP, 'x-content-type-options': 'nosniff' });
  createReadStream(file).pipe(res);
}
