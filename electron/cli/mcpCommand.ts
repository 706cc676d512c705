/**
 * `session-memory mcp`: the MCP server on stdio. An assistant starts it with each of its sessions
 * and waits for its handshake, so a command line that is nothing but `mcp` and the options it takes
 * is read here with Node's own parser (mcpCommandLine), without building the program and loading
 * commander and every other command: main.ts calls serveMcp directly. Any other command line
 * (`mcp --help`, an unknown option, a typo) goes through the program, which answers it as before.
 */
import path from 'node:path';
import { quickCommandLine } from './quickCommandLine.js';
import { locationOf, type GlobalOptions, type Io } from './support.js';

export interface McpFlags {
  readOnly?: boolean;
}

export async function serveMcp(io: Io, globals: GlobalOptions, options: McpFlags): Promise<void> {
  const { serveStdio } = await import('../mcp/stdio.js');
  const location = locationOf(globals);
  const modelsDir = process.env.SESSION_MEMORY_MODELS_DIR ?? location.modelsDir;
  await serveStdio({
    dataDir: location.dataDir,
    ...(location.shared ? { storeUri: location.storeUri } : {}),
    ...(globals.singleWriter ? { singleWriter: true } : {}),
    ...(globals.model ? { model: globals.model } : {}),
    ...(modelsDir ? { modelsDir: path.resolve(modelsDir) } : {}),
    readOnly: Boolean(options.readOnly),
    logger: { warn: (m) => io.err(`warning: ${m}`), info: (m) => io.err(m) },
  });
}

/**
 * The options of `[global options] mcp [--read-only]`, or null for any other command line. Global
 * options are taken before `mcp` and `--read-only` after it, as the program takes them; each option
 * at most once, and a value that looks like an option is left to the program to judge.
 */
export function mcpCommandLine(argv: string[]): { globals: GlobalOptions; options: McpFlags } | null {
  const line = quickCommandLine(argv, 'mcp', { 'read-only': { type: 'boolean' } });
  if (!line || line.positionals.length > 0) return null;
  return { globals: line.globals, options: line.options.has('read-only') ? { readOnly: true } : {} };
}
