/**
 * How an assistant starts this install's CLI: node running the checkout's bin script, or the
 * installed app's own binary running its bundled CLI with ELECTRON_RUN_AS_NODE=1.
 */
import path from 'node:path';
import type { McpLaunch } from '../../shared/ipc.js';

/** The CLI as this very process runs it (absolute paths, so an assistant's shell needs no PATH). */
export function runningCliLauncher(argv: readonly string[] = process.argv, versions: NodeJS.ProcessVersions = process.versions, execPath = process.execPath): McpLaunch {
  const script = path.resolve(argv[1] ?? '');
  return { command: execPath, args: [script], env: versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}

/** The launcher with the global options and a subcommand after it: `<cli> --data <dir> mcp`. */
export function cliCommand(launcher: McpLaunch, options: readonly string[], command: readonly string[]): McpLaunch {
  return { command: launcher.command, args: [...launcher.args, ...options, ...command], env: { ...launcher.env } };
}

/** A POSIX shell word: bare when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line a hook runs through the client's shell, variables first. Claude Code, Codex,
 * Gemini CLI and Cursor run hooks through a POSIX shell (Git Bash on Windows for Claude Code).
 */
export function shellCommandLine(launch: McpLaunch): string {
  const env = Object.entries(launch.env).map(([key, value]) => `${key}=${shellWord(value)}`);
  return [...env, ...[launch.command, ...launch.args].map(shellWord)].join(' ');
}

/** A PowerShell word: always single-quoted ('' inside stands for one quote). */
export function powershellWord(word: string): string {
  return `'${word.replace(/'/g, "''")}'`;
}

/**
 * The command line for a client that runs hooks through PowerShell (Gemini CLI on Windows: `powershell
 * -Command <line>`): the call operator `&` runs a quoted path; variables are the hook entry's `env`.
 */
export function powershellCommandLine(launch: Pick<McpLaunch, 'command' | 'args'>): string {
  return `& ${[launch.command, ...launch.args].map(powershellWord).join(' ')}`;
}

/** The `command`/`args`/`env` of an MCP server entry (env left out when empty, as the clients' examples do). */
export function mcpEntry(launch: McpLaunch): { command: string; args: string[]; env?: Record<string, string> } {
  return { command: launch.command, args: [...launch.args], ...(Object.keys(launch.env).length > 0 ? { env: { ...launch.env } } : {}) };
}
