/**
 * Checks, with the real assistants, that `connect` makes every turn saved, silently: installs
 * Claude Code, Codex CLI, Gemini CLI, Qwen Code and GitHub Copilot CLI from npm (each in a folder of its own, never in the
 * repository), answers their model calls with the mock model server (scripts/mockModelServer.ts),
 * and for each one: a fake home and a new data folder, `session-memory --model use-lite-en connect
 * <tool>` (nothing else: no variable of ours reaches the hook, it finds the store and the model
 * from what `connect` wrote), then three turns (a new session, then the same one resumed twice).
 * After each turn it reads the store (`show --json`) and prints whether the turn's question and
 * answer are there, with the right roles, what the client printed beyond its answer, and the lines
 * the hook wrote to its log. At the end, a search for each client's last turn, then `connect <tool>
 * --remove`, and for Codex whether its config.toml still holds a trust record (`[hooks.state]`) of
 * our hook (it must not: `--remove` has Codex delete it).
 *
 * With `--memory-calls`, whether the assistant uses this memory's tools: turn 1 tells a fact, turn 2
 * (a new session) asks `recall:<words>`, and the mock model calls this memory's search tool as the
 * client names it (loading it first through the client's tool search where the client defers MCP
 * tools); the result the client sent back must hold the fact, and the stored answer quote it
 * (checkMemoryCalls). `--codex-model gpt-5.5` runs Codex with a model of its catalogue, for which it
 * defers MCP tools.
 *
 * With `--tool-calls`, the mock model answers each turn's first call with one call of the client's
 * shell tool (`echo tool-output-<marker>`) and the next with its answer; the clients run with their
 * flags that let a tool run unasked. Each turn must then still be the person's prompt and the answer
 * only (the call and its output left out of the default view), and the client's logs imported with
 * `--include tools`, again into the data folder of the turns before and into a new one, must hold the
 * call and its output as tool messages, between the same prompt and answer, each once.
 *
 *   npx tsx scripts/check-clients.ts [--only claude-code,codex,gemini-cli,qwen-code,copilot-cli] [--tool-calls | --memory-calls] [--codex-model <name>] [--clients <dir>] [--keep]
 *
 * Run by hand (it needs the npm registry), not by the test suite. Exit status 1 when a turn was not
 * saved or a client printed something about the hook.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as TOML from 'smol-toml';
import { mockReply, mockToolOutput, startMockModelServer, type MockModelServer } from './mockModelServer.js';
import { askToYield } from '../electron/sources/handoff.js';

/**
 * The model Codex is set up with. Codex 0.171 defers MCP tools behind its `tool_search` for the
 * models of its catalogue (`gpt-5.5`: the memory tools come only once the model searched for them),
 * and offers them in the first request for a model it does not know (`gpt-mock`, the default).
 */
let codexModel = 'gpt-mock';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(REPO, 'bin', 'session-memory.mjs');

type ClientId = 'claude-code' | 'codex' | 'gemini-cli' | 'qwen-code' | 'copilot-cli';
/** Which tool a turn lets run without asking: none, the client's shell, or this memory's search. */
type Allow = 'none' | 'shell' | 'memory';

interface Client {
  id: ClientId;
  /** The npm package and the version checked. */
  npm: string;
  bin: string;
  /** The client's own variables: its home, its model server, its key. */
  env: (home: string, server: string) => Record<string, string>;
  /** What a person has set up before connecting (an API key's provider, say). */
  prepare?: (home: string, server: string) => void;
  /**
   * The command line of turn `n` (0: a new session; then the same session resumed); `allow`: with the
   * flags that let the shell tool, or this memory's search tool, run unasked.
   */
  turn: (n: number, prompt: string, home: string, allow: Allow) => string[];
  /** Where the client keeps its conversations under the fake home (imported with `--include tools`). */
  logs: (home: string) => string;
}

function claudeSessionId(home: string): string {
  const projects = path.join(home, '.claude', 'projects');
  for (const project of readdirSync(projects)) {
    const log = readdirSync(path.join(projects, project)).find((name) => name.endsWith('.jsonl'));
    if (log) return log.replace(/\.jsonl$/, '');
  }
  throw new Error(`no Claude Code log under ${projects}`);
}

const CLIENTS: Client[] = [
  {
    id: 'claude-code',
    npm: '@anthropic-ai/claude-code@2.1.332',
    bin: 'claude',
    env: (home, server) => ({
      CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
      ANTHROPIC_BASE_URL: server,
      ANTHROPIC_API_KEY: 'sk-mock',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    }),
    // Turn 2 continues the folder's last session; turn 3 resumes it by its id. Run as root,
    // `--dangerously-skip-permissions` is refused: the shell tool is allowed by name.
    turn: (n, prompt, home, allow) => [...(allow === 'shell' ? ['--allowedTools', 'Bash'] : allow === 'memory' ? ['--allowedTools', 'mcp__session-memory__search_memory'] : []), ...(n === 0 ? ['-p', prompt] : n === 1 ? ['-p', '--continue', prompt] : ['-p', '--resume', claudeSessionId(home), prompt])],
    logs: (home) => path.join(home, '.claude', 'projects'),
  },
  {
    id: 'codex',
    npm: '@openai/codex@0.171.0',
    bin: 'codex',
    env: (home) => ({ CODEX_HOME: path.join(home, '.codex'), MOCK_API_KEY: 'mock' }),
    // The model's name decides whether Codex defers MCP tools (see `--codex-model`).
    prepare: (home, server) => {
      mkdirSync(path.join(home, '.codex'), { recursive: true });
      writeFileSync(
        path.join(home, '.codex', 'config.toml'),
        `# a local model\nmodel = "${codexModel}"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server}/v1"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\n`,
      );
    },
    // No --dangerously-bypass-hook-trust: `connect` trusted the hook, as a person's Codex would need.
    // `exec` runs this memory's search (a read-only tool) with no flag.
    turn: (n, prompt, _home, allow) => ['exec', '--skip-git-repo-check', ...(allow === 'shell' ? ['--dangerously-bypass-approvals-and-sandbox'] : []), ...(n === 0 ? [prompt] : ['resume', '--last', prompt])],
    logs: (home) => path.join(home, '.codex', 'sessions'),
  },
  {
    id: 'gemini-cli',
    npm: '@google/gemini-cli@0.61.0',
    bin: 'gemini',
    env: (home, server) => ({ GEMINI_CLI_HOME: home, GOOGLE_GEMINI_BASE_URL: server, GEMINI_API_KEY: 'mock', GEMINI_CLI_TRUST_WORKSPACE: 'true' }),
    prepare: (home) => {
      mkdirSync(path.join(home, '.gemini'), { recursive: true });
      writeFileSync(path.join(home, '.gemini', 'settings.json'), `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2)}\n`);
    },
    // Without a flag, `-p` offers the model neither the shell nor any MCP tool.
    turn: (n, prompt, _home, allow) => [...(allow === 'shell' ? ['--yolo'] : allow === 'memory' ? ['--allowed-tools', 'mcp_session-memory_search_memory'] : []), ...(n === 0 ? ['-p', prompt] : ['--resume', 'latest', '-p', prompt])],
    logs: (home) => path.join(home, '.gemini', 'tmp'),
  },
  {
    id: 'qwen-code',
    npm: '@qwen-code/qwen-code@0.15.10',
    bin: 'qwen',
    // An OpenAI-compatible provider from these three variables (Qwen Code picks it when all three are set).
    env: (home, server) => ({ QWEN_HOME: path.join(home, '.qwen'), OPENAI_BASE_URL: `${server}/v1`, OPENAI_API_KEY: 'mock', OPENAI_MODEL: 'gpt-mock' }),
    // `--continue` takes up the project's latest session. `-p` runs this memory's search (loaded through its `tool_search`) with no flag.
    turn: (n, prompt, _home, allow) => [...(allow === 'shell' ? ['--yolo'] : []), ...(n === 0 ? ['-p', prompt] : ['--continue', '-p', prompt])],
    logs: (home) => path.join(home, '.qwen', 'projects'),
  },
  {
    id: 'copilot-cli',
    npm: '@github/copilot@1.0.102',
    bin: 'copilot',
    // Offline with a model provider of one's own (BYOK): no GitHub login, no update check.
    env: (home, server) => ({
      COPILOT_HOME: path.join(home, '.copilot'),
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${server}/v1`,
      COPILOT_PROVIDER_API_KEY: 'mock',
      COPILOT_MODEL: 'gpt-mock',
      COPILOT_AUTO_UPDATE: 'false',
    }),
    // `-p` needs its tools allowed up front (every one, or this memory's search alone); `--continue` takes up the latest session.
    turn: (n, prompt, _home, allow) => [...(n === 0 ? [] : ['--continue']), '-p', prompt, allow === 'memory' ? '--allow-tool=session-memory(search_memory)' : '--allow-all-tools'],
    logs: (home) => path.join(home, '.copilot', 'session-state'),
  },
];

/** Lines the clients print on their own whatever the hooks do (a terminal without colours, a sandbox helper missing). */
const CLIENT_CHATTER = [
  /^Warning: 256-color support not detected/,
  /^Ripgrep is not available/,
  /^WARNING: proceeding, even though we could not create PATH aliases/,
  /^Reading additional input from stdin/,
  /^warning: Codex could not find bubblewrap/,
  /^warning: Model metadata for `gpt-mock` not found/,
];
/** A line about a hook that says it went wrong (Codex prints `hook: Stop` and `hook: Stop Completed` for every hook). */
const HOOK_TROUBLE = /session-memory:|hook.*(fail|error|cancel|block|timed? ?out|denied|untrusted)|(fail|error|cancel).*hook/i;
/** A line about an MCP server or a tool of it that went wrong (not connected, timed out, refused arguments). */
const MCP_TROUBLE = /(mcp|session-memory|search_memory).*(fail|error|disconnect|timed? ?out|invalid|denied|not (found|allowed|connected))|(fail|error|invalid).*(mcp|search_memory)/i;

interface StoredMessage {
  role: string;
  content: string;
}

interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A process run to its end, without blocking this one (the mock model server answers from it). */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ status: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

async function install(client: Client, clientsDir: string): Promise<string> {
  const prefix = path.join(clientsDir, client.id);
  const bin = path.join(prefix, 'node_modules', '.bin', client.bin);
  const wanted = client.npm.slice(client.npm.lastIndexOf('@') + 1);
  const installed = path.join(prefix, 'node_modules', ...client.npm.slice(0, client.npm.lastIndexOf('@')).split('/'), 'package.json');
  if (!existsSync(installed) || (JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version !== wanted) {
    console.log(`${client.id}: npm i --prefix ${prefix} ${client.npm}`);
    const npm = await run('npm', ['i', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', client.npm], { cwd: os.tmpdir(), env: process.env, timeoutMs: 600_000 });
    if (npm.status !== 0) throw new Error(`${client.id}: npm install failed:\n${npm.stderr}`);
  }
  return bin;
}

async function storedMessages(data: string, env: NodeJS.ProcessEnv): Promise<StoredMessage[]> {
  const sessions = await run(process.execPath, [CLI, '--data', data, 'sessions', '--json'], { cwd: data, env });
  const list = sessions.status === 0 && sessions.stdout.trim() ? (JSON.parse(sessions.stdout) as Array<{ sessionId: string }>) : [];
  const messages: StoredMessage[] = [];
  for (const session of list) {
    const shown = await run(process.execPath, [CLI, '--data', data, 'show', '--json', session.sessionId], { cwd: data, env });
    if (shown.status === 0) messages.push(...(JSON.parse(shown.stdout) as { messages: StoredMessage[] }).messages);
  }
  return messages;
}

function hookLog(data: string): string[] {
  const file = path.join(data, 'logs', 'hooks.log');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { msg: string }).msg) : [];
}

/**
 * The client's logs imported again, with `--include tools`, into a data folder of their own: whether
 * the turns so far are each the prompt, then tool messages holding the call and its output, then the
 * answer, nothing twice. `label`: the data folder the turns before were imported into (a re-save
 * must add nothing twice), or a new one (the file alone must hold every turn, none lost at a resume).
 */
async function checkWithTools(client: Client, home: string, toolsData: string, label: string, turns: Array<{ prompt: string; answer: string; output: string }>, env: NodeJS.ProcessEnv): Promise<boolean> {
  mkdirSync(toolsData, { recursive: true });
  const imported = await run(process.execPath, [CLI, '--data', toolsData, '--model', 'use-lite-en', 'import', '--include', 'tools', client.logs(home)], { cwd: toolsData, env });
  // A file that holds no conversation (Gemini CLI leaves one at a resume) is named, and the others imported.
  const failures = imported.stderr.trim().split('\n').filter((line) => line && !line.endsWith(': no messages to import'));
  if (imported.status !== 0 && failures.length > 0) {
    console.log(`      import --include tools failed (${imported.status}): ${imported.stderr.trim()}`);
    return false;
  }
  if (imported.status !== 0) console.log(`      import --include tools: ${imported.stderr.trim().replace(/\n/g, '; ')}`);
  const messages = await storedMessages(toolsData, env);
  const problems: string[] = [];
  let at = 0;
  for (const [i, turn] of turns.entries()) {
    const start = messages.findIndex((m, k) => k >= at && m.role === 'user');
    const end = messages.findIndex((m, k) => k > start && m.role === 'assistant');
    if (start > at) problems.push(`turn ${i + 1}: before the prompt, after the turn before: ${JSON.stringify(messages.slice(at, start))}`);
    if (start < 0 || messages[start]!.content !== turn.prompt) problems.push(`turn ${i + 1}: the prompt is not the next user message`);
    if (end < 0 || messages[end]!.content !== turn.answer) problems.push(`turn ${i + 1}: the answer is not the next assistant message`);
    const between = start < 0 || end < 0 ? [] : messages.slice(start + 1, end);
    const tools = between.filter((m) => m.role === 'tool');
    if (between.length !== tools.length) problems.push(`turn ${i + 1}: between prompt and answer, not only tool messages: ${JSON.stringify(between)}`);
    // One call and its result, each once: the call names the output too (`echo <output>`).
    if (tools.length !== 2) problems.push(`turn ${i + 1}: ${tools.length} tool messages, not a call and its result`);
    if (!tools[0]?.content.includes(`echo ${turn.output}`)) problems.push(`turn ${i + 1}: the first tool message is not the call`);
    if (!tools[1]?.content.includes(turn.output)) problems.push(`turn ${i + 1}: the second tool message does not hold the output`);
    if (i === turns.length - 1 && label === 'again') console.log(`      with --include tools: ${JSON.stringify(tools.map((m) => m.content))}`);
    at = Math.max(end, start) + 1;
  }
  const rest = messages.slice(at);
  if (rest.length) problems.push(`more messages after the last turn: ${JSON.stringify(rest)}`);
  for (const problem of problems) console.log(`      WITH --include tools (${label}): ${problem}`);
  if (problems.length) console.log(`      store holds (--include tools, ${label}): ${JSON.stringify(messages)}`);
  return problems.length === 0;
}

interface ConnectedHome {
  root: string;
  home: string;
  data: string;
  project: string;
  env: NodeJS.ProcessEnv;
}

/** A fake home and a new data folder for the client, and `connect <tool>` run in it; null when connect failed. */
async function connectedHome(client: Client, bin: string, work: string, server: MockModelServer): Promise<ConnectedHome | null> {
  const root = path.join(work, client.id);
  const home = path.join(root, 'home');
  const data = path.join(root, 'data');
  const project = path.join(root, 'project');
  for (const dir of [home, data, project]) mkdirSync(dir, { recursive: true });
  // Only what a person's shell would have: no variable of ours, so the hook relies on what `connect` wrote.
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    USERPROFILE: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    ...client.env(home, server.url),
  };
  client.prepare?.(home, server.url);
  const version = (await run(bin, ['--version'], { cwd: project, env })).stdout.trim();
  console.log(`\n== ${client.id} (${version})`);
  const connect = await run(process.execPath, [CLI, '--data', data, '--model', 'use-lite-en', 'connect', client.id], { cwd: project, env });
  console.log(connect.stdout.trimEnd().replace(/^/gm, '   '));
  if (connect.status !== 0) {
    console.log(`   connect failed (${connect.status}): ${connect.stderr.trim()}`);
    return null;
  }
  return { root, home, data, project, env };
}

/** What the client printed beyond its answer that speaks of the hook or of the MCP server going wrong. */
function troubleIn(result: RunResult): string[] {
  const printed = `${result.stdout}\n${result.stderr}`.split('\n').map((l) => l.trim()).filter(Boolean);
  return printed.filter((line) => (HOOK_TROUBLE.test(line) || MCP_TROUBLE.test(line)) && !CLIENT_CHATTER.some((c) => c.test(line)));
}

async function checkClient(client: Client, bin: string, work: string, server: MockModelServer, tools: boolean): Promise<boolean> {
  const requestLog = server.requests;
  const connected = await connectedHome(client, bin, work, server);
  if (!connected) return false;
  const { root, home, data, project, env } = connected;
  const toolsData = path.join(root, 'data-tools');
  let ok = true;
  const expected: StoredMessage[] = [];
  const turns: Array<{ prompt: string; answer: string; output: string }> = [];
  const tag = client.id.replace(/[^a-z]/g, '').slice(0, 6);
  for (let n = 0; n < 3; n++) {
    const marker = `turn-${tag}${n + 1}`;
    const prompt = `Question ${n + 1} (${marker}): what do herons eat in winter?`;
    const logBefore = hookLog(data).length;
    const requestsBefore = requestLog.length;
    const callsBefore = server.toolCalls.length;
    const args = client.turn(n, prompt, home, tools ? 'shell' : 'none');
    const turn = await run(bin, args, { cwd: project, env });
    const answer = mockReply(marker);
    expected.push({ role: 'user', content: prompt }, { role: 'assistant', content: answer });
    turns.push({ prompt, answer, output: mockToolOutput(marker) });
    const calls = server.toolCalls.slice(callsBefore);
    const messages = (await storedMessages(data, env)).map((m) => ({ role: m.role, content: m.content }));
    const saved = JSON.stringify(messages) === JSON.stringify(expected);
    const printed = `${turn.stdout}\n${turn.stderr}`.split('\n').map((l) => l.trim()).filter(Boolean);
    const trouble = troubleIn(turn);
    const answered = turn.status === 0 && printed.includes(answer);
    const label = n === 0 ? 'new session' : 'resumed';
    const called = !tools || calls.length === 1;
    const callText = tools ? `, tool calls: ${calls.map((c) => `${c.name} ${JSON.stringify(c.args)}`).join('; ') || 'NONE'}` : '';
    console.log(`   turn ${n + 1} (${label}): ${saved ? 'saved' : 'NOT SAVED'}; client exit ${turn.status}${answered ? '' : ', no answer'}${trouble.length ? `; printed about the hook: ${JSON.stringify(trouble)}` : '; nothing about the hook printed'} (${requestLog.length - requestsBefore} model calls${callText})`);
    for (const line of hookLog(data).slice(logBefore)) console.log(`      hooks.log: ${line}`);
    if (!saved) console.log(`      store holds: ${JSON.stringify(messages)}`);
    if (!answered) console.log(`      ${client.bin} ${args.join(' ')}\n      stdout: ${turn.stdout.trim()}\n      stderr: ${turn.stderr.trim().slice(0, 2000)}`);
    const withTools = !tools || ((await checkWithTools(client, home, toolsData, 'again', turns, env)) && (await checkWithTools(client, home, path.join(root, `data-tools-${n + 1}`), 'new data folder', turns, env)));
    ok &&= saved && answered && called && withTools && trouble.length === 0;
  }
  const last = `turn-${tag}3`;
  const search = await run(process.execPath, [CLI, '--data', data, 'search', '--json', '--limit', '3', last], { cwd: project, env });
  const hits = search.status === 0 ? (JSON.parse(search.stdout) as Array<{ text?: string }>) : [];
  const found = hits.some((hit) => JSON.stringify(hit).includes(last));
  console.log(`   search "${last}": ${found ? 'found' : 'NOT FOUND'}`);
  const listed = await run(process.execPath, [CLI, '--data', data, 'sessions', '--json'], { cwd: project, env });
  for (const session of listed.status === 0 ? (JSON.parse(listed.stdout) as Array<{ sessionId: string; title: string; saves: number }>) : []) {
    console.log(`   session ${session.sessionId}: "${session.title}", ${session.saves} saves`);
  }
  // The saver the first turn's hook left running (the next turns' hooks handed their saves to it) ends here, as it would when an app starts.
  console.log(`   the hooks' saver left running: ${(await askToYield(data)) ? 'asked to end, ended' : 'none'}`);
  const removed = await run(process.execPath, [CLI, '--data', data, 'connect', client.id, '--remove'], { cwd: project, env });
  console.log(`   connect --remove: exit ${removed.status}`);
  console.log(removed.stdout.trimEnd().replace(/^/gm, '      '));
  let trustLeft = false;
  if (client.id === 'codex') {
    const config = TOML.parse(readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8')) as { hooks?: { state?: Record<string, unknown> } };
    const records = Object.keys(config.hooks?.state ?? {});
    const hooks = JSON.parse(readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8')) as { hooks?: { Stop?: unknown[] } };
    trustLeft = records.length > 0;
    console.log(`   Codex trust records left in config.toml: ${records.length === 0 ? 'none' : records.join(', ')}; Stop hooks left: ${JSON.stringify(hooks.hooks?.Stop ?? [])}`);
  }
  return ok && found && removed.status === 0 && !trustLeft;
}

/** Turn 1 tells a fact, turn 2 (a new session) asks for it back: the mock model searches this memory for it (`recall:`). */
const FACT = 'My locker code at the climbing gym is 4471, remember it.';
const FACT_WORD = '4471';
const RECALL_WORDS = 'locker code climbing gym';

/**
 * With `--memory-calls`: whether the assistant can use this memory's tools. Turn 1 tells a fact and
 * is saved by the hook; turn 2, a new session, asks `recall:<words>`, and the mock model calls this
 * memory's search tool as the client names it. Checks that the client made the call, that the result
 * it sent back holds turn 1's fact, that the answer (which quotes the result) is stored by the hook,
 * and that the client printed nothing about the hook or the MCP server going wrong.
 */
async function checkMemoryCalls(client: Client, bin: string, work: string, server: MockModelServer): Promise<boolean> {
  const connected = await connectedHome(client, bin, work, server);
  if (!connected) return false;
  const { home, data, project, env } = connected;
  const tag = client.id.replace(/[^a-z]/g, '').slice(0, 6);
  const prompts = [`Note (turn-${tag}1): ${FACT}`, `Question (turn-${tag}2): recall:${RECALL_WORDS}`];
  const expected: StoredMessage[] = [];
  let ok = true;
  for (const [n, prompt] of prompts.entries()) {
    const logBefore = hookLog(data).length;
    const requestsBefore = server.requests.length;
    const callsBefore = server.memoryCalls.length;
    // Each turn a new session: turn 2 can only know turn 1's fact from this memory.
    const args = client.turn(0, prompt, home, 'memory');
    const turn = await run(bin, args, { cwd: project, env });
    const calls = server.memoryCalls.slice(callsBefore);
    const answer = n === 0 ? mockReply(`turn-${tag}1`) : (calls[0]?.answer ?? '(no answer from a memory search)');
    expected.push({ role: 'user', content: prompt }, { role: 'assistant', content: answer });
    const messages = (await storedMessages(data, env)).map((m) => ({ role: m.role, content: m.content }));
    const saved = expected.every((m) => messages.some((s) => s.role === m.role && s.content === m.content)) && messages.length === expected.length;
    const trouble = troubleIn(turn);
    const answered = turn.status === 0 && `${turn.stdout}\n${turn.stderr}`.includes(answer);
    console.log(`   turn ${n + 1} (new session): ${saved ? 'saved' : 'NOT SAVED'}; client exit ${turn.status}${answered ? '' : ', no answer'}${trouble.length ? `; printed: ${JSON.stringify(trouble)}` : '; nothing about the hook or the MCP server printed'} (${server.requests.length - requestsBefore} model calls)`);
    for (const line of hookLog(data).slice(logBefore)) console.log(`      hooks.log: ${line}`);
    if (!saved) console.log(`      store holds: ${JSON.stringify(messages)}`);
    if (!answered) console.log(`      ${client.bin} ${args.join(' ')}\n      stdout: ${turn.stdout.trim().slice(0, 2000)}\n      stderr: ${turn.stderr.trim().slice(0, 2000)}`);
    let recalled = true;
    if (n === 1) {
      const call = calls[0];
      for (const loader of call?.loaders ?? []) console.log(`      loaded first: ${loader.name} ${JSON.stringify(loader.args)}`);
      console.log(`      memory search: ${call ? `${call.namespace ? `${call.namespace} › ` : ''}${call.name} ${JSON.stringify(call.args)}` : 'NONE (the client offered no tool of ours)'}`);
      console.log(`      its result: ${call?.result === null || !call ? 'NONE' : JSON.stringify(call.result.slice(0, 300))}`);
      recalled = calls.length === 1 && call!.result !== null && call!.result.includes(FACT_WORD) && answer.includes(FACT_WORD);
      console.log(`      turn 1's fact (${FACT_WORD}): ${recalled ? 'in the result and in the stored answer' : 'NOT RECALLED'}`);
    }
    ok &&= saved && answered && recalled && trouble.length === 0;
  }
  console.log(`   the hooks' saver left running: ${(await askToYield(data)) ? 'asked to end, ended' : 'none'}`);
  const removed = await run(process.execPath, [CLI, '--data', data, 'connect', client.id, '--remove'], { cwd: project, env });
  console.log(`   connect --remove: exit ${removed.status}`);
  return ok && removed.status === 0;
}

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    clients: { type: 'string', default: path.join(os.tmpdir(), 'session-memory-clients') },
    keep: { type: 'boolean', default: false },
    'tool-calls': { type: 'boolean', default: false },
    'memory-calls': { type: 'boolean', default: false },
    'codex-model': { type: 'string', default: codexModel },
  },
});
codexModel = values['codex-model']!;
const toolCalls = values['tool-calls'] ?? false;
const memoryCalls = values['memory-calls'] ?? false;
const only = values.only ? values.only.split(',') : null;
const chosen = CLIENTS.filter((c) => !only || only.includes(c.id));
const work = mkdtempSync(path.join(os.tmpdir(), 'session-memory-check-clients-'));
const server = await startMockModelServer({ log: path.join(work, 'model-requests.jsonl'), toolCalls, memoryCalls });
let allOk = true;
try {
  for (const client of chosen) {
    const bin = await install(client, values.clients!);
    allOk = (memoryCalls ? await checkMemoryCalls(client, bin, work, server) : await checkClient(client, bin, work, server, toolCalls)) && allOk;
  }
} finally {
  await server.close();
  if (values.keep) console.log(`\nkept: ${work} (model requests in model-requests.jsonl)`);
  else rmSync(work, { recursive: true, force: true });
}
console.log(
  memoryCalls
    ? allOk ? '\nevery client searched this memory and recalled the fact, every turn saved, nothing printed about the hook or the MCP server' : '\nSOME CLIENT DID NOT RECALL THE FACT, or a turn was not saved, or a client printed about the hook or the MCP server'
    : allOk ? '\nevery turn saved, nothing printed about the hook' : '\nSOME TURNS NOT SAVED, or a client printed about the hook',
);
process.exitCode = allOk ? 0 : 1;
