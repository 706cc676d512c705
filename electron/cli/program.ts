/**
 * The CLI's program: every command with its options (commander), loaded by main.ts for any command
 * line but the MCP server's own. Other tools parse the `--json` output, so its fields are a contract
 * (see README, "CLI").
 */
import { Command, Option, CommanderError } from 'commander';
import { DUPLICATE_THRESHOLD, NEAR_DUPLICATE_FLOOR, SAVE_MODES } from '../../shared/domain.js';
import { registerCopyCommand } from './copyCommand.js';
import { registerConnectCommands } from './connectCommands.js';
import { failureStatus } from './failure.js';
import { serveMcp } from './mcpCommand.js';
import { registerSourceCommands } from './sourceCommands.js';
import type { McpFlags } from './mcpCommand.js';
import type { DuplicatesFlags, ForgetFlags, ImportFlags, JsonFlag, RedactFlags, SaveFlags, SearchFlags, VerifyFlags, WatchFlags } from './storeCommands.js';
import { parseInclude, defaultIo, positiveInt, similarity, type GlobalOptions, type Io } from './support.js';

// What the commands that open the store do loads only when one of them runs: `--help` and a hook
// start without it (storeCommands.ts; the store's own code loads later still).
const storeCommands = () => import('./storeCommands.js');

export function buildProgram(io: Io = defaultIo): Command {
  const program = new Command('session-memory')
    .description('Incremental, deduplicated long-term memory for AI-assistant conversations')
    .option('--data <dir|uri>', 'data directory, or a shared store: s3://bucket/prefix, s3+ddb://bucket/prefix?ddbTableName=T, gs://, az:// (default: $SESSION_MEMORY_HOME, else the desktop app\'s folder)')
    .option('--single-writer', 'only this machine writes to the shared store: use an s3:// store even when its server lacks conditional writes')
    .option('--model <name|dir>', 'embedding model (default: the store\'s, else $SESSION_MEMORY_MODEL, else the multilingual default)')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });

  const globals = (): GlobalOptions => program.opts<GlobalOptions>();

  program
    .command('save')
    .description('save a transcript (or an array of them) incrementally')
    .argument('<file>', 'transcript file')
    .option('--session <id>', 'session id (overrides or supplies the file\'s)')
    .addOption(new Option('--mode <mode>', 'save mode').choices([...SAVE_MODES]).default('incremental'))
    .option('--sync-deletes', 'remove stored messages that are absent from the file')
    .option('--no-redact', 'store secrets (keys, tokens, passwords) as they are instead of [REDACTED:<kind>]')
    .option('--unforget', 'save a session that was forgotten (on any machine of this store) again, on purpose; without it, a forgotten session is left out')
    .option('--json', 'one JSON report per session per line')
    .action(async (file: string, options: SaveFlags) => (await storeCommands()).save(io, globals, file, options));

  program
    .command('import')
    .description('import transcripts of any supported format: files, folders, ZIP exports')
    .argument('<paths...>', 'files, folders or ZIP archives')
    .option('--dry-run', 'write nothing; report what a save would do')
    .option('--include <extras>', 'also import tool calls and results ("tools") and model thinking ("thinking"), comma-separated', parseInclude)
    .addOption(new Option('--mode <mode>', 'save mode').choices([...SAVE_MODES]).default('incremental'))
    .option('--sync-deletes', 'remove stored messages that are absent from the files')
    .option('--no-redact', 'store secrets (keys, tokens, passwords) as they are instead of [REDACTED:<kind>]')
    .option('--strict', 'refuse a whole file when any conversation or line of it is damaged (default: skip and name the damaged parts)')
    .option('--unforget', 'save sessions that were forgotten (on any machine of this store) again, on purpose; without it, forgotten sessions are left out')
    .option('--json', 'one JSON report per session per line, {"file","error"} per failed file, {"file","session"?,"line"?,"error"} per skipped part')
    .action(async (paths: string[], options: ImportFlags) => (await storeCommands()).importFiles(io, globals, paths, options));

  program
    .command('watch')
    .description('watch a folder (e.g. OpenClaw\'s sessions folder) and save each transcript as it grows')
    .argument('<dir>', 'folder to watch')
    .option('--debounce <ms>', 'wait this long after the last change of a file', (v) => positiveInt(v, '--debounce'), 1500)
    .option('--include <extras>', 'also import "tools" and "thinking", comma-separated', parseInclude)
    .option('--no-redact', 'store secrets (keys, tokens, passwords) as they are instead of [REDACTED:<kind>]')
    .option('--json', 'one JSON report per save per line')
    .action(async (dir: string, options: WatchFlags) => (await storeCommands()).watch(io, globals, dir, options));

  program
    .command('sessions')
    .description('list archived sessions')
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag) => (await storeCommands()).sessions(io, globals, options));

  program
    .command('show')
    .description('show a session\'s messages and chunks')
    .argument('<sessionId>')
    .option('--json', 'print JSON')
    .action(async (sessionId: string, options: JsonFlag) => (await storeCommands()).show(io, globals, sessionId, options));

  program
    .command('history')
    .description('list the saves of a session')
    .argument('<sessionId>')
    .option('--json', 'print JSON')
    .action(async (sessionId: string, options: JsonFlag) => (await storeCommands()).history(io, globals, sessionId, options));

  program
    .command('forget')
    .description('remove sessions, or single messages of one session, from the store and from every file under the data folder')
    .argument('<sessionId...>')
    .option('--messages <ids>', 'forget only these messages (comma-separated ids) of the one session named', (value: string) => value.split(',').map((id) => id.trim()).filter(Boolean))
    .option('--json', 'one line per session: {"sessionId","messagesRemoved","chunksRemoved"}')
    .action(async (sessionIds: string[], options: ForgetFlags) => (await storeCommands()).forget(io, globals, sessionIds, options));

  program
    .command('redact')
    .description('replace secrets (keys, tokens, passwords) in what is already archived with [REDACTED:<kind>], leaving no unredacted copy on disk')
    .option('--dry-run', 'write nothing; report what would be redacted')
    .option('--json', 'one line per session with secrets: {"sessionId","messages","secrets","kinds","chunksRewritten","embeddingsComputed"}, then {"sessionsScanned","messagesScanned","sessionsRedacted","secrets","dryRun"}')
    .action(async (options: RedactFlags) => (await storeCommands()).redact(io, globals, options));

  program
    .command('search')
    .description('search all memory (meaning and words)')
    .argument('<query>')
    .option('--limit <n>', 'how many results', (v) => positiveInt(v, '--limit'), 10)
    .option('--session <id>', 'only this session')
    .option('--all-copies', 'list copies of the same text in other chunks and sessions as results of their own')
    .option('--json', 'print JSON')
    .action(async (query: string, options: SearchFlags) => (await storeCommands()).search(io, globals, query, options));

  program
    .command('duplicates')
    .description('list chunks that other sessions hold too, the same or nearly (kept up to date by every save)')
    .option('--threshold <similarity>', `lowest cosine similarity listed, ${NEAR_DUPLICATE_FLOOR} to 1`, (v) => similarity(v), DUPLICATE_THRESHOLD)
    .option('--limit <n>', 'how many clusters', (v) => positiveInt(v, '--limit'), 20)
    .option('--dismiss <clusterId>', 'dismiss a cluster by the id a listing showed (at any --threshold: a cluster keeps its id at every threshold that lists it); it is not listed again')
    .option('--all', 'also list dismissed clusters')
    .option('--json', 'print JSON: {threshold, total, dismissed, clusters: [{id, similarity, chunks: [{chunkId, sessionId, sessionTitle, text}]}]}')
    .action(async (options: DuplicatesFlags) => (await storeCommands()).duplicates(io, globals, options));

  program
    .command('mcp')
    .description('serve this memory to AI assistants over the Model Context Protocol (stdio)')
    .option('--read-only', 'leave out the save_session tool')
    .action(async (options: McpFlags) => serveMcp(io, globals(), options));

  program
    .command('optimize')
    .description('build the vector index once the store is large enough, and compact the store')
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag) => (await storeCommands()).optimize(io, globals, options));

  program
    .command('verify')
    .description('check the store and the archive record; exit status 1 when problems are found')
    .option('--repair', 'rebuild the archive record from the store')
    .option('--json', 'print JSON')
    .action(async (options: VerifyFlags) => (await storeCommands()).verify(io, globals, options));

  registerSourceCommands(program, io, globals);
  registerCopyCommand(program, io, globals);
  registerConnectCommands(program, io, globals);

  return program;
}

/** Runs the program on the command line and returns the exit status. Errors become one line on stderr. */
export async function run(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    return failureStatus(error, io);
  }
}
