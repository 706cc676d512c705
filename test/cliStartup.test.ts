/**
 * What `session-memory --help` loads: the program's commands and options, and none of what the
 * commands do (the store, the importers, the sources, the MCP server, zod), so that it and every
 * command start without paying for the others. The hook's and the MCP server's own start are
 * checked the same way in hooks.test.ts and mcpHandshake.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { loadedModules, loadedModulesEnv, loadedOf } from './helpers/loadedModules.js';
import { HASH_EMBEDDER, runCli } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';

const scratch = scratchDirs('sm-cli-startup-');

describe('session-memory start-up', () => {
  it('--help lists every command and loads none of the code that runs them', async () => {
    const loaded = path.join(scratch(), 'loaded.txt');
    const help = await runCli(['--help'], loadedModulesEnv(loaded));
    expect(help.status).toBe(0);
    for (const command of ['save', 'import', 'sessions', 'search', 'mcp', 'sources', 'sync', 'hook', 'connect', 'service', 'copy', 'verify']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const modules = await loadedModules(loaded);
    expect(modules).toContain('electron/cli/main.ts');
    expect(loadedOf(modules, ['electron/cli/storeCommands.ts', 'electron/cli/engineSupport.ts', 'electron/engine/engine.ts', 'electron/importers/', 'electron/sources/', 'electron/mcp/', 'electron/connect/connect.ts', 'zod', '@modelcontextprotocol/sdk', 'tinyglobby', 'cli-progress', '@lancedb/lancedb', 'pino'])).toEqual([]);
  }, 60_000);

  it('a save and a listing on a folder load neither the time reading (chrono-node), which only a search needs, nor the S3 client; a search loads the time reading and reads the time it names', async () => {
    const dir = scratch();
    const data = path.join(dir, 'data');
    const file = path.join(dir, 'chat.json');
    await fs.writeFile(file, JSON.stringify({ session_id: 'trip', messages: [{ role: 'user', content: 'We booked the ferry to the islands for March 3, 2024.' }, { role: 'assistant', content: 'Noted: the ferry on March 3.' }] }));
    for (const [name, args] of [['save', ['save', file]], ['sessions', ['sessions', '--json']]] as const) {
      const loaded = path.join(dir, `${name}.txt`);
      const run = await runCli(['--data', data, ...args], { ...HASH_EMBEDDER, ...loadedModulesEnv(loaded) });
      expect(run.status, run.stderr).toBe(0);
      const modules = await loadedModules(loaded);
      expect(modules, name).toContain('node_modules/@lancedb/lancedb/dist/index.js');
      expect(loadedOf(modules, ['chrono-node', '@aws-sdk/client-s3', '@smithy/core', 'electron/engine/store/storeProbe.ts', 'electron/engine/store/objectCacheEndpoint.ts']), name).toEqual([]);
    }
    const loaded = path.join(dir, 'search.txt');
    const found = await runCli(['--data', data, 'search', 'What did we book in March 2024?', '--json'], { ...HASH_EMBEDDER, ...loadedModulesEnv(loaded) });
    expect(found.status, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout)).toEqual([expect.objectContaining({ sessionId: 'trip' })]);
    expect(loadedOf(await loadedModules(loaded), ['chrono-node']).length).toBeGreaterThan(0);
  }, 120_000);
});
