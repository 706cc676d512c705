/**
 * `session-memory`: the same jobs as the desktop app, headless. The program (commander and every
 * command's options, program.ts) loads for any command line but two that must start quickly: a hook,
 * which assistants run after every turn (hookRun.ts), and the MCP server, whose handshake an
 * assistant waits for when it starts a session (mcpCommand.ts).
 */
import { failureStatus } from './failure.js';
import { hookRun, runHook } from './hookRun.js';
import { mcpCommandLine, serveMcp } from './mcpCommand.js';
import { defaultIo, type Io } from './support.js';

export { describeReport, describeSkipped, reportJson } from './support.js';

/** Runs the CLI and returns the exit status. Errors become one line on stderr. */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const hook = hookRun(argv);
  if (hook) {
    // A hook's usual command line runs its action without building the program (hookCommand.ts).
    const { hookCommandLine, saveFromHook } = await import('./hookCommand.js');
    const quick = hookCommandLine(argv);
    const quickRun = async (_argv: string[], quiet: Io): Promise<number> => {
      try {
        await saveFromHook(quiet, quick!.globals, quick!.payload, quick!.flags);
        return 0;
      } catch (error) {
        return failureStatus(error, quiet);
      }
    };
    return runHook(argv, io, hook, quick ? quickRun : run);
  }
  const mcp = mcpCommandLine(argv);
  if (mcp) {
    try {
      await serveMcp(io, mcp.globals, mcp.options);
      return 0;
    } catch (error) {
      return failureStatus(error, io);
    }
  }
  return run(argv, io);
}

async function run(argv: string[], io: Io): Promise<number> {
  return (await import('./program.js')).run(argv, io);
}
