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
import { BIN, cliEnv, HASH_EMBEDDER, REPO, runCli } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';
import { mcpHandshake } from '../scripts/mcpHandshake.js';
import { loadedModules, loadedModulesEnv, loadedOf } from './helpers/loadedModules.js';

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

  it('has loaded neither the engine, the store, the importers, the sources\' code, the SDK\'s ajv, the CLI\'s other commands, zod\'s translations nor zod 3 when it answers the tool list', async () => {
    const dir = scratch();
    const loaded = path.join(dir, 'loaded.txt');
    mkdirSync(path.join(dir, 'data'));
    const child = spawn(process.execPath, [BIN, '--data', path.join(dir, 'data'), 'mcp'], { cwd: REPO, env: cliEnv(loadedModulesEnv(loaded)), stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      const tools = await within(60_000, 'tools/list', mcpHandshake(child, 'loaded-modules'));
      // What was loaded before the second answer (the tool list) was written; the warm-up loads the rest after it.
      const modules = await loadedModules(loaded, 2);
      expect(tools).toContain('search_memory');
      expect(modules).toContain('electron/mcp/server.ts');
      expect(loadedOf(modules, ['@lancedb/lancedb', 'apache-arrow', 'onnxruntime-node', '@huggingface/transformers', 'electron/engine/store/', 'electron/engine/engine.ts', 'electron/importers/formats.ts', 'electron/sources/', 'tinyglobby', 'cli-progress', 'pino', 'ajv', 'ajv-formats'])).toEqual([]);
      // A command line of `mcp` alone is read without the program: neither commander nor the other commands load.
      expect(loadedOf(modules, ['commander', 'electron/cli/program.ts', 'electron/cli/sourceCommands.ts', 'electron/cli/connectCommands.ts'])).toEqual([]);
      // zod's messages in other languages than English (half a megabyte of code) are left out.
      expect(loadedOf(modules, ['node_modules/zod/v4/locales/de.js', 'node_modules/zod/v4/locales/ja.js'])).toEqual([]);
      // The tools stand on the SDK's protocol-level server: neither its McpServer nor the zod 3 that McpServer brings along.
      expect(loadedOf(modules, ['node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js', 'node_modules/zod/v3/', 'node_modules/zod-to-json-schema/dist/esm/parseDef.js'])).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);

  it('loads the reading of times in questions with the store and the model after the tool list, so the first search does not wait for it', async () => {
    const dir = scratch();
    const data = path.join(dir, 'data');
    const loaded = path.join(dir, 'loaded.txt');
    const transcript = path.join(dir, 'talk.json');
    writeFileSync(transcript, JSON.stringify({ session_id: 'garden-talk', messages: [{ role: 'user', content: 'When do tulips bloom?' }, { role: 'assistant', content: 'In April, mostly.' }] }));
    expect((await runCli(['--data', data, 'save', transcript], HASH_EMBEDDER)).status).toBe(0);
    const child = spawn(process.execPath, [BIN, '--data', data, 'mcp'], { cwd: REPO, env: cliEnv({ ...HASH_EMBEDDER, ...loadedModulesEnv(loaded) }), stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      await within(60_000, 'tools/list', mcpHandshake(child, 'time-reading'));
      // No tool is called: only the warm-up can load it.
      const started = Date.now();
      let found: string[] = [];
      while (found.length === 0 && Date.now() - started < 60_000) {
        await new Promise((r) => setTimeout(r, 200));
        found = loadedOf(await loadedModules(loaded), ['chrono-node']);
      }
      expect(found.length).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
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
    // The warm-up starts once the tool list is answered; the client goes away at once.
    void mcpHandshake(child, 'short-session').then(() => child.stdin.end(), () => {});
    try {
      expect(await within(120_000, 'the exit', exited)).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 240_000);
});
