/**
 * Web mode at its edges: where uploads are staged, what a client hears past the size limit, and
 * how a malformed path is answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MemoryHost } from '../electron/host/memoryHost.js';
import { StagingArea } from '../electron/host/staging.js';
import { startWebServer, type WebServer } from '../electron/host/webServer.js';
import { TEST_MODELS_DIR } from './helpers/model.js';
import { tempDir } from './helpers/engine.js';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((c) => c()));

function dir(): string {
  const t = tempDir('sm-web-');
  cleanups.push(t.cleanup);
  return t.dir;
}

const LIMIT = 64 * 1024;

/** POSTs `total` bytes in pieces, as a browser streams a large file, and reads the answer. */
function streamUpload(port: number, token: string, total: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/files:upload?name=big.json', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const piece = Buffer.alloc(16 * 1024, 'x');
    let sent = 0;
    const write = () => {
      while (sent < total) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

function get(port: number, pathname: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: pathname, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

describe('web mode uploads and paths', () => {
  let server: WebServer;
  let host: MemoryHost;
  let staging: StagingArea;
  let stagingRoot: string;
  beforeAll(async () => {
    const root = dir();
    const staticDir = path.join(root, 'ui');
    mkdirSync(staticDir);
    writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>Session Memory</title>');
    host = new MemoryHost({ dataDir: path.join(root, 'data'), model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
    stagingRoot = path.join(root, 'limited');
    staging = new StagingArea(stagingRoot);
    server = await startWebServer({ handlers: host.handlers, staticDir, upload: (name, body) => staging.stageStream(name, body, LIMIT) });
  });
  afterAll(async () => {
    await server.close();
    await staging.close();
    await host.close();
  });

  it('answers an upload past the size limit with 413 and the JSON error, not a reset connection, and keeps nothing of it', async () => {
    const answer = await streamUpload(server.port, server.token, 16 * LIMIT);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ ok: false, error: { code: 'invalid_request', message: expect.stringMatching(/^big\.json: larger than/) } });
    expect(readdirSync(stagingRoot).flatMap((n) => readdirSync(path.join(stagingRoot, n)))).toEqual([]);
    // The server goes on answering.
    expect((await get(server.port, '/')).status).toBe(200);
  });

  it('answers a malformed % escape with 400, on the API and for the UI', async () => {
    const api = await get(server.port, '/api/sessions%E0%A4%A', { authorization: `Bearer ${server.token}` }, 'POST');
    expect(api.status).toBe(400);
    expect(JSON.parse(api.body)).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect((await get(server.port, '/assets/%zz.js')).status).toBe(400);
  });
});

describe('staging', () => {
  it('stages dropped files under the data folder and sweeps what a killed run left there at start', async () => {
    const dataDir = dir();
    // A run killed with a file staged: its process (a pid no system hands out) is gone.
    const leftover = path.join(dataDir, 'staging', '99999999-abc123', 'file-id');
    mkdirSync(leftover, { recursive: true });
    writeFileSync(path.join(leftover, 'export.json'), '{"secret": "unredacted"}');
    const host = new MemoryHost({ dataDir, model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
    try {
      expect(existsSync(path.join(dataDir, 'staging', '99999999-abc123'))).toBe(false);
      const staged = await host.handlers['files:stage']({ name: 'chat.json', dataBase64: Buffer.from('{}').toString('base64') });
      const ours = readdirSync(path.join(dataDir, 'staging'));
      expect(ours).toHaveLength(1);
      expect(ours[0]).toMatch(new RegExp(`^${process.pid}-`));
      expect(readdirSync(path.join(dataDir, 'staging', ours[0]!))).toEqual([staged.fileId]);
      // Another host on the same data folder (web mode beside the app) leaves a running one's files alone.
      const second = new MemoryHost({ dataDir, model: 'use-lite-en', modelsDir: TEST_MODELS_DIR });
      expect(readdirSync(path.join(dataDir, 'staging', ours[0]!))).toEqual([staged.fileId]);
      await second.close();
    } finally {
      await host.close();
    }
  });
});
