/**
 * `session-memory mcp` is read without commander when its command line is nothing but `mcp` and the
 * options it takes (electron/cli/mcpCommand.ts); every other command line goes through the program,
 * which answers it as it always did (help, unknown options, options in the wrong place).
 */
import { describe, expect, it } from 'vitest';
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
