/**
 * `session-memory mcp` is read without commander when its command line is nothing but `mcp` and the
 * options it takes (electron/cli/mcpCommand.ts); every other command line goes through the program,
 * which answers it as it always did (help, unknown options, options in the wrong place).
 */
import { describe, expect, it } from 'vitest';
import { hookCommandLine } from '../electron/cli/hookCommand.js';
import { mcpCommandLine } from '../electron/cli/mcpCommand.js';
import { runCli } from './helpers/cli.js';

const argv = (...args: string[]) => ['node', 'session-memory', ...args];

describe('the MCP server\'s command line', () => {
  it('takes the global options before `mcp` and --read-only after it', () => {
    expect(mcpCommandLine(argv('mcp'))).toEqual({ globals: {}, options: {} });
    expect(mcpCommandLine(argv('--data', '/srv/memory', '--single-writer', '--model', 'use-lite-en', 'mcp', '--read-only'))).toEqual({
      globals: { data: '/srv/memory', singleWriter: true, model: 'use-lite-en' },
      options: { readOnly: true },
    });
    expect(mcpCommandLine(argv('--data=s3+ddb://bucket/memory?ddbTableName=T', 'mcp'))).toEqual({ globals: { data: 's3+ddb://bucket/memory?ddbTableName=T' }, options: {} });
  });

  it('leaves every other command line to the program', () => {
    for (const args of [
      [],
      ['sessions'],
      ['--help'],
      ['mcp', '--help'],
      ['mcp', '--verbose'],
      ['mcp', 'extra'],
      ['--read-only', 'mcp'],
      ['mcp', '--data', '/srv/memory'],
      ['--data', '/a', '--data', '/b', 'mcp'],
      ['--data', '--model', 'mcp'],
      ['--', 'mcp'],
      ['hook', 'mcp'],
    ]) expect(mcpCommandLine(argv(...args)), args.join(' ')).toBeNull();
  });

  it('answers `mcp --help` and a misplaced option as the program does', async () => {
    const help = await runCli(['mcp', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--read-only/);
    const misplaced = await runCli(['--read-only', 'mcp']);
    expect(misplaced.status).toBe(2);
    expect(misplaced.stderr).toMatch(/unknown option '--read-only'/);
  }, 60_000);
});

describe('a hook\'s command line', () => {
  it('takes the global options before `hook`, its own after it, and Codex\'s notify JSON as its payload', () => {
    expect(hookCommandLine(argv('hook'))).toEqual({ globals: {}, payload: [], flags: {} });
    expect(hookCommandLine(argv('--data', '/srv/memory', 'hook', '--json', '--verbose', '--include', 'tools,thinking', '--file', '/logs/a.jsonl'))).toEqual({
      globals: { data: '/srv/memory' },
      payload: [],
      flags: { json: true, include: ['tools', 'thinking'], file: '/logs/a.jsonl' },
    });
    const notify = JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 't-1', 'last-assistant-message': '--looks like an option' });
    expect(hookCommandLine(argv('hook', notify))).toEqual({ globals: {}, payload: [notify], flags: {} });
  });

  it('leaves every other command line to the program, which runs the same hook', () => {
    for (const args of [
      ['hook', '--help'],
      ['hook', '--some-new-client-flag'],
      ['hook', '--data', '/srv/memory'],
      ['hook', '--include', 'everything'],
      ['hook', '--json', '--json'],
      ['--json', 'hook'],
      ['hook', '--', '{}'],
      ['sessions'],
      ['mcp'],
    ]) expect(hookCommandLine(argv(...args)), args.join(' ')).toBeNull();
  });
});
