/**
 * The MCP server's handshake does not wait for the store's code: an assistant that starts the server
 * with its session (Codex) sends its first request to the model once the handshake and the tool list
 * are answered, and a server still loading LanceDB and the model then would leave the memory tools
 * out of that first turn. Here LanceDB's package is held back (module hooks, test/fixtures/hold) until
 * the test lets it load: the handshake and the tool list must be answered meanwhile.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, cliEnv, REPO } from './helpers/cli.js';
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
});
