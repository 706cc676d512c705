/**
 * `session-memory hook` as assistants run it after every turn: found among the arguments before the
 * program is built, run quietly, and logged (hookLog.ts).
 */
import { appendHookLog, type HookLogLine } from './hookLog.js';
import { dataDirOf, type Io } from './support.js';

/** `hook` among the arguments (after the global options), with the data folder they name and whether --verbose is given. */
export function hookRun(argv: string[]): { data?: string; verbose: boolean } | null {
  let data: string | undefined;
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--data' || arg === '--model') {
      if (arg === '--data') data = argv[i + 1];
      i++;
    } else if (arg.startsWith('--data=')) data = arg.slice('--data='.length);
    else if (arg.startsWith('-')) continue;
    else return arg === 'hook' ? { ...(data !== undefined ? { data } : {}), verbose: argv.slice(i + 1).includes('--verbose') } : null;
  }
  return null;
}

/**
 * An assistant runs `hook` after each turn and shows the person whatever it prints and any exit
 * status but 0 (Claude Code reads 2 from a Stop hook as "do not stop", Gemini CLI as "retry", Codex
 * as "continue"). So a hook prints nothing of its own on stdout (save reports only with --json),
 * writes what it did to the hooks' log (and to stderr only with --verbose), and exits 0 whatever
 * happened, unknown or bad arguments included.
 */
export async function runHook(argv: string[], io: Io, hook: { data?: string; verbose: boolean }, run: (argv: string[], io: Io) => Promise<number>): Promise<number> {
  const lines: HookLogLine[] = [];
  const quiet: Io = {
    ...io,
    err: (line) => {
      lines.push({ level: /^(session-memory: |error: )/.test(line) ? 'warn' : 'info', msg: line });
      if (hook.verbose) io.err(line);
    },
  };
  const status = await run(argv, quiet);
  if (status !== 0 && !lines.some((l) => l.level !== 'info')) lines.push({ level: 'error', msg: `hook exited with status ${status}` });
  let dataDir: string;
  try {
    dataDir = dataDirOf({ ...(hook.data !== undefined ? { data: hook.data } : {}) });
  } catch {
    dataDir = dataDirOf({});
  }
  await appendHookLog(dataDir, lines);
  return 0;
}
