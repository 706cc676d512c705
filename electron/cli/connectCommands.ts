/**
 * `connect` and `service`: set an assistant up to use this memory (its MCP server entry and its
 * per-turn hook, in the assistant's own configuration), and `sync --watch` as a user service.
 */
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { ExitStatus, type GlobalOptions, type Io } from './support.js';
import { cliCommand, runningCliLauncher } from '../connect/launch.js';
import { resolveModel } from '../embedding/models.js';
import { ASSISTANT_IDS, type AssistantId } from '../../shared/assistants.js';
import type { McpLaunch } from '../../shared/ipc.js';
// The assistants' configuration code (its JSON5 and TOML parsers) loads only when `connect` or
// `service` runs: every other command, a hook after each turn above all, starts without it.

/**
 * The CLI as an assistant or a service should start it: this install's, with the store this command
 * was given, and the model it was given unless the store holds another (`storeModel`: the store's
 * model, null when there is no store yet, undefined when not known).
 */
export function launcherFor(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env, base: McpLaunch = runningCliLauncher(), storeModel?: string | null): McpLaunch {
  // The assistant does not see this shell's SESSION_MEMORY_HOME: a store named either way is written out.
  const data = options.data ?? env.SESSION_MEMORY_HOME;
  const args: string[] = [];
  if (data) args.push('--data', /^[a-z][a-z0-9+.-]*:\/\//i.test(data) ? data : path.resolve(data));
  if (options.singleWriter) args.push('--single-writer');
  // The model too: the first hook's save creates the store, and without the model it would take
  // the multilingual default (a download), not the one chosen (`use-lite-en` offline). Not when the
  // store holds another model (its own is used; the one named would be refused at every turn).
  const model = options.model ?? env.SESSION_MEMORY_MODEL;
  if (model && (storeModel === null || storeModel === resolveModel(model, '').name)) args.push('--model', modelArgument(model));
  return cliCommand(base, args, []);
}

/** A model named by its folder, as an absolute path (the assistant runs the hook in another folder); a name as it is. */
function modelArgument(model: string): string {
  const spec = resolveModel(model, '');
  return spec.kind === 'local' ? spec.dir : model;
}

/** The store's model (null: no store yet), read only when a model was named (it loads the store's code). */
async function storeModelIfAsked(options: GlobalOptions): Promise<string | null | undefined> {
  if (!(options.model ?? process.env.SESSION_MEMORY_MODEL)) return undefined;
  return (await import('./engineSupport.js')).storeModel(options);
}

export function registerConnectCommands(program: Command, io: Io, globals: () => GlobalOptions): void {
  program
    .command('connect')
    .description('write this memory\'s MCP server and per-turn save hook into an assistant\'s own configuration (merged with what is there, backup kept)')
    .addArgument(program.createArgument('<tool>', 'the assistant').choices([...ASSISTANT_IDS]))
    .option('--remove', 'take our entries out again (everything else stays)')
    .option('--dry-run', 'write nothing; print each entry before and after')
    .option('--json', 'print the result as JSON: {tool, action, dryRun, changed, files: [{file, changed, backup?, entries: [{entry, before, after}]}], notes}')
    .action(async (tool: AssistantId, flags: { remove?: boolean; dryRun?: boolean; json?: boolean }) => {
      const { ConfigFileError, connectAssistant, describeConnect } = await import('../connect/connect.js');
      try {
        const launcher = launcherFor(globals(), process.env, runningCliLauncher(), await storeModelIfAsked(globals()));
        const result = await connectAssistant(tool, { home: os.homedir(), env: process.env, platform: process.platform, launcher, remove: Boolean(flags.remove), dryRun: Boolean(flags.dryRun) });
        if (flags.json) io.out(JSON.stringify(result));
        else for (const line of describeConnect(result)) io.out(line);
      } catch (error) {
        if (!(error instanceof ConfigFileError)) throw error;
        if (flags.json) io.out(JSON.stringify({ tool, error: error.message, file: error.file }));
        io.err(`session-memory: ${error.message}`);
        throw new ExitStatus(1);
      }
    });

  program
    .command('service')
    .description('run `sync --watch` as a user service (systemd on Linux, launchd on macOS, a logon task on Windows), for when the app is not open')
    .addArgument(program.createArgument('<action>', 'install or remove').choices(['install', 'remove']))
    .option('--dry-run', 'write and run nothing; print the file and the commands')
    .option('--json', 'print the result as JSON: {platform, action, dryRun, file, changed, commands: [{command, args, status}], notes}')
    .action(async (action: 'install' | 'remove', flags: { dryRun?: boolean; json?: boolean }) => {
      const { describeService, installService } = await import('../connect/service.js');
      const sync = cliCommand(launcherFor(globals(), process.env, runningCliLauncher(), await storeModelIfAsked(globals())), [], ['sync', '--watch']);
      const result = await installService({ home: os.homedir(), env: process.env, platform: process.platform, sync, remove: action === 'remove', dryRun: Boolean(flags.dryRun) });
      if (flags.json) io.out(JSON.stringify(result));
      else for (const line of describeService(result)) io.out(line);
      if (result.commands.some((c) => c.status !== null && c.status !== 0 && !c.mayFail)) throw new ExitStatus(1);
    });
}

