/**
 * The assistants `connect` knows: where each keeps its configuration, and the entries that start
 * this memory's MCP server and save each turn. The places follow each tool's own documentation:
 * - Claude Code: `claude mcp add --scope user` writes `mcpServers` at the top of `~/.claude.json`
 *   (`{type: "stdio", command, args, env}`, env `{}` when none: checked with Claude Code 2.1.332);
 *   hooks live in `~/.claude/settings.json` (`CLAUDE_CONFIG_DIR` moves both). A hook's `timeout`
 *   is in seconds; a SessionEnd hook without one gets 1.5 s.
 * - Codex CLI: `[mcp_servers.<name>]` in `~/.codex/config.toml`, hooks in `~/.codex/hooks.json`
 *   (`CODEX_HOME` moves both). Codex runs a new hook only once it is trusted: codexTrust.ts.
 * - Gemini CLI: `mcpServers` and `hooks` in `~/.gemini/settings.json`; a hook's `timeout` is in ms.
 * - Qwen Code: the same in `~/.qwen/settings.json` (`QWEN_HOME` moves it), with Claude Code's events
 *   (`Stop` after every turn, `SessionEnd`); a hook's `timeout` is in ms (checked with Qwen Code 0.15.10).
 * - GitHub Copilot CLI: `mcpServers` in `~/.copilot/mcp-config.json` (`{type: "local", command, args,
 *   env?, tools: ["*"]}`, the entry `copilot mcp add` writes); hooks in `~/.copilot/settings.json`
 *   (`hooks.agentStop` and `hooks.sessionEnd`: `[{type: "command", bash, powershell?, env?, timeoutSec}]`, flat lists;
 *   `COPILOT_HOME` moves both). Checked with Copilot CLI 1.0.102.
 * - Cursor: `~/.cursor/mcp.json` and `~/.cursor/hooks.json` (`{version: 1, hooks: {stop: [...]}}`).
 * - Claude Desktop: `claude_desktop_config.json` in the app's folder; MCP only.
 * - OpenClaw: `mcp.servers` in `openclaw.json` (JSON5), and an internal hook (a folder with
 *   HOOK.md and handler.js under `<state>/hooks/`) on `message:sent`, turned on in
 *   `hooks.internal.entries`.
 */
import type { AssistantId, McpLaunch } from '../../shared/ipc.js';
import { configHome, joinFor, type PlaceContext } from '../sources/catalogue.js';
import { planChanges, planJsonFile, planOwnFile, planTomlTable, setEntry, setHookInList, isObject, type FilePlan, type JsonObject } from './configFile.js';
import { cliCommand, mcpEntry, powershellCommandLine, shellCommandLine } from './launch.js';
import { forgetCodexHookTrust, trustCodexHook, trustedCodexHooks } from './codexTrust.js';
import { openclawHandler, openclawHookDoc, OPENCLAW_HOOK_NAME } from './openclawHook.js';

export { ASSISTANT_IDS, type AssistantId } from '../../shared/ipc.js';

/** The name of our MCP server in every client's configuration. */
export const SERVER_NAME = 'session-memory';
/** Seconds a hook may run (Claude Code, Codex); the save hands off or gives up well before. */
export const HOOK_TIMEOUT_S = 60;

export interface ConnectContext extends PlaceContext {
  /** The CLI as the assistant should start it, with the global options (`--data ...`) after it. */
  launcher: McpLaunch;
}

export interface Assistant {
  id: AssistantId;
  name: string;
  /** The folder whose existence says the tool is on this computer. */
  folder: (context: PlaceContext) => string;
  /** What connecting (or with `remove`, disconnecting) changes, file by file. */
  plan: (context: ConnectContext, remove: boolean) => Promise<FilePlan[]>;
  /** What the person should know about the per-turn save (null: the hook saves every turn). */
  perTurn: string;
  /** Run after a connect wrote its files (not on a dry run or a remove): what the person should know of it. */
  afterConnect?: (context: ConnectContext) => Promise<{ changed: boolean; notes: string[] }>;
  /**
   * Run on a remove (a dry run too) before its files are written: what else, outside them, the remove
   * undoes once they are (a trust the tool keeps of the hook), read while the hook is still there.
   */
  beforeRemove?: (context: ConnectContext, plans: readonly FilePlan[]) => Promise<RemoveFollowUp>;
}

export interface RemoveFollowUp {
  /** On a dry run: whether the remove would change anything besides the files, and what it would do. */
  pending: { changed: boolean; notes: string[] };
  /** Run once the files are written. */
  run: () => Promise<{ changed: boolean; notes: string[] }>;
}

const NOTHING_TO_FOLLOW: RemoveFollowUp = { pending: { changed: false, notes: [] }, run: async () => ({ changed: false, notes: [] }) };

const join = (context: PlaceContext, ...parts: string[]) => joinFor(context.platform, ...parts);

/** A hook of ours, whatever install wrote it: it runs this CLI's `hook` (a checkout, the app, or an earlier README's line). */
export function isOurHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /session[- ]memory|dist-electron[\\/]cli\.cjs/i.test(command) && /(^|\s)['"]?hook['"]?(\s|$)/.test(command);
}

const ourHook = (hook: unknown) => isObject(hook) && isOurHookCommand(hook.command);

function launches(context: ConnectContext, hookArgs: string[] = []): { mcp: McpLaunch; hook: string } {
  return { mcp: cliCommand(context.launcher, [], ['mcp']), hook: shellCommandLine(cliCommand(context.launcher, [], ['hook', ...hookArgs])) };
}

/** Our hook on each of `events` in a `{hooks: {Event: [group, ...]}}` file (Claude Code, Codex, Gemini CLI, Qwen Code). */
function setHookGroups(file: string, doc: JsonObject, events: readonly string[], group: JsonObject, remove: boolean) {
  return events.map((event) => setHookInList(file, doc, ['hooks'], event, remove ? undefined : group, ourHook, 'groups'));
}

/** A hook group that runs `command`; Gemini CLI and Qwen Code count a timeout in ms, the others in seconds. */
function commandGroup(command: string, timeout: number, extra: JsonObject = {}): JsonObject {
  return { hooks: [{ ...extra, type: 'command', command, timeout }] };
}

/**
 * A `settings.json` that holds `mcpServers` and hook groups whose timeout counts in ms (Gemini CLI, Qwen
 * Code): our server and our hook on each of `events`. On Windows the hook is a PowerShell line, with the
 * launcher's variables in its `env`, and `windows` added to its entry (the shell the tool is to run it with).
 */
async function settingsWithHooks(context: ConnectContext, remove: boolean, file: string, events: readonly string[], windows: JsonObject): Promise<FilePlan> {
  const { mcp, hook } = launches(context);
  const group =
    context.platform === 'win32'
      ? commandGroup(powershellCommandLine(cliCommand(context.launcher, [], ['hook'])), HOOK_TIMEOUT_S * 1000, { name: SERVER_NAME, ...windows, ...envOf(context.launcher) })
      : commandGroup(hook, HOOK_TIMEOUT_S * 1000, { name: SERVER_NAME });
  return planJsonFile(file, 'json', (doc) => [setEntry(file, doc, ['mcpServers'], SERVER_NAME, remove ? undefined : mcpEntry(mcp)), ...setHookGroups(file, doc, events, group, remove)]);
}

/** The launcher's variables as a hook entry's `env` (none when it has none). */
function envOf(launcher: McpLaunch): JsonObject {
  return Object.keys(launcher.env).length > 0 ? { env: { ...launcher.env } } : {};
}

function claudeFolder(context: PlaceContext): string {
  return context.env.CLAUDE_CONFIG_DIR || join(context, context.home, '.claude');
}

function codexFolder(context: PlaceContext): string {
  return context.env.CODEX_HOME || join(context, context.home, '.codex');
}

function geminiFolder(context: PlaceContext): string {
  return join(context, context.env.GEMINI_CLI_HOME || context.home, '.gemini');
}

function qwenFolder(context: PlaceContext): string {
  return context.env.QWEN_HOME || join(context, context.home, '.qwen');
}

function copilotFolder(context: PlaceContext): string {
  return context.env.COPILOT_HOME || join(context, context.home, '.copilot');
}

/** Copilot CLI's hook entries name their command per shell: `bash` elsewhere, `powershell` on Windows. */
const ourCopilotHook = (hook: unknown) => isObject(hook) && (isOurHookCommand(hook.bash) || isOurHookCommand(hook.powershell));

function openclawFolder(context: PlaceContext): string {
  return context.env.OPENCLAW_STATE_DIR || join(context, context.home, '.openclaw');
}

function cursorDatabase(context: PlaceContext): string {
  return join(context, configHome(context), 'Cursor', 'User', 'globalStorage', 'state.vscdb');
}

export const ASSISTANTS: readonly Assistant[] = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    folder: claudeFolder,
    perTurn: 'saves after every reply (Stop) and at the end of each session (SessionEnd)',
    plan: async (context, remove) => {
      const { mcp, hook } = launches(context);
      const folder = claudeFolder(context);
      // Claude Code keeps its user-scope servers in `.claude.json`: in the home folder, or inside CLAUDE_CONFIG_DIR when that is set.
      const mcpFile = context.env.CLAUDE_CONFIG_DIR ? join(context, folder, '.claude.json') : join(context, context.home, '.claude.json');
      const settings = join(context, folder, 'settings.json');
      return [
        await planJsonFile(mcpFile, 'json', (doc) => [setEntry(mcpFile, doc, ['mcpServers'], SERVER_NAME, remove ? undefined : { type: 'stdio', env: {}, ...mcpEntry(mcp) })]),
        await planJsonFile(settings, 'json', (doc) => setHookGroups(settings, doc, ['Stop', 'SessionEnd'], commandGroup(hook, HOOK_TIMEOUT_S), remove)),
      ];
    },
  },
  {
    id: 'codex',
    name: 'Codex CLI',
    folder: codexFolder,
    perTurn: 'saves after every turn (Stop hook)',
    plan: async (context, remove) => {
      const { mcp, hook } = launches(context);
      const folder = codexFolder(context);
      const hooksFile = join(context, folder, 'hooks.json');
      return [
        await planTomlTable(join(context, folder, 'config.toml'), ['mcp_servers', SERVER_NAME], remove ? undefined : mcpEntry(mcp)),
        await planJsonFile(hooksFile, 'json', (doc) => setHookGroups(hooksFile, doc, ['Stop'], commandGroup(hook, HOOK_TIMEOUT_S), remove)),
      ];
    },
    // Codex skips a hook nobody trusted, without a word: trusted here, through Codex itself.
    afterConnect: async (context) => {
      const trust = await trustCodexHook({ hookCommand: launches(context).hook, codexHome: codexFolder(context), cwd: context.home, env: context.env });
      if (trust.status === 'trusted') return { changed: true, notes: ['Codex trusts the hook now (written by Codex itself, through `codex app-server`)'] };
      if (trust.status === 'already-trusted') return { changed: false, notes: [] };
      return { changed: false, notes: [`Codex runs a new hook only once you trust it: open /hooks in Codex (${trust.reason})`] };
    },
    // The trust Codex keeps of our hook goes with it, deleted by Codex itself; another hook's stays.
    beforeRemove: async (context, plans) => {
      const folder = codexFolder(context);
      const hooksFile = join(context, folder, 'hooks.json');
      const configFile = join(context, folder, 'config.toml');
      const hookPlan = plans.find((plan) => plan.file === hooksFile);
      if (hookPlan === undefined || !planChanges(hookPlan)) return NOTHING_TO_FOLLOW;
      const server = { codexHome: folder, cwd: context.home, env: context.env };
      const listed = await trustedCodexHooks({ ...server, hooksFile, isOurs: isOurHookCommand });
      if (listed.status === 'unknown') {
        const left = `Codex's trust of the hook, if it keeps one, is left in ${configFile} ([hooks.state]; it trusts nothing once the hook is gone): ${listed.reason}`;
        return { pending: { changed: false, notes: [left] }, run: async () => ({ changed: false, notes: [left] }) };
      }
      // Codex keys trust by a hook's place: the hooks after ours move up one, and Codex takes them for untrusted until trusted again.
      const movedNote = (verb: string) => `${listed.movedUp === 1 ? 'a hook' : `${listed.movedUp} hooks`} of yours after ours in ${hooksFile} ${verb} up a place: Codex keys its trust by a hook's place, so open /hooks in Codex to trust ${listed.movedUp === 1 ? 'it' : 'them'} again`;
      const moved = listed.movedUp === 0 ? [] : [movedNote('moved')];
      const wouldMove = listed.movedUp === 0 ? [] : [movedNote('would move')];
      if (listed.trusted.length === 0) return { pending: { changed: false, notes: wouldMove }, run: async () => ({ changed: false, notes: moved }) };
      const keys = listed.trusted.map((record) => `hooks.state.${JSON.stringify(record.key)}`).join(', ');
      return {
        pending: { changed: true, notes: [`Codex's trust of the hook would be removed from ${configFile} (${keys}), by Codex itself`, ...wouldMove] },
        run: async () => {
          const forgotten = await forgetCodexHookTrust(server, listed.trusted);
          if (forgotten.status === 'forgotten') return { changed: true, notes: [`Codex's trust of the hook removed from ${configFile} (${keys}), by Codex itself through \`codex app-server\``, ...moved] };
          if (forgotten.status === 'none') return { changed: false, notes: moved };
          return { changed: false, notes: [`Codex's trust of the hook is left in ${configFile} (${keys}; it trusts nothing once the hook is gone): ${forgotten.reason}`, ...moved] };
        },
      };
    },
  },
  {
    id: 'gemini-cli',
    name: 'Gemini CLI',
    folder: geminiFolder,
    perTurn: 'saves after every turn (AfterAgent) and at the end of each session (SessionEnd)',
    // On Windows Gemini CLI runs a hook with PowerShell, and takes the hook's variables from its `env`.
    plan: async (context, remove) => [await settingsWithHooks(context, remove, join(context, geminiFolder(context), 'settings.json'), ['AfterAgent', 'SessionEnd'], {})],
  },
  {
    id: 'qwen-code',
    name: 'Qwen Code',
    folder: qwenFolder,
    perTurn: 'saves after every turn (Stop) and at the end of each session (SessionEnd)',
    // On Windows Qwen Code runs a hook with cmd.exe unless the hook names PowerShell; the hook's variables come from its `env`.
    plan: async (context, remove) => [await settingsWithHooks(context, remove, join(context, qwenFolder(context), 'settings.json'), ['Stop', 'SessionEnd'], { shell: 'powershell' })],
  },
  {
    id: 'copilot-cli',
    name: 'GitHub Copilot CLI',
    folder: copilotFolder,
    perTurn: 'saves after every turn (agentStop) and at the end of each session (sessionEnd)',
    plan: async (context, remove) => {
      const { mcp, hook } = launches(context);
      const folder = copilotFolder(context);
      const mcpFile = join(context, folder, 'mcp-config.json');
      const settings = join(context, folder, 'settings.json');
      // agentStop names the transcript, but may run before the turn's last events are written:
      // sessionEnd (which names only the session) saves what a turn's hook missed.
      const entry =
        context.platform === 'win32'
          ? { type: 'command', powershell: powershellCommandLine(cliCommand(context.launcher, [], ['hook'])), ...envOf(context.launcher), timeoutSec: HOOK_TIMEOUT_S }
          : { type: 'command', bash: hook, timeoutSec: HOOK_TIMEOUT_S };
      return [
        await planJsonFile(mcpFile, 'json', (doc) => [setEntry(mcpFile, doc, ['mcpServers'], SERVER_NAME, remove ? undefined : { tools: ['*'], type: 'local', ...mcpEntry(mcp) })]),
        // Copilot writes comments into its JSON files (config.json): read as JSON5, written back as JSON.
        await planJsonFile(settings, 'json5', (doc) => ['agentStop', 'sessionEnd'].map((event) => setHookInList(settings, doc, ['hooks'], event, remove ? undefined : entry, ourCopilotHook, 'flat'))),
      ];
    },
  },
  {
    id: 'openclaw',
    name: 'OpenClaw',
    folder: openclawFolder,
    perTurn: 'saves after every reply it sends (an internal hook on message:sent, run by the Gateway)',
    plan: async (context, remove) => {
      const { mcp } = launches(context);
      const state = openclawFolder(context);
      const configFile = context.env.OPENCLAW_CONFIG_PATH || join(context, state, 'openclaw.json');
      const hookDir = join(context, state, 'hooks', OPENCLAW_HOOK_NAME);
      return [
        await planJsonFile(
          configFile,
          'json5',
          (doc) => {
            const changes = [setEntry(configFile, doc, ['mcp', 'servers'], SERVER_NAME, remove ? undefined : mcpEntry(mcp))];
            // Broad discovery (the master switch on, no names) already loads a managed hook; naming ours would narrow it to ours alone.
            if (remove || !broadHookDiscovery(doc)) changes.push(setEntry(configFile, doc, ['hooks', 'internal', 'entries'], OPENCLAW_HOOK_NAME, remove ? undefined : { enabled: true }));
            return changes;
          },
          (doc) => (!remove && internalHooksOff(doc) ? [`${configFile} turns internal hooks off (hooks.internal.enabled: false): turn them on for a save after every reply, or run \`session-memory service install\``] : []),
        ),
        await planOwnFile(join(context, hookDir, 'HOOK.md'), remove ? null : openclawHookDoc(), `${OPENCLAW_HOOK_NAME}/HOOK.md`, true),
        await planOwnFile(join(context, hookDir, 'handler.js'), remove ? null : openclawHandler(cliCommand(context.launcher, [], []), state), `${OPENCLAW_HOOK_NAME}/handler.js`, true),
      ];
    },
  },
  {
    id: 'cursor',
    name: 'Cursor',
    folder: (context) => join(context, context.home, '.cursor'),
    perTurn: 'saves after every agent turn (stop hook), from Cursor\'s chat database',
    plan: async (context, remove) => {
      const { mcp, hook } = launches(context, ['--file', cursorDatabase(context)]);
      const folder = join(context, context.home, '.cursor');
      const mcpFile = join(context, folder, 'mcp.json');
      const hooksFile = join(context, folder, 'hooks.json');
      return [
        await planJsonFile(mcpFile, 'json', (doc) => [setEntry(mcpFile, doc, ['mcpServers'], SERVER_NAME, remove ? undefined : mcpEntry(mcp))]),
        await planJsonFile(hooksFile, 'json', (doc) => {
          if (!remove && doc.version === undefined) doc.version = 1;
          return [setHookInList(hooksFile, doc, ['hooks'], 'stop', remove ? undefined : { command: hook }, ourHook, 'flat')];
        }),
      ];
    },
  },
  {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    folder: (context) => join(context, configHome(context), 'Claude'),
    perTurn: 'has no hooks: its conversations are not saved as they happen; it searches and saves through the MCP tools',
    plan: async (context, remove) => {
      const { mcp } = launches(context);
      const file = join(context, configHome(context), 'Claude', 'claude_desktop_config.json');
      return [await planJsonFile(file, 'json', (doc) => [setEntry(file, doc, ['mcpServers'], SERVER_NAME, remove ? undefined : mcpEntry(mcp))])];
    },
  },
];

function internalHooks(doc: JsonObject): JsonObject | null {
  const hooks = doc.hooks;
  return isObject(hooks) && isObject(hooks.internal) ? hooks.internal : null;
}

function internalHooksOff(doc: JsonObject): boolean {
  return internalHooks(doc)?.enabled === false;
}

function broadHookDiscovery(doc: JsonObject): boolean {
  const internal = internalHooks(doc);
  if (!internal || internal.enabled !== true) return false;
  const entries = internal.entries;
  return !isObject(entries) || Object.keys(entries).length === 0;
}

export function assistantById(id: string): Assistant | undefined {
  return ASSISTANTS.find((a) => a.id === id);
}
