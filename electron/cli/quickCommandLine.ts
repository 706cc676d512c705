/**
 * The command lines read without building the program (commander): a hook's and the MCP server's,
 * which assistants wait for. Read with Node's own parser; anything it does not take is left to the
 * program, which answers it as it always did (help, unknown options, options in the wrong place).
 */
import { parseArgs } from 'node:util';
import type { GlobalOptions } from './support.js';

const GLOBAL_OPTIONS = { data: { type: 'string' }, model: { type: 'string' }, 'single-writer': { type: 'boolean' } } as const;

export interface QuickCommandLine {
  globals: GlobalOptions;
  /** The command's own options given: a string's value, or true for a flag. */
  options: Map<string, string | true>;
  /** The words after the command. */
  positionals: string[];
}

/**
 * `[global options] <command> [its options and words]`: the global options before the command and
 * its own (`own`) after it, each at most once, and no value that looks like an option. Null for any
 * other command line.
 */
export function quickCommandLine(argv: string[], command: string, own: Record<string, { type: 'string' | 'boolean' }>): QuickCommandLine | null {
  let tokens;
  try {
    ({ tokens } = parseArgs({ args: argv.slice(2), options: { ...GLOBAL_OPTIONS, ...own }, allowPositionals: true, strict: true, tokens: true }));
  } catch {
    return null;
  }
  const at = tokens.findIndex((token) => token.kind === 'positional');
  const name = tokens[at];
  if (name?.kind !== 'positional' || name.value !== command) return null;
  const line: QuickCommandLine = { globals: {}, options: new Map(), positionals: [] };
  const seen = new Set<string>();
  for (const [index, token] of tokens.entries()) {
    if (index === at) continue;
    if (token.kind === 'option-terminator') return null;
    if (token.kind === 'positional') {
      line.positionals.push(token.value);
      continue;
    }
    const { name: option, value } = token as { name: string; value?: string };
    if (seen.has(option) || value?.startsWith('-')) return null;
    seen.add(option);
    if (option in GLOBAL_OPTIONS !== index < at) return null;
    if (option === 'data') line.globals.data = value!;
    else if (option === 'model') line.globals.model = value!;
    else if (option === 'single-writer') line.globals.singleWriter = true;
    else line.options.set(option, value ?? true);
  }
  return line;
}
