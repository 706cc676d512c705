/**
 * What `session-memory --help` loads: the program's commands and options, and none of what the
 * commands do (the store, the importers, the sources, the MCP server, zod), so that it and every
 * command start without paying for the others. The hook's and the MCP server's own start are
 * checked the same way in hooks.test.ts and mcpHandshake.test.ts.
 */
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { loadedModules, loadedModulesEnv, loadedOf } from './helpers/loadedModules.js';
import { runCli } from './helpers/cli.js';
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
});
