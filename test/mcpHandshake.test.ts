/**
 * The MCP server's handshake does not wait for the store's code: an assistant that starts the server
 * with its session (Codex) sends its first request to the model once the handshake and the tool list
 * are answered, and a server still loading LanceDB and the model then would leave the memory tools
 * out of that first turn. Here LanceDB's package is held back (module hooks, test/fixtures/hold) until
 * the test lets it load: the handshake and the tool list must be answered meanwhile.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, cliEnv, REPO, runCli } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';

const scratch = scratchDirs('sm-mcp-handshake-');
const HOLD = path.join(REPO, 'test', 'fixtures', 'hold', 'register.mjs');

function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} not answered within ${ms} ms`)), ms))]);
}

describe('session-memory mcp start-up', () => {
  it('answers the handshake and the tool list before the store\'s code has loaded, then serves the tools once it has', async () => {
    const dir = scratch();
    const requested = path.join(dir, 'lancedb-requested');
    const release = path.join(dir, 'lancedb-release');
    const env = cliEnv({
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${HOLD}`.trim(),
      HOLD_SPECIFIER: '@lancedb/lancedb',
      HOLD_REQUESTED_FILE: requested,
      HOLD_RELEASE_FILE: release,
    }) as Record<string, string>;
    // A data folder without a store yet: the server looks for one (with the store's code) after the tool list.
    mkdirSync(path.join(dir, 'data'));
    let stderr = '';
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--data', path.join(dir, 'data'), 'mcp'], cwd: REPO, env, stderr: 'pipe' });
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'first-turn', version: '1.0.0' });
    try {
      await within(60_000, `the handshake (stderr: ${stderr})`, client.connect(transport));
      const { tools } = await within(30_000, 'tools/list', client.listTools());
      expect(tools.map((t) => t.name)).toContain('search_memory');
      expect(existsSync(release)).toBe(false);

      // After the tool list, the store's code starts loading in the background (and waits here).
      const started = Date.now();
      while (!existsSync(requested) && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(requested)).toBe(true);

      writeFileSync(release, '');
      const listed = (await within(60_000, 'list_sessions', client.callTool({ name: 'list_sessions', arguments: {} }))) as { isError?: boolean; content: Array<{ text?: string }> };
      expect(listed.isError).toBeFalsy();
      expect(listed.content[0]?.text).toBe('No sessions archived yet.');
    } finally {
      writeFileSync(release, '');
      await client.close();
    }
  }, 180_000);

  it('exits when the client hangs up right after the tool list, while the store and the model are still loading', async () => {
    const dir = scratch();
    const data = path.join(dir, 'data');
    const transcript = path.join(dir, 'talk.json');
    writeFileSync(transcript, JSON.stringify({ session_id: 'garden-talk', messages: [{ role: 'user', content: 'When do tulips bloom?' }, { role: 'assistant', content: 'In April, mostly.' }] }));
    expect((await runCli(['--data', data, 'save', transcript])).status).toBe(0);

    const child = spawn(process.execPath, [BIN, '--data', data, 'mcp'], { cwd: REPO, env: cliEnv(), stdio: ['pipe', 'pipe', 'ignore'] });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const reply = JSON.parse(buffer.slice(0, newline)) as { id?: number };
        buffer = buffer.slice(newline + 1);
        if (reply.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/list' });
        } else if (reply.id === 2) {
          // The warm-up starts now; the client goes away at once.
          child.stdin.end();
        }
      }
    });
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'short-session', version: '1' } } });
    try {
      expect(await within(120_000, 'the exit', exited)).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 240_000);
});
