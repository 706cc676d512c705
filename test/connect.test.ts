import { describe, expect, it } from 'vitest';
import { existsSync, promises as fs, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import JSON5 from 'json5';
import * as TOML from 'smol-toml';
import { ASSISTANT_IDS, ConfigFileError, connectAssistant, describeConnect, listAssistants, type AssistantId } from '../electron/connect/connect.js';
import { launcherFor } from '../electron/cli/connectCommands.js';
import { runningCliLauncher } from '../electron/connect/launch.js';
import { isOurHookCommand } from '../electron/connect/tools.js';
import { describeService, installService, LAUNCHD_LABEL } from '../electron/connect/service.js';
import { dispatch } from '../electron/host/dispatch.js';
import { MemoryHost } from '../electron/host/memoryHost.js';
import { BIN, runCli } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';

const scratch = scratchDirs('sm-connect-');

/** A configuration file as the tool would read it, walked by key in the assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- its shape is what the assertions check
type Parsed = Record<string, any>;

const LAUNCHER = { command: '/opt/node/bin/node', args: ['/home/ana/session memory/bin/session-memory.mjs', '--data', '/home/ana/memory'], env: {} };
const OTHER_SERVER = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] };
const OTHER_HOOK = { type: 'command', command: 'notify-send "turn done"' };

/** Each tool's configuration as a person might already have it: other servers, other hooks, other settings. */
const SEEDS: Record<AssistantId, Record<string, string>> = {
  'claude-code': {
    '.claude.json': JSON.stringify({ numStartups: 41, mcpServers: { filesystem: OTHER_SERVER }, projects: { '/work': { mcpServers: {} } } }, null, 2),
    '.claude/settings.json': JSON.stringify({ model: 'opus', hooks: { Stop: [{ hooks: [OTHER_HOOK] }], PreToolUse: [{ matcher: 'Bash', hooks: [OTHER_HOOK] }] } }, null, 2),
  },
  codex: {
    '.codex/config.toml': '# my Codex settings\nmodel = "o3"\n\n[mcp_servers.filesystem]\ncommand = "npx"   # the usual one\nargs = ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]\n\n# profiles below\n[profiles.fast]\nmodel = "o4-mini"\n',
    '.codex/hooks.json': JSON.stringify({ hooks: { Stop: [{ hooks: [OTHER_HOOK] }] } }, null, 2),
  },
  'gemini-cli': {
    '.gemini/settings.json': JSON.stringify({ theme: 'GitHub', mcpServers: { filesystem: OTHER_SERVER }, hooks: { AfterAgent: [{ matcher: '*', hooks: [{ name: 'ping', ...OTHER_HOOK }] }] } }, null, 2),
  },
  'qwen-code': {
    // As Qwen Code 0.15.10 leaves its settings once it has read them: `$version` added.
    '.qwen/settings.json': JSON.stringify({ mcpServers: { filesystem: OTHER_SERVER }, hooks: { Stop: [{ hooks: [{ name: 'ping', ...OTHER_HOOK }] }] }, $version: 4 }, null, 2),
  },
  'copilot-cli': {
    // As `copilot mcp add` (Copilot CLI 1.0.102) writes a server, and a person's own hook in its settings.
    '.copilot/mcp-config.json': JSON.stringify({ mcpServers: { filesystem: { tools: ['*'], type: 'local', ...OTHER_SERVER } } }, null, 2),
    '.copilot/settings.json': JSON.stringify({ model: 'gpt-5', hooks: { agentStop: [{ type: 'command', bash: './notify.sh', timeoutSec: 5 }], sessionEnd: [{ type: 'command', bash: './bye.sh' }] } }, null, 2),
  },
  openclaw: {
    '.openclaw/openclaw.json': '// my gateway\n{\n  agents: { defaults: { workspace: "~/claw" } },\n  mcp: { servers: { filesystem: { command: "npx", args: ["-y", "x"] } } },\n  hooks: { internal: { entries: { "command-logger": { enabled: true } } } },\n}\n',
  },
  cursor: {
    '.cursor/mcp.json': JSON.stringify({ mcpServers: { filesystem: OTHER_SERVER } }, null, 2),
    '.cursor/hooks.json': JSON.stringify({ version: 1, hooks: { stop: [{ command: './audit.sh' }], afterFileEdit: [{ command: './format.sh' }] } }, null, 2),
  },
  'claude-desktop': {
    '.config/Claude/claude_desktop_config.json': JSON.stringify({ globalShortcut: 'Ctrl+Space', mcpServers: { filesystem: OTHER_SERVER } }, null, 2),
  },
};

async function seed(id: AssistantId): Promise<string> {
  const home = scratch();
  for (const [name, text] of Object.entries(SEEDS[id])) {
    await fs.mkdir(path.dirname(path.join(home, name)), { recursive: true });
    await fs.writeFile(path.join(home, name), text);
  }
  return home;
}

/** Every file under the fake home, with its text. */
async function snapshot(home: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else files[path.relative(home, full)] = await fs.readFile(full, 'utf8');
    }
  };
  await walk(home);
  return files;
}

const options = (home: string, extra: { remove?: boolean; dryRun?: boolean } = {}) => ({ home, env: {}, platform: 'linux' as const, launcher: LAUNCHER, ...extra });
const json = async (home: string, name: string) => JSON.parse(await fs.readFile(path.join(home, name), 'utf8')) as Parsed;
const HOOK_LINE = "/opt/node/bin/node '/home/ana/session memory/bin/session-memory.mjs' --data /home/ana/memory hook";
const MCP_ARGS = ['/home/ana/session memory/bin/session-memory.mjs', '--data', '/home/ana/memory', 'mcp'];

/** What each client reads, checked after connecting: our server and hook are there, and the seeded ones still are. */
const CONNECTED: Record<AssistantId, (home: string) => Promise<void>> = {
  'claude-code': async (home) => {
    const servers = (await json(home, '.claude.json')).mcpServers;
    // The shape `claude mcp add --scope user` writes (Claude Code 2.1.332).
    expect(servers['session-memory']).toEqual({ type: 'stdio', command: LAUNCHER.command, args: MCP_ARGS, env: {} });
    expect(servers.filesystem).toEqual(OTHER_SERVER);
    const hooks = (await json(home, '.claude/settings.json')).hooks;
    // A SessionEnd hook without a timeout gets 1.5 s from Claude Code: ours names one.
    for (const event of ['Stop', 'SessionEnd']) expect(hooks[event]).toContainEqual({ hooks: [{ type: 'command', command: HOOK_LINE, timeout: 60 }] });
    expect(hooks.Stop).toContainEqual({ hooks: [OTHER_HOOK] });
    expect(hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [OTHER_HOOK] }]);
  },
  codex: async (home) => {
    const config = TOML.parse(await fs.readFile(path.join(home, '.codex/config.toml'), 'utf8')) as Parsed;
    expect({ ...config.mcp_servers['session-memory'] }).toEqual({ command: LAUNCHER.command, args: MCP_ARGS });
    expect(config.model).toBe('o3');
    expect(config.profiles.fast.model).toBe('o4-mini');
    const stop = (await json(home, '.codex/hooks.json')).hooks.Stop;
    expect(stop).toEqual([{ hooks: [OTHER_HOOK] }, { hooks: [{ type: 'command', command: HOOK_LINE, timeout: 60 }] }]);
  },
  'gemini-cli': async (home) => {
    const settings = await json(home, '.gemini/settings.json');
    expect(settings.mcpServers['session-memory']).toEqual({ command: LAUNCHER.command, args: MCP_ARGS });
    // Gemini's timeout is in milliseconds.
    for (const event of ['AfterAgent', 'SessionEnd']) expect(settings.hooks[event]).toContainEqual({ hooks: [{ name: 'session-memory', type: 'command', command: HOOK_LINE, timeout: 60000 }] });
    expect(settings.hooks.AfterAgent[0].hooks[0].name).toBe('ping');
    expect(settings.theme).toBe('GitHub');
  },
  'qwen-code': async (home) => {
    const settings = await json(home, '.qwen/settings.json');
    expect(settings.mcpServers['session-memory']).toEqual({ command: LAUNCHER.command, args: MCP_ARGS });
    // Qwen Code's timeout is in milliseconds, as Gemini CLI's; its events are Claude Code's.
    for (const event of ['Stop', 'SessionEnd']) expect(settings.hooks[event]).toContainEqual({ hooks: [{ name: 'session-memory', type: 'command', command: HOOK_LINE, timeout: 60000 }] });
    expect(settings.hooks.Stop[0].hooks[0].name).toBe('ping');
    expect(settings.$version).toBe(4);
  },
  'copilot-cli': async (home) => {
    const servers = (await json(home, '.copilot/mcp-config.json')).mcpServers;
    expect(servers['session-memory']).toEqual({ tools: ['*'], type: 'local', command: LAUNCHER.command, args: MCP_ARGS });
    expect(servers.filesystem).toEqual({ tools: ['*'], type: 'local', ...OTHER_SERVER });
    const settings = await json(home, '.copilot/settings.json');
    // A flat list of hooks, each naming its command per shell; the timeout in seconds.
    expect(settings.hooks.agentStop).toEqual([{ type: 'command', bash: './notify.sh', timeoutSec: 5 }, { type: 'command', bash: HOOK_LINE, timeoutSec: 60 }]);
    expect(settings.hooks.sessionEnd).toEqual([{ type: 'command', bash: './bye.sh' }, { type: 'command', bash: HOOK_LINE, timeoutSec: 60 }]);
    expect(settings.model).toBe('gpt-5');
  },
  openclaw: async (home) => {
    const config = JSON5.parse(await fs.readFile(path.join(home, '.openclaw/openclaw.json'), 'utf8')) as Parsed;
    expect(config.mcp.servers['session-memory']).toEqual({ command: LAUNCHER.command, args: MCP_ARGS });
    expect(config.hooks.internal.entries).toEqual({ 'command-logger': { enabled: true }, 'session-memory-save': { enabled: true } });
    expect(config.agents.defaults.workspace).toBe('~/claw');
    const doc = await fs.readFile(path.join(home, '.openclaw/hooks/session-memory-save/HOOK.md'), 'utf8');
    expect(doc).toMatch(/^name: session-memory-save$/m);
    expect(doc).toContain('"events": ["message:sent","command:new","command:reset"]');
    expect(existsSync(path.join(home, '.openclaw/hooks/session-memory-save/handler.js'))).toBe(true);
  },
  cursor: async (home) => {
    expect((await json(home, '.cursor/mcp.json')).mcpServers['session-memory']).toEqual({ command: LAUNCHER.command, args: MCP_ARGS });
    const hooks = await json(home, '.cursor/hooks.json');
    expect(hooks.version).toBe(1);
    expect(hooks.hooks.stop).toEqual([{ command: './audit.sh' }, { command: `${HOOK_LINE} --file ${path.join(home, '.config/Cursor/User/globalStorage/state.vscdb')}` }]);
    expect(hooks.hooks.afterFileEdit).toEqual([{ command: './format.sh' }]);
  },
  'claude-desktop': async (home) => {
    const config = await json(home, '.config/Claude/claude_desktop_config.json');
    expect(config.mcpServers).toEqual({ filesystem: OTHER_SERVER, 'session-memory': { command: LAUNCHER.command, args: MCP_ARGS } });
    expect(config.globalShortcut).toBe('Ctrl+Space');
  },
};

const backups = (files: Record<string, string>) => Object.keys(files).filter((f) => f.endsWith('.bak'));

describe.each(ASSISTANT_IDS.map((id) => [id]))('connect %s', (id) => {
  it('merges its entries with what the configuration holds, keeping a backup of each file it changes', async () => {
    const home = await seed(id);
    const result = await connectAssistant(id, options(home));
    expect(result.changed).toBe(true);
    await CONNECTED[id](home);
    const after = await snapshot(home);
    // The backups are the files as they were.
    for (const [name, text] of Object.entries(SEEDS[id])) {
      const backup = backups(after).find((b) => b.startsWith(`${name}.`));
      expect(backup, name).toBeDefined();
      expect(after[backup!]).toBe(text);
    }
  });

  it('changes nothing and keeps no new backup when run again', async () => {
    const home = await seed(id);
    await connectAssistant(id, options(home));
    const first = await snapshot(home);
    const again = await connectAssistant(id, options(home));
    expect(again.changed).toBe(false);
    expect(again.files.every((f) => !f.changed && f.backup === undefined)).toBe(true);
    expect(await snapshot(home)).toEqual(first);
    expect(describeConnect(again)[0]).toMatch(/already connected; nothing changed/);
  });

  it('--remove takes out its entries and leaves every other one as it was', async () => {
    const home = await seed(id);
    await connectAssistant(id, options(home));
    const removed = await connectAssistant(id, options(home, { remove: true }));
    expect(removed.changed).toBe(true);
    const after = await snapshot(home);
    for (const [name, text] of Object.entries(SEEDS[id])) {
      if (name.endsWith('.toml')) expect(after[name]).toBe(text); // Comments and layout kept.
      else if (name.endsWith('openclaw.json')) expect(JSON5.parse(after[name]!)).toEqual(JSON5.parse(text));
      else expect(JSON.parse(after[name]!)).toEqual(JSON.parse(text));
    }
    expect(Object.keys(after).filter((f) => !f.endsWith('.bak')).sort()).toEqual(Object.keys(SEEDS[id]).sort());
    expect((await connectAssistant(id, options(home, { remove: true }))).changed).toBe(false);
  });

  it('--dry-run writes nothing and shows each entry before and after', async () => {
    const home = await seed(id);
    const before = await snapshot(home);
    const result = await connectAssistant(id, options(home, { dryRun: true }));
    expect(await snapshot(home)).toEqual(before);
    expect(result.changed).toBe(true);
    const server = result.files.flatMap((f) => f.entries).find((e) => /servers\.session-memory$|mcpServers\.session-memory$/i.test(e.entry));
    expect(server).toMatchObject({ before: null, after: expect.objectContaining({ command: LAUNCHER.command, args: MCP_ARGS }) });
    const printed = describeConnect(result).join('\n');
    expect(printed).toContain('dry run: nothing written');
    expect(printed).toMatch(/before: \(none\)\n\s+after:\s+\{.*session-memory\.mjs/);
  });

  it('refuses a malformed configuration with one line naming the file and the problem, and writes none of its files', async () => {
    const home = await seed(id);
    const [name] = Object.keys(SEEDS[id]);
    const broken = name!.endsWith('.toml') ? 'model = "o3"\n[mcp_servers.filesystem\ncommand = "npx"\n' : '{ "mcpServers": { "filesystem": ';
    await fs.writeFile(path.join(home, name!), broken);
    const before = await snapshot(home);
    const error = await connectAssistant(id, options(home)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigFileError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(new RegExp(`^${path.join(home, name!).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid (JSON|JSON5|TOML) \\(.+\\); fix or move it, then run this again$`));
    expect(await snapshot(home)).toEqual(before);
  });
});

/**
 * A stand-in for `codex app-server` on PATH: the protocol lines Codex 0.171.0 answered, over hooks.json
 * and a trust file (Codex keeps trust in config.toml as [hooks.state."<key>"] trusted_hash; a key is
 * the hook's place, the hash the hook's own). `config/batchWrite` upserts `hooks.state`, or with
 * `value: null` deletes the record a quoted key path names, as Codex does. Requests go to requests.jsonl.
 */
async function fakeCodex(home: string): Promise<Record<string, string>> {
  const bin = path.join(home, 'bin');
  await fs.mkdir(bin);
  await fs.writeFile(path.join(bin, 'codex'), `#!${process.execPath}
const fs = require('node:fs'), path = require('node:path'), crypto = require('node:crypto');
const dir = process.env.CODEX_HOME, hooksFile = path.join(dir, 'hooks.json'), trustFile = path.join(dir, 'trust.json');
const log = (m) => fs.appendFileSync(path.join(dir, 'requests.jsonl'), JSON.stringify(m) + '\\n');
const trust = () => (fs.existsSync(trustFile) ? JSON.parse(fs.readFileSync(trustFile, 'utf8')) : {});
const list = () => (JSON.parse(fs.readFileSync(hooksFile, 'utf8')).hooks.Stop ?? []).flatMap((group, i) => group.hooks.map((h, j) => {
  const key = hooksFile + ':stop:' + i + ':' + j, currentHash = 'sha256:' + crypto.createHash('sha256').update(h.command).digest('hex');
  const t = trust()[key];
  return { key, eventName: 'stop', handlerType: 'command', command: h.command, sourcePath: hooksFile, source: 'user', isManaged: false, enabled: true, currentHash, trustStatus: !t ? 'untrusted' : t.trusted_hash === currentHash ? 'trusted' : 'modified' };
}));
const write = (edit) => {
  const state = trust();
  if (edit.keyPath === 'hooks.state') Object.assign(state, edit.value);
  else if (edit.keyPath.startsWith('hooks.state.') && edit.value === null) delete state[JSON.parse(edit.keyPath.slice('hooks.state.'.length))];
  else throw new Error('unexpected edit ' + JSON.stringify(edit));
  fs.writeFileSync(trustFile, JSON.stringify(state));
};
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let n;
  while ((n = buffer.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buffer.slice(0, n)); buffer = buffer.slice(n + 1); log(m);
    const answer = (result) => process.stdout.write(JSON.stringify({ id: m.id, result }) + '\\n');
    if (m.method === 'initialize') answer({ userAgent: 'codex', codexHome: dir });
    else if (m.method === 'hooks/list') answer({ data: [{ cwd: m.params.cwds[0], hooks: list(), warnings: [], errors: [] }] });
    else if (m.method === 'config/read') answer({ config: { hooks: { state: trust() } }, origins: {}, layers: null });
    else if (m.method === 'config/batchWrite') { m.params.edits.forEach(write); answer({ status: 'ok' }); }
  }
});
`, { mode: 0o755 });
  return { PATH: `${bin}${path.delimiter}${process.env.PATH}`, CODEX_HOME: path.join(home, '.codex') };
}

describe('connect, per tool', () => {
  it('Claude Code: an earlier hook of ours without a timeout is replaced, not added to (a SessionEnd hook without one is cancelled after 1.5 s)', async () => {
    const home = scratch();
    const old = { hooks: [{ type: 'command', command: 'session-memory hook' }] };
    await fs.mkdir(path.join(home, '.claude'));
    await fs.writeFile(path.join(home, '.claude/settings.json'), JSON.stringify({ hooks: { Stop: [old, { hooks: [OTHER_HOOK] }], SessionEnd: [old] } }));
    await connectAssistant('claude-code', options(home));
    const hooks = (await json(home, '.claude/settings.json')).hooks;
    expect(hooks.SessionEnd).toEqual([{ hooks: [{ type: 'command', command: HOOK_LINE, timeout: 60 }] }]);
    expect(hooks.Stop).toEqual([{ hooks: [OTHER_HOOK] }, { hooks: [{ type: 'command', command: HOOK_LINE, timeout: 60 }] }]);
  });

  it('Codex: a server entry of ours written inline is replaced, the file written again from its parse (the backup keeps it as it was)', async () => {
    const home = scratch();
    await fs.mkdir(path.join(home, '.codex'));
    const text = '# mine\nmodel = "o3"\n\n[mcp_servers]\nsession-memory = { command = "old", args = ["x"] }\nother = { command = "npx" }\n';
    await fs.writeFile(path.join(home, '.codex/config.toml'), text);
    const result = await connectAssistant('codex', options(home));
    const config = TOML.parse(await fs.readFile(path.join(home, '.codex/config.toml'), 'utf8')) as Parsed;
    expect({ ...config.mcp_servers['session-memory'] }).toEqual({ command: LAUNCHER.command, args: MCP_ARGS });
    expect({ ...config.mcp_servers.other }).toEqual({ command: 'npx' });
    expect(config.model).toBe('o3');
    expect(await fs.readFile(result.files[0]!.backup!, 'utf8')).toBe(text);
    expect((await connectAssistant('codex', options(home))).changed).toBe(false);
  });

  it('Codex: a config.toml with no server table yet keeps its comments and layout; --remove gives the file back as it was', async () => {
    const home = scratch();
    await fs.mkdir(path.join(home, '.codex'));
    // As a person writes it before any `codex mcp add`: a provider, comments, no [mcp_servers].
    const text = '# my settings\nmodel = "gpt-5"\nmodel_provider = "local"\n\n# the local one\n[model_providers.local]\nname = "Local"  # no key\nbase_url = "http://127.0.0.1:8080/v1"\n';
    await fs.writeFile(path.join(home, '.codex/config.toml'), text);
    await connectAssistant('codex', options(home));
    const written = await fs.readFile(path.join(home, '.codex/config.toml'), 'utf8');
    expect(written.startsWith(text)).toBe(true);
    expect({ ...(TOML.parse(written) as Parsed).mcp_servers['session-memory'] }).toEqual({ command: LAUNCHER.command, args: MCP_ARGS });
    await connectAssistant('codex', options(home, { remove: true }));
    expect(await fs.readFile(path.join(home, '.codex/config.toml'), 'utf8')).toBe(text);
  });

  it('Codex: its hook is trusted through Codex itself (an untrusted hook never runs), ours only, once', async () => {
    const home = await seed('codex');
    const env = await fakeCodex(home);
    const result = await connectAssistant('codex', { ...options(home), env });
    expect(result.notes).toContain('Codex trusts the hook now (written by Codex itself, through `codex app-server`)');
    const requests = async () => (await fs.readFile(path.join(home, '.codex/requests.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Parsed);
    const writes = (await requests()).filter((m) => m.method === 'config/batchWrite');
    // Our hook's key and hash alone: the person's own Stop hook stays as they left it.
    const ourHash = `sha256:${createHash('sha256').update(HOOK_LINE).digest('hex')}`;
    expect(writes.map((m) => m.params.edits)).toEqual([[{ keyPath: 'hooks.state', mergeStrategy: 'upsert', value: { [`${path.join(home, '.codex/hooks.json')}:stop:1:0`]: { trusted_hash: ourHash } } }]]);
    // Trusted already: nothing written, nothing changed.
    const again = await connectAssistant('codex', { ...options(home), env });
    expect(again.changed).toBe(false);
    expect((await requests()).filter((m) => m.method === 'config/batchWrite')).toHaveLength(1);
    // Without Codex on PATH the person is told how to trust it.
    const elsewhere = await connectAssistant('codex', options(await seed('codex')));
    expect(elsewhere.notes.at(-1)).toMatch(/^Codex runs a new hook only once you trust it: open \/hooks in Codex \(Codex \(`codex`\) was not found on PATH\)$/);
  });

  it("Codex: --remove takes Codex's trust of our hook out too, through Codex itself, and leaves every other hook's", async () => {
    const home = await seed('codex');
    const env = await fakeCodex(home);
    await connectAssistant('codex', { ...options(home), env });
    const hooksFile = path.join(home, '.codex/hooks.json');
    const trustFile = path.join(home, '.codex/trust.json');
    const hash = (command: string) => `sha256:${createHash('sha256').update(command).digest('hex')}`;
    const ours = `${hooksFile}:stop:1:0`;
    const theirs = `${hooksFile}:stop:0:0`;
    // The person trusted their own hook in /hooks; a hook of ours left a record at a place it has since
    // left (a hook above it removed); a record at another place holds another hook's hash.
    const trust = JSON.parse(await fs.readFile(trustFile, 'utf8')) as Record<string, { trusted_hash: string }>;
    expect(trust).toEqual({ [ours]: { trusted_hash: hash(HOOK_LINE) } });
    const others = { [theirs]: { trusted_hash: hash(OTHER_HOOK.command) }, [`${hooksFile}:stop:4:0`]: { trusted_hash: hash('make lint') } };
    await fs.writeFile(trustFile, JSON.stringify({ ...trust, ...others, [`${hooksFile}:stop:2:0`]: { trusted_hash: hash(HOOK_LINE) } }));
    const deletions = async () => (await fs.readFile(path.join(home, '.codex/requests.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Parsed).filter((m) => m.method === 'config/batchWrite' && m.params.edits.some((e: Parsed) => e.value === null));

    const dry = await connectAssistant('codex', { ...options(home), env, remove: true, dryRun: true });
    expect(dry.notes).toEqual([`Codex's trust of the hook would be removed from ${path.join(home, '.codex/config.toml')} (hooks.state.${JSON.stringify(ours)}, hooks.state.${JSON.stringify(`${hooksFile}:stop:2:0`)}), by Codex itself`]);
    expect(await deletions()).toEqual([]);

    const removed = await connectAssistant('codex', { ...options(home), env, remove: true });
    expect(removed.changed).toBe(true);
    expect(removed.notes.at(-1)).toMatch(/^Codex's trust of the hook removed from .*config\.toml \(hooks\.state\."[^"]*:stop:1:0", hooks\.state\."[^"]*:stop:2:0"\), by Codex itself through `codex app-server`$/);
    // Written by Codex, one record at a time by its key (quoted: a key is a file path), after the hook left hooks.json.
    expect((await deletions()).map((m) => m.params.edits)).toEqual([[ours, `${hooksFile}:stop:2:0`].map((key) => ({ keyPath: `hooks.state.${JSON.stringify(key)}`, mergeStrategy: 'replace', value: null }))]);
    expect(JSON.parse(await fs.readFile(trustFile, 'utf8'))).toEqual(others);
    expect((await json(home, '.codex/hooks.json')).hooks.Stop).toEqual([{ hooks: [OTHER_HOOK] }]);

    // Gone already: Codex is asked nothing more, nothing changes.
    const again = await connectAssistant('codex', { ...options(home), env, remove: true });
    expect(again).toMatchObject({ changed: false, notes: [] });
    expect(await deletions()).toHaveLength(1);
  });

  it('Codex: --remove says when a trusted hook of the person moved up into our place (Codex keys trust by place)', async () => {
    const home = await seed('codex');
    const env = await fakeCodex(home);
    const hooksFile = path.join(home, '.codex/hooks.json');
    await fs.writeFile(hooksFile, JSON.stringify({ hooks: { Stop: [] } }));
    await connectAssistant('codex', { ...options(home), env });
    // The person added their hook after ours and trusted it.
    await fs.writeFile(hooksFile, JSON.stringify({ hooks: { Stop: [...(await json(home, '.codex/hooks.json')).hooks.Stop, { hooks: [OTHER_HOOK] }] } }));
    const trustFile = path.join(home, '.codex/trust.json');
    const theirs = { [`${hooksFile}:stop:1:0`]: { trusted_hash: `sha256:${createHash('sha256').update(OTHER_HOOK.command).digest('hex')}` } };
    await fs.writeFile(trustFile, JSON.stringify({ ...(JSON.parse(await fs.readFile(trustFile, 'utf8')) as object), ...theirs }));
    const removed = await connectAssistant('codex', { ...options(home), env, remove: true });
    expect(removed.notes.slice(-2)).toEqual([
      `Codex's trust of the hook removed from ${path.join(home, '.codex/config.toml')} (hooks.state.${JSON.stringify(`${hooksFile}:stop:0:0`)}), by Codex itself through \`codex app-server\``,
      `a hook of yours after ours in ${hooksFile} moved up a place: Codex keys its trust by a hook's place, so open /hooks in Codex to trust it again`,
    ]);
    // Their record stays where Codex wrote it.
    expect(JSON.parse(await fs.readFile(trustFile, 'utf8'))).toEqual(theirs);
  });

  it("Codex: --remove without Codex on PATH takes the hook out and says Codex's trust of it may be left", async () => {
    const home = await seed('codex');
    await connectAssistant('codex', { ...options(home), env: await fakeCodex(home) });
    const removed = await connectAssistant('codex', { ...options(home), remove: true });
    expect((await json(home, '.codex/hooks.json')).hooks.Stop).toEqual([{ hooks: [OTHER_HOOK] }]);
    expect(removed.notes.at(-1)).toBe(`Codex's trust of the hook, if it keeps one, is left in ${path.join(home, '.codex/config.toml')} ([hooks.state]; it trusts nothing once the hook is gone): Codex (\`codex\`) was not found on PATH`);
  });

  it('Claude Code and Codex follow CLAUDE_CONFIG_DIR and CODEX_HOME', async () => {
    const home = scratch();
    const claudeDir = path.join(home, 'claude-config');
    const codexDir = path.join(home, 'codex-home');
    await connectAssistant('claude-code', { ...options(home), env: { CLAUDE_CONFIG_DIR: claudeDir } });
    await connectAssistant('codex', { ...options(home), env: { CODEX_HOME: codexDir } });
    expect((await json(home, 'claude-config/.claude.json')).mcpServers['session-memory'].args).toEqual(MCP_ARGS);
    expect((await json(home, 'claude-config/settings.json')).hooks.Stop).toHaveLength(1);
    expect(existsSync(path.join(codexDir, 'config.toml')) && existsSync(path.join(codexDir, 'hooks.json'))).toBe(true);
    expect(existsSync(path.join(home, '.claude.json')) || existsSync(path.join(home, '.codex'))).toBe(false);
  });

  it('Gemini CLI on Windows: the hook is a PowerShell line (the shell it runs hooks with there), its variables in the entry\'s env', async () => {
    const app = { command: "C:\\Program Files\\Session Memory\\Session Memory.exe", args: ["C:\\Users\\o'brien\\AppData\\Local\\Programs\\Session Memory\\resources\\cli.cjs"], env: { ELECTRON_RUN_AS_NODE: '1' } };
    const result = await connectAssistant('gemini-cli', { home: 'C:\\Users\\ana', env: {}, platform: 'win32', launcher: app, dryRun: true });
    const group = (r: typeof result, event: string) => (r.files[0]!.entries.find((e) => e.entry === `hooks.${event}`)!.after as { hooks: Array<{ command: string; env?: object }> }).hooks[0]!;
    const hook = group(result, 'AfterAgent');
    expect(hook.command).toBe("& 'C:\\Program Files\\Session Memory\\Session Memory.exe' 'C:\\Users\\o''brien\\AppData\\Local\\Programs\\Session Memory\\resources\\cli.cjs' 'hook'");
    expect(hook.env).toEqual({ ELECTRON_RUN_AS_NODE: '1' });
    expect(group(result, 'SessionEnd')).toEqual(hook);
    // A later connect or remove knows the line as ours.
    expect(isOurHookCommand(hook.command)).toBe(true);
    // Elsewhere it stays the POSIX line Gemini CLI runs with bash.
    const linux = await connectAssistant('gemini-cli', { ...options('/home/ana'), launcher: app, dryRun: true });
    expect(group(linux, 'AfterAgent').command).toMatch(/^ELECTRON_RUN_AS_NODE=1 'C:/);
  });

  it('Qwen Code: on Windows the hook names PowerShell (else cmd.exe runs it), its variables in the entry\'s env; QWEN_HOME moves its settings', async () => {
    const app = { command: 'C:\\Program Files\\Session Memory\\Session Memory.exe', args: ['C:\\Users\\ana\\AppData\\Local\\Programs\\Session Memory\\resources\\cli.cjs'], env: { ELECTRON_RUN_AS_NODE: '1' } };
    const result = await connectAssistant('qwen-code', { home: 'C:\\Users\\ana', env: {}, platform: 'win32', launcher: app, dryRun: true });
    expect(result.files[0]!.file).toBe('C:\\Users\\ana\\.qwen\\settings.json');
    const hook = (event: string) => (result.files[0]!.entries.find((e) => e.entry === `hooks.${event}`)!.after as { hooks: Array<Record<string, unknown>> }).hooks[0]!;
    expect(hook('Stop')).toEqual({
      name: 'session-memory',
      shell: 'powershell',
      env: { ELECTRON_RUN_AS_NODE: '1' },
      type: 'command',
      command: "& 'C:\\Program Files\\Session Memory\\Session Memory.exe' 'C:\\Users\\ana\\AppData\\Local\\Programs\\Session Memory\\resources\\cli.cjs' 'hook'",
      timeout: 60000,
    });
    expect(hook('SessionEnd')).toEqual(hook('Stop'));
    expect(isOurHookCommand(hook('Stop').command)).toBe(true);
    const home = scratch();
    await connectAssistant('qwen-code', { ...options(home), env: { QWEN_HOME: path.join(home, 'qwen-home') } });
    expect((await json(home, 'qwen-home/settings.json')).hooks.Stop).toHaveLength(1);
    expect(existsSync(path.join(home, '.qwen'))).toBe(false);
  });

  it('GitHub Copilot CLI: on Windows the hook is its powershell line with its variables in env; a settings file with comments is read; COPILOT_HOME moves both files', async () => {
    const app = { command: 'C:\\Program Files\\Session Memory\\Session Memory.exe', args: ['C:\\Users\\ana\\AppData\\Local\\Programs\\Session Memory\\resources\\cli.cjs'], env: { ELECTRON_RUN_AS_NODE: '1' } };
    const windows = await connectAssistant('copilot-cli', { home: 'C:\\Users\\ana', env: {}, platform: 'win32', launcher: app, dryRun: true });
    expect(windows.files.map((f) => f.file)).toEqual(['C:\\Users\\ana\\.copilot\\mcp-config.json', 'C:\\Users\\ana\\.copilot\\settings.json']);
    const hook = windows.files[1]!.entries.find((e) => e.entry === 'hooks.agentStop')!.after as Record<string, unknown>;
    expect(hook).toEqual({ type: 'command', powershell: "& 'C:\\Program Files\\Session Memory\\Session Memory.exe' 'C:\\Users\\ana\\AppData\\Local\\Programs\\Session Memory\\resources\\cli.cjs' 'hook'", env: { ELECTRON_RUN_AS_NODE: '1' }, timeoutSec: 60 });
    const home = scratch();
    const folder = path.join(home, 'copilot-home');
    await fs.mkdir(folder);
    // Copilot writes comments into its own JSON files (its config.json starts with two).
    await fs.writeFile(path.join(folder, 'settings.json'), '// mine\n{ "model": "gpt-5" }\n');
    await connectAssistant('copilot-cli', { ...options(home), env: { COPILOT_HOME: folder } });
    const ours = [{ type: 'command', bash: HOOK_LINE, timeoutSec: 60 }];
    expect(await json(home, 'copilot-home/settings.json')).toEqual({ model: 'gpt-5', hooks: { agentStop: ours, sessionEnd: ours } });
    expect((await json(home, 'copilot-home/mcp-config.json')).mcpServers['session-memory'].args).toEqual(MCP_ARGS);
    expect(existsSync(path.join(home, '.copilot'))).toBe(false);
  });

  it('Claude Desktop: the config folder of each platform', async () => {
    for (const [platform, env, expected] of [
      ['darwin', {}, 'Library/Application Support/Claude/claude_desktop_config.json'],
      ['linux', { XDG_CONFIG_HOME: '' }, '.config/Claude/claude_desktop_config.json'],
    ] as const) {
      const home = scratch();
      const result = await connectAssistant('claude-desktop', { home, env, platform, launcher: LAUNCHER });
      expect(result.files.map((f) => f.file)).toEqual([path.join(home, expected)]);
      expect(existsSync(path.join(home, expected))).toBe(true);
    }
    const windows = await connectAssistant('claude-desktop', { home: 'C:\\Users\\ana', env: { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' }, platform: 'win32', launcher: LAUNCHER, dryRun: true });
    expect(windows.files[0]!.file).toBe('C:\\Users\\ana\\AppData\\Roaming\\Claude\\claude_desktop_config.json');
  });

  it('OpenClaw: with open-ended hook discovery no entry is named (naming one would narrow the selection to it); with hooks off, the person is told', async () => {
    const broad = scratch();
    await fs.mkdir(path.join(broad, '.openclaw'));
    await fs.writeFile(path.join(broad, '.openclaw/openclaw.json'), '{ hooks: { internal: { enabled: true } } }');
    const result = await connectAssistant('openclaw', options(broad));
    expect(JSON5.parse(await fs.readFile(path.join(broad, '.openclaw/openclaw.json'), 'utf8')).hooks).toEqual({ internal: { enabled: true } });
    expect(result.notes.join('\n')).not.toMatch(/turns internal hooks off/);

    const off = scratch();
    await fs.mkdir(path.join(off, '.openclaw'));
    await fs.writeFile(path.join(off, '.openclaw/openclaw.json'), '{ hooks: { internal: { enabled: false } } }');
    const told = await connectAssistant('openclaw', options(off));
    expect(told.notes.join('\n')).toMatch(/openclaw\.json turns internal hooks off \(hooks\.internal\.enabled: false\).*service install/);
  });

  it('OpenClaw: the handler saves the agent\'s database after a reply is sent, one run at a time, and the sessions of an unknown agent by a sync', async () => {
    const home = scratch();
    const record = path.join(home, 'runs.jsonl');
    const recorder = path.join(home, 'recorder.mjs');
    await fs.writeFile(recorder, `import { appendFileSync } from 'node:fs';\nawait new Promise((r) => setTimeout(r, 100));\nappendFileSync(${JSON.stringify(record)}, JSON.stringify({ args: process.argv.slice(2), env: process.env.SM_TEST }) + '\\n');\n`);
    const launcher = { command: process.execPath, args: [recorder, '--data', '/mem'], env: { SM_TEST: 'passed' } };
    await connectAssistant('openclaw', { home, env: {}, platform: process.platform, launcher });
    const database = path.join(home, '.openclaw/agents/main/agent/openclaw-agent.sqlite');
    await fs.mkdir(path.dirname(database), { recursive: true });
    await fs.writeFile(database, '');
    const handler = (await import(path.join(home, '.openclaw/hooks/session-memory-save/handler.js'))) as { default: (event: unknown) => Promise<void> };
    const sent = { type: 'message', action: 'sent', sessionKey: 'agent:main:telegram:direct:42', context: { success: true } };
    // Three replies in a row: one run, then one more for those sent meanwhile.
    await Promise.all([handler.default(sent), handler.default(sent), handler.default(sent)]);
    await handler.default({ type: 'message', action: 'received', sessionKey: 'agent:main:main' });
    await handler.default({ type: 'command', action: 'new', sessionKey: 'agent:elsewhere:main' });
    const runs = (await fs.readFile(record, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { args: string[]; env: string });
    expect(runs).toEqual([
      { args: ['--data', '/mem', 'hook', '--file', database], env: 'passed' },
      { args: ['--data', '/mem', 'hook', '--file', database], env: 'passed' },
      { args: ['--data', '/mem', 'sync', '--source', 'openclaw'], env: 'passed' },
    ]);
  });

  it('lists each tool, whether its folder is on this computer and whether it is connected', async () => {
    const home = await seed('codex');
    await fs.mkdir(path.join(home, '.cursor'));
    await connectAssistant('cursor', options(home));
    const listed = await listAssistants({ home, env: {}, platform: 'linux', launcher: LAUNCHER });
    expect(listed.map((a) => a.id)).toEqual([...ASSISTANT_IDS]);
    expect(listed.filter((a) => a.found).map((a) => a.id)).toEqual(['codex', 'cursor']);
    expect(listed.filter((a) => a.connected).map((a) => a.id)).toEqual(['cursor']);
    expect(existsSync(path.join(home, '.claude.json'))).toBe(false); // Listing writes nothing.
  });

  it('names this install\'s CLI: the checkout\'s bin script run by this node, or the installed app\'s binary running its bundled CLI as Node', () => {
    expect(runningCliLauncher(['/usr/bin/node', '/repo/bin/session-memory.mjs', 'connect'], { node: '20.20.2' } as NodeJS.ProcessVersions, '/usr/bin/node')).toEqual({ command: '/usr/bin/node', args: ['/repo/bin/session-memory.mjs'], env: {} });
    const app = '/opt/Session Memory/session-memory';
    const cli = '/opt/Session Memory/resources/app.asar/dist-electron/cli.cjs';
    expect(runningCliLauncher([app, cli, 'connect'], { node: '22.0.0', electron: '41.0.0' } as NodeJS.ProcessVersions, app)).toEqual({ command: app, args: [cli], env: { ELECTRON_RUN_AS_NODE: '1' } });
  });

  it('writes the store a command names, or SESSION_MEMORY_HOME, as an absolute --data (the assistant does not see this shell\'s variables)', () => {
    const base = { command: '/usr/bin/node', args: ['/repo/bin/session-memory.mjs'], env: {} };
    expect(launcherFor({ data: 'rel/mem' }, {}, base).args).toEqual(['/repo/bin/session-memory.mjs', '--data', path.resolve('rel/mem')]);
    expect(launcherFor({}, { SESSION_MEMORY_HOME: '/srv/mem' }, base).args).toEqual(['/repo/bin/session-memory.mjs', '--data', '/srv/mem']);
    expect(launcherFor({ data: 's3+ddb://bucket/p?ddbTableName=T', singleWriter: true }, {}, base).args).toEqual(['/repo/bin/session-memory.mjs', '--data', 's3+ddb://bucket/p?ddbTableName=T', '--single-writer']);
    expect(launcherFor({}, {}, base).args).toEqual(['/repo/bin/session-memory.mjs']);
  });

  it('writes the model a command names, or SESSION_MEMORY_MODEL, unless the store holds another (the first hook creates the store with it)', () => {
    const base = { command: '/usr/bin/node', args: ['/repo/bin/session-memory.mjs'], env: {} };
    const noStore = (options: Parameters<typeof launcherFor>[0], env: NodeJS.ProcessEnv = {}) => launcherFor(options, env, base, null).args.slice(1);
    expect(noStore({ data: '/srv/mem', model: 'use-lite-en' })).toEqual(['--data', '/srv/mem', '--model', 'use-lite-en']);
    expect(noStore({}, { SESSION_MEMORY_MODEL: 'use-lite-en' })).toEqual(['--model', 'use-lite-en']);
    // A model folder as an absolute path: the assistant runs the hook in a folder of its own.
    expect(noStore({ model: './models/mine' })).toEqual(['--model', path.resolve('models/mine')]);
    // A store of that model: the same entries as before it existed, so connecting again changes nothing.
    expect(launcherFor({ model: 'use-lite-en' }, {}, base, 'use-lite-en').args.slice(1)).toEqual(['--model', 'use-lite-en']);
    // A store of another model uses its own: naming this one would make every hook refuse the store.
    expect(launcherFor({}, { SESSION_MEMORY_MODEL: 'use-lite-en' }, base, 'Xenova/paraphrase-multilingual-MiniLM-L12-v2').args).toEqual(['/repo/bin/session-memory.mjs']);
    expect(launcherFor({ model: 'use-lite-en' }, {}, base).args).toEqual(['/repo/bin/session-memory.mjs']);
  });
});

describe('Settings › Connect an assistant (host)', () => {
  it('lists the assistants found, connects one with the app\'s own launch of this store, and answers a malformed file with its one line', async () => {
    const home = await seed('gemini-cli');
    const data = scratch();
    const host = new MemoryHost({
      dataDir: data,
      modelsDir: '/opt/models',
      cliLauncher: { command: '/Applications/Session Memory.app/Contents/MacOS/Session Memory', args: ['/Applications/Session Memory.app/Contents/Resources/app.asar/dist-electron/cli.cjs'], env: { ELECTRON_RUN_AS_NODE: '1' } },
      assistants: { home, env: {}, platform: 'linux' },
    });
    try {
      const listed = await dispatch(host.handlers, 'assistants:list', {});
      expect(listed).toEqual({ ok: true, value: expect.arrayContaining([{ id: 'gemini-cli', name: 'Gemini CLI', found: true, connected: false }, { id: 'cursor', name: 'Cursor', found: false, connected: false }]) });
      const connected = await dispatch(host.handlers, 'assistants:connect', { id: 'gemini-cli' });
      expect(connected.ok && (connected.value as Array<{ id: string; connected: boolean }>).find((a) => a.id === 'gemini-cli')?.connected).toBe(true);
      const settings = await json(home, '.gemini/settings.json');
      expect(settings.mcpServers['session-memory']).toEqual({
        command: '/Applications/Session Memory.app/Contents/MacOS/Session Memory',
        args: ['/Applications/Session Memory.app/Contents/Resources/app.asar/dist-electron/cli.cjs', '--data', data, 'mcp'],
        env: { ELECTRON_RUN_AS_NODE: '1', SESSION_MEMORY_MODELS_DIR: '/opt/models' },
      });
      expect(settings.hooks.AfterAgent[1].hooks[0].command).toBe(
        `ELECTRON_RUN_AS_NODE=1 SESSION_MEMORY_MODELS_DIR=/opt/models '/Applications/Session Memory.app/Contents/MacOS/Session Memory' '/Applications/Session Memory.app/Contents/Resources/app.asar/dist-electron/cli.cjs' --data ${data} hook`,
      );

      await fs.writeFile(path.join(home, '.gemini/settings.json'), '{"theme": ');
      const refused = await dispatch(host.handlers, 'assistants:connect', { id: 'gemini-cli', remove: true });
      expect(refused).toEqual({ ok: false, error: { code: 'invalid_input', message: expect.stringMatching(/settings\.json: not valid JSON \(.*\); fix or move it, then run this again$/) } });
      expect(await dispatch(host.handlers, 'assistants:connect', { id: 'vscode' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    } finally {
      await host.close();
    }
  });
});

describe('service', () => {
  const sync = { command: '/opt/node/bin/node', args: ['/home/ana/session memory/bin/session-memory.mjs', 'sync', '--watch'], env: { ELECTRON_RUN_AS_NODE: '1' } };

  it('Linux: a systemd user unit, then daemon-reload and enable --now; remove disables it and deletes the unit', async () => {
    const home = scratch();
    const ran: string[] = [];
    const run = (command: string, args: string[]) => (ran.push([command, ...args].join(' ')), { status: 0, output: '' });
    const result = await installService({ home, env: {}, platform: 'linux', sync, run });
    const unit = path.join(home, '.config/systemd/user/session-memory.service');
    expect(result.file).toBe(unit);
    const text = await fs.readFile(unit, 'utf8');
    expect(text).toContain('ExecStart=/opt/node/bin/node "/home/ana/session memory/bin/session-memory.mjs" sync --watch\n');
    expect(text).toContain('Environment=ELECTRON_RUN_AS_NODE=1\n');
    expect(text).toContain('WantedBy=default.target');
    expect(ran).toEqual(['systemctl --user daemon-reload', 'systemctl --user enable --now session-memory.service', 'systemctl --user restart session-memory.service']);
    expect((await installService({ home, env: {}, platform: 'linux', sync, run })).changed).toBe(false);
    ran.length = 0;
    await installService({ home, env: {}, platform: 'linux', sync, run, remove: true });
    expect(existsSync(unit)).toBe(false);
    expect(ran).toEqual(['systemctl --user disable --now session-memory.service', 'systemctl --user daemon-reload']);
  });

  it('macOS: a launchd agent in ~/Library/LaunchAgents, booted into the user\'s domain', async () => {
    const home = scratch();
    const ran: string[] = [];
    const result = await installService({ home, env: {}, platform: 'darwin', sync, uid: 501, run: (c, a) => (ran.push([c, ...a].join(' ')), { status: 0, output: '' }) });
    const plist = path.join(home, 'Library/LaunchAgents', `${LAUNCHD_LABEL}.plist`);
    expect(result.file).toBe(plist);
    const text = await fs.readFile(plist, 'utf8');
    expect(text).toContain('<string>/home/ana/session memory/bin/session-memory.mjs</string>\n    <string>sync</string>\n    <string>--watch</string>');
    expect(text).toContain('<key>ELECTRON_RUN_AS_NODE</key><string>1</string>');
    expect(text).toContain('<key>RunAtLoad</key><true/>');
    expect(ran).toEqual([`launchctl bootout gui/501/${LAUNCHD_LABEL}`, `launchctl bootstrap gui/501 ${plist}`]);
  });

  it('Windows: a script started by a logon task', async () => {
    const result = await installService({ home: 'C:\\Users\\ana', env: { LOCALAPPDATA: 'C:\\Users\\ana\\AppData\\Local' }, platform: 'win32', sync, dryRun: true });
    expect(result.file).toBe('C:\\Users\\ana\\AppData\\Local\\Session Memory\\sync-watch.cmd');
    expect(result.content).toBe('@echo off\r\nset "ELECTRON_RUN_AS_NODE=1"\r\n/opt/node/bin/node "/home/ana/session memory/bin/session-memory.mjs" sync --watch\r\n');
    expect(result.commands.map((c) => [c.command, ...c.args].join(' '))).toEqual([`schtasks /Create /TN Session Memory sync /SC ONLOGON /RL LIMITED /F /TR "${result.file}"`, 'schtasks /Run /TN Session Memory sync']);
  });

  it('without the system\'s command the file is written and the commands are printed to run', async () => {
    const home = scratch();
    const result = await installService({ home, env: {}, platform: 'linux', sync, run: () => null });
    expect(existsSync(result.file)).toBe(true);
    expect(result.commands.every((c) => c.status === null)).toBe(true);
    expect(result.notes[0]).toMatch(/systemctl is not on this computer: run the commands below yourself/);
  });

  it('--dry-run writes and runs nothing', async () => {
    const home = scratch();
    const result = await installService({ home, env: {}, platform: 'linux', sync, dryRun: true, run: () => expect.unreachable() as never });
    expect(readdirSync(home)).toEqual([]);
    expect(result.commands.map((c) => c.status)).toEqual([null, null, null]);
    expect(describeService(result)).toContain('  | ExecStart=/opt/node/bin/node "/home/ana/session memory/bin/session-memory.mjs" sync --watch');
  });
});

describe('session-memory connect (CLI)', () => {
  it('writes entries that run this checkout\'s CLI, prints JSON, and refuses a malformed file with one line and exit status 1', async () => {
    const home = scratch();
    const env = { HOME: home, USERPROFILE: home, SESSION_MEMORY_HOME: path.join(home, 'memory') };
    const dry = await runCli(['connect', 'claude-code', '--dry-run'], env);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(/^Claude Code: would be connected \(dry run: nothing written\)$/m);
    expect(readdirSync(home)).toEqual([]);

    const done = await runCli(['connect', 'claude-code', '--json'], env);
    expect(done.status).toBe(0);
    const result = JSON.parse(done.stdout) as { changed: boolean; files: Array<{ file: string }> };
    expect(result.changed).toBe(true);
    expect(result.files.map((f) => f.file)).toEqual([path.join(home, '.claude.json'), path.join(home, '.claude/settings.json')]);
    const server = (await json(home, '.claude.json')).mcpServers['session-memory'];
    // The store does not exist yet: the model this shell names (SESSION_MEMORY_MODEL) goes with it.
    expect(server).toEqual({ type: 'stdio', command: process.execPath, args: [BIN, '--data', path.join(home, 'memory'), '--model', 'use-lite-en', 'mcp'], env: {} });
    // The hook's command line runs through a shell as Claude Code runs it.
    const line = (await json(home, '.claude/settings.json')).hooks.Stop[0].hooks[0].command as string;
    const help = spawnSync('sh', ['-c', `${line} --help`], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: session-memory hook/);

    await fs.writeFile(path.join(home, '.claude.json'), '{"mcpServers": {"a": }');
    const refused = await runCli(['connect', 'claude-code'], env);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^session-memory: ${path.join(home, '.claude.json')}: not valid JSON \\(`))]);
    expect(await fs.readFile(path.join(home, '.claude.json'), 'utf8')).toBe('{"mcpServers": {"a": }');
  }, 60_000);
});
