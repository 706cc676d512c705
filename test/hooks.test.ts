/**
 * `session-memory hook` as each assistant runs it after a turn: Claude Code's Stop and SessionEnd
 * hooks, Gemini CLI's AfterAgent hook and Codex's Stop hook (JSON on stdin), and Codex's `notify`
 * program (the turn's JSON as the last argument, stdin closed). Each client shows the person what a
 * hook prints and any exit status but 0, so stdout stays empty (JSON or nothing is what every one of
 * them accepts), the status is 0 whatever the input, and what the hook did goes to its log.
 */
import { describe, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { handoffAddress, TOKEN_FILE } from '../electron/sources/handoff.js';
import { BIN, cliEnv, collect, jsonLines, REPO, runCli, type CliResult } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';
import { loadedModules, loadedModulesEnv, loadedOf } from './helpers/loadedModules.js';

const scratch = scratchDirs('sm-hooks-');
const CLAUDE_SESSION = '7c1f0a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
const GEMINI_CHAT = path.join(REPO, 'test', 'fixtures', 'import', 'gemini-cli', 'home', 'tmp', 'work', 'chats', 'session-2026-12-04T18-20-38cde328.jsonl');
const QWEN_SESSION = '05634392-e641-4a60-998d-363cd111e5d1';
const QWEN_CHAT = path.join(REPO, 'test', 'fixtures', 'import', 'qwen-code', 'home', 'projects', '-tmp-qf-project', 'chats', `${QWEN_SESSION}.jsonl`);
// Three turns of a Copilot CLI session with its agentStop and sessionEnd hooks, which Copilot records as hook.start events.
const COPILOT_SESSION = 'e6feef19-08dd-4e17-a538-8ca91eb53a78';
// An interactive Copilot CLI session with /rewind and /rename (test/fixtures/import/copilot-cli/PROVENANCE.md).
const COPILOT_REWOUND = '3bf90121-7e33-4ec8-9a14-8b94327220c6';
const COPILOT_EVENTS = path.join(REPO, 'test', 'fixtures', 'import', 'copilot-cli', 'hooked', 'session-state', COPILOT_SESSION, 'events.jsonl');
/** What Copilot CLI 1.0.102 passed its hooks in that session (the `input` of each hook.start event). */
async function copilotHookInputs(): Promise<Array<{ line: number; type: string; input: Record<string, unknown> }>> {
  const lines = (await fs.readFile(COPILOT_EVENTS, 'utf8')).split('\n').filter(Boolean);
  return lines.flatMap((line, index) => {
    const event = JSON.parse(line) as { type: string; data: { hookType?: string; input?: Record<string, unknown> } };
    return event.type === 'hook.start' ? [{ line: index, type: event.data.hookType!, input: event.data.input! }] : [];
  });
}
const GEMINI_SESSION = '38cde328-b4b7-4895-8456-54d03cf9517b';
const CODEX_DAY = path.join(REPO, 'test', 'fixtures', 'import', 'codex', 'home', 'sessions', '2026', '12', '04');
const CODEX_STOP_THREAD = '01a24266-a1e5-7ed0-9ba7-ee0750560bcf';
const CODEX_NOTIFY_THREAD = '01a24248-6903-7571-8e8d-1bf6c2a7181f';

function claudeCodeLines(from: number, count: number, parent = from === 0 ? null : `t-${from - 1}`): string {
  let out = '';
  for (let i = from; i < from + count; i++) {
    const user = i % 2 === 0;
    const text = user ? `Question ${i}: when should the tomato seedlings go outside?` : `Answer ${i}: after the last frost, once nights stay above ten degrees.`;
    const message = user ? { role: 'user', content: text } : { id: `msg_${i}`, type: 'message', role: 'assistant', content: [{ type: 'text', text }] };
    out += `${JSON.stringify({ parentUuid: i === from ? parent : `t-${i - 1}`, sessionId: CLAUDE_SESSION, type: user ? 'user' : 'assistant', message, uuid: `t-${i}`, timestamp: new Date(Date.UTC(2026, 11, 1, 9, i)).toISOString() })}\n`;
  }
  return out;
}

/** What Claude Code appends to a session's log after each Stop: lines that hold no dialogue (the next turn's parent is the system line). */
function bookkeepingLines(after: number): string {
  return [
    { type: 'system', subtype: 'stop_hook_summary', parentUuid: `t-${after}`, uuid: `s-${after}`, sessionId: CLAUDE_SESSION, timestamp: new Date(Date.UTC(2026, 11, 1, 10, after)).toISOString(), content: 'Stop hook ran', level: 'info' },
    { type: 'file-history-snapshot', messageId: `t-${after}`, snapshot: { messageId: `t-${after}`, trackedFileBackups: {}, timestamp: new Date(Date.UTC(2026, 11, 1, 10, after)).toISOString() }, isSnapshotUpdate: false },
  ]
    .map((l) => `${JSON.stringify(l)}\n`)
    .join('');
}

/** Runs the hook as a client does: stdin written and closed, or (Codex's notify) no stdin at all. */
function hook(args: string[], stdin: string | null, env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, env: cliEnv(env), stdio: [stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (stdin !== null) child.stdin!.end(stdin);
  return collect(child);
}

async function hookLog(data: string): Promise<Array<{ level: number; msg: string }>> {
  const text = await fs.readFile(path.join(data, 'logs', 'hooks.log'), 'utf8').catch(() => '');
  return jsonLines(text) as Array<{ level: number; msg: string }>;
}

async function machine(): Promise<{ data: string; log: string; codexHome: string }> {
  const root = scratch();
  const log = path.join(root, 'claude', `${CLAUDE_SESSION}.jsonl`);
  await fs.mkdir(path.dirname(log), { recursive: true });
  await fs.writeFile(log, claudeCodeLines(0, 6));
  const codexHome = path.join(root, 'codex');
  const day = path.join(codexHome, 'sessions', '2026', '12', '04');
  await fs.mkdir(day, { recursive: true });
  for (const name of await fs.readdir(CODEX_DAY)) await fs.copyFile(path.join(CODEX_DAY, name), path.join(day, name));
  return { data: path.join(root, 'data'), log, codexHome };
}

// Two tests at a time (describe.concurrent, maxConcurrency 2 for the file): each has folders of its own
// and spends its time in the hook processes it starts, or waiting on one (the stuck app's). Each asserts
// with its own `expect` (the test context's), as tests running at the same time must.
vi.setConfig({ maxConcurrency: 2 });

describe.concurrent('session-memory hook, as each assistant runs it', () => {
  it('saves the transcript that Claude Code, Gemini CLI, Codex, Qwen Code and Copilot CLI name, prints nothing and exits 0', async ({ expect }) => {
    const { data, log, codexHome } = await machine();
    const env = { CODEX_HOME: codexHome };
    const codexStopRollout = path.join(codexHome, 'sessions', '2026', '12', '04', (await fs.readdir(path.join(codexHome, 'sessions', '2026', '12', '04'))).find((n) => n.includes(CODEX_STOP_THREAD))!);

    const runs: Array<[string, string[], string | null]> = [
      ['Claude Code Stop', [], JSON.stringify({ session_id: CLAUDE_SESSION, transcript_path: log, cwd: '/work', permission_mode: 'default', hook_event_name: 'Stop', stop_hook_active: false })],
      ['Gemini CLI AfterAgent', [], JSON.stringify({ session_id: GEMINI_SESSION, transcript_path: GEMINI_CHAT, cwd: '/work', hook_event_name: 'AfterAgent', timestamp: '2026-12-04T18:21:00.000Z', prompt: 'hello', prompt_response: 'hi', stop_hook_active: false })],
      ['Codex Stop', [], JSON.stringify({ session_id: CODEX_STOP_THREAD, turn_id: '1', transcript_path: codexStopRollout, cwd: '/work', hook_event_name: 'Stop', model: 'gpt-5-codex', permission_mode: 'default', stop_hook_active: false, last_assistant_message: 'Done.' })],
      // Codex's notify: `notify = ["node", ".../session-memory.mjs", "hook"]`, the turn appended as the last argument.
      ['Codex notify', [JSON.stringify({ type: 'agent-turn-complete', 'thread-id': CODEX_NOTIFY_THREAD, 'turn-id': '7', cwd: '/work', client: 'codex-tui', 'input-messages': ['hello'], 'last-assistant-message': 'Hi.' })], null],
      // What Qwen Code 0.15.10's Stop hook and GitHub Copilot CLI 1.0.102's agentStop hook wrote on stdin (Copilot's fields in camelCase).
      ['Qwen Code Stop', [], JSON.stringify({ session_id: QWEN_SESSION, transcript_path: QWEN_CHAT, cwd: '/work', hook_event_name: 'Stop', timestamp: '2026-12-07T10:18:59.428Z', stop_hook_active: true, last_assistant_message: 'Noted.' })],
      ['Copilot CLI agentStop', [], JSON.stringify({ ...(await copilotHookInputs()).filter((hook) => hook.type === 'agentStop').at(-1)!.input, transcriptPath: COPILOT_EVENTS })],
    ];
    for (const [client, args, stdin] of runs) {
      const run = await hook(['--data', data, 'hook', ...args], stdin, env);
      expect({ client, status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ client, status: 0, stdout: '', stderr: '' });
    }

    // Claude Code's SessionEnd, after the conversation went on: the two new messages are saved.
    await fs.appendFile(log, claudeCodeLines(6, 2));
    const end = await hook(['--data', data, 'hook'], JSON.stringify({ session_id: CLAUDE_SESSION, transcript_path: log, cwd: '/work', hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' }), env);
    expect(end).toMatchObject({ status: 0, stdout: '', stderr: '' });

    const sessions = JSON.parse((await runCli(['--data', data, 'sessions', '--json'])).stdout) as Array<{ sessionId: string; messageCount: number }>;
    expect(sessions.map((s) => s.sessionId).sort()).toEqual([CODEX_STOP_THREAD, CODEX_NOTIFY_THREAD, CLAUDE_SESSION, GEMINI_SESSION, QWEN_SESSION, COPILOT_SESSION].sort());
    expect(sessions.find((s) => s.sessionId === COPILOT_SESSION)?.messageCount).toBe(6);
    expect(sessions.find((s) => s.sessionId === CLAUDE_SESSION)?.messageCount).toBe(8);
    // What each run did is in the hooks' log.
    const logged = (await hookLog(data)).map((l) => l.msg);
    expect(logged).toHaveLength(7);
    expect(logged[0]).toMatch(new RegExp(`${CLAUDE_SESSION}: 6 messages: 6 new`));
    expect(logged[3]).toMatch(new RegExp(`${CODEX_NOTIFY_THREAD}: .* new`));
    expect(logged[6]).toMatch(/8 messages: 2 new/);
  }, 180_000);

  it('Copilot CLI: waits until its events show the hook started (the turn is written just after), and its sessionEnd finds the session by id', async ({ expect }) => {
    const { data } = await machine();
    const copilotHome = scratch();
    const events = path.join(copilotHome, 'session-state', COPILOT_SESSION, 'events.jsonl');
    const lines = (await fs.readFile(COPILOT_EVENTS, 'utf8')).split('\n').filter(Boolean);
    const hooks = await copilotHookInputs();
    const [firstStop, firstEnd, secondStop, secondEnd] = hooks;
    const upTo = (line: number) => `${lines.slice(0, line + 1).join('\n')}\n`;
    // A new session's first agentStop starts before Copilot has written its events file, and before its own hook.start event.
    const run = hook(['--data', data, 'hook'], JSON.stringify({ ...firstStop!.input, transcriptPath: events }), {});
    // The file appears 1.5 s on: a hook's process can take more than 300 ms to start beside other test
    // files (it did once), and then found the file at once; it waits up to 3 s for it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await fs.mkdir(path.dirname(events), { recursive: true });
    await fs.writeFile(events, upTo(firstStop!.line - 3));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await fs.writeFile(events, upTo(firstStop!.line));
    expect(await run).toMatchObject({ status: 0, stdout: '', stderr: '' });
    // The second run's turn, and the hook.start of its sessionEnd: found by the session's id under COPILOT_HOME.
    await fs.writeFile(events, upTo(secondEnd!.line));
    const end = await hook(['--data', data, 'hook'], JSON.stringify(secondEnd!.input), { COPILOT_HOME: copilotHome });
    expect(end).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect([firstEnd!.type, secondStop!.type]).toEqual(['sessionEnd', 'agentStop']);
    const logged = (await hookLog(data)).map((l) => l.msg);
    expect(logged[0]).toMatch(/events\.jsonl appeared after \d+ ms$/);
    expect(logged[1]).toMatch(new RegExp(`${COPILOT_SESSION}: 2 messages: 2 new`));
    expect(logged.at(-1)).toMatch(new RegExp(`${COPILOT_SESSION}: (4 messages: 2 new|saved by the process serving hooks \\(2 new\\))`));
    // Had it not waited for its hook.start, the first save would have found the turn without its answer.
    expect(lines.slice(firstStop!.line - 2, firstStop!.line).map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(['assistant.message', 'assistant.turn_end']);
  }, 60_000);

  it("Copilot CLI: its sessionEnd after /rewind and /rename drops the rewound turn from memory and takes the session's name", async ({ expect }) => {
    const { data } = await machine();
    const copilotHome = scratch();
    const fixtures = path.join(REPO, 'test', 'fixtures', 'import', 'copilot-cli');
    const folder = path.join(copilotHome, 'session-state', COPILOT_REWOUND);
    await fs.mkdir(folder, { recursive: true });
    // What Copilot CLI 1.0.102 passed its sessionEnd hook, less the time (these runs had no hook to record it).
    const sessionEnd = JSON.stringify({ reason: 'complete', sessionId: COPILOT_REWOUND, cwd: '/tmp/cpr/project' });
    // Two turns; then Copilot cut the second out of events.jsonl, another came, and the person named the session.
    await fs.copyFile(path.join(fixtures, 'before-rewind', COPILOT_REWOUND, 'events.jsonl'), path.join(folder, 'events.jsonl'));
    expect(await hook(['--data', data, 'hook'], sessionEnd, { COPILOT_HOME: copilotHome })).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const rewound = path.join(fixtures, 'interactive', 'session-state', COPILOT_REWOUND);
    await fs.copyFile(path.join(rewound, 'events.jsonl'), path.join(folder, 'events.jsonl'));
    await fs.copyFile(path.join(rewound, 'workspace.yaml'), path.join(folder, 'workspace.yaml'));
    expect(await hook(['--data', data, 'hook'], sessionEnd, { COPILOT_HOME: copilotHome })).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const sessions = JSON.parse((await runCli(['--data', data, 'sessions', '--json'])).stdout) as Array<{ sessionId: string; title: string; messageCount: number }>;
    expect(sessions.filter((s) => s.sessionId === COPILOT_REWOUND).map(({ title, messageCount }) => ({ title, messageCount }))).toEqual([{ title: 'Heron field notes', messageCount: 4 }]);
    const shown = JSON.parse((await runCli(['--data', data, 'show', '--json', COPILOT_REWOUND])).stdout) as { messages: Array<{ content: string }> };
    expect(shown.messages.map((m) => m.content).filter((content) => content.startsWith('Question'))).toEqual(['Question 1 (turn-heron1): what do herons eat in winter?', 'Question 2 (turn-heron3): where do herons nest?']);
  }, 60_000);

  it('never exits 2 nor prints on stdout, whatever it is given; the log says why, and --verbose says it on stderr too', async ({ expect }) => {
    const { data, log, codexHome } = await machine();
    const env = { CODEX_HOME: codexHome };
    const cases: Array<[string[], string | null, RegExp]> = [
      [[], 'not json', /not a JSON object/],
      [[], '{}', /no "transcript_path"/],
      // Codex passes null when it keeps no rollout (an ephemeral session).
      [[], JSON.stringify({ session_id: 's', turn_id: '1', transcript_path: null, cwd: '/', hook_event_name: 'Stop', model: 'm', permission_mode: 'default', stop_hook_active: false, last_assistant_message: null }), /\(Stop\) has no "transcript_path"/],
      [[], '', /no hook input on stdin/],
      [['--some-new-flag', 'extra', 'arguments'], JSON.stringify({ hook_event_name: 'Stop' }), /no "transcript_path"/],
      [['--include', 'everything'], JSON.stringify({ transcript_path: log }), /--include takes/],
      [['--file'], null, /argument missing/],
      [['--file', path.join(data, 'gone.jsonl')], null, /gone\.jsonl does not exist/],
      [[JSON.stringify({ type: 'agent-turn-complete', 'thread-id': '0000-no-such-thread', 'turn-id': '1' })], null, /no rollout of Codex thread 0000-no-such-thread/],
    ];
    for (const [args, stdin, why] of cases) {
      const before = (await hookLog(data)).length;
      const run = await hook(['--data', data, 'hook', ...args], stdin, env);
      expect({ args, status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ args, status: 0, stdout: '', stderr: '' });
      const lines = (await hookLog(data)).slice(before);
      expect(lines.map((l) => l.msg).join('\n')).toMatch(why);
    }
    const verbose = await hook(['--data', data, 'hook', '--verbose'], 'not json', env);
    expect(verbose).toMatchObject({ status: 0, stdout: '' });
    expect(verbose.stderr).toMatch(/not a JSON object/);
    // Nothing above saved anything.
    expect(existsSync(path.join(data, 'lancedb'))).toBe(false);
  }, 120_000);

  it('a log grown only by bookkeeping lines is not saved again: no store, no model (none to be had), and the next turn is saved', async ({ expect }) => {
    const { data, log } = await machine();
    const input = JSON.stringify({ session_id: CLAUDE_SESSION, transcript_path: log, cwd: '/work', hook_event_name: 'Stop', stop_hook_active: false });
    const first = await hook(['--data', data, 'hook', '--json'], input, {});
    expect(jsonLines(first.stdout)).toEqual([expect.objectContaining({ sessionId: CLAUDE_SESSION, new: 6 })]);

    // The test model is built from an npm package wherever it is missing: a folder under a file cannot hold it.
    const noModel = { SESSION_MEMORY_MODELS_DIR: path.join(log, 'no-models-here') };
    await fs.appendFile(log, bookkeepingLines(5));
    const loaded = path.join(path.dirname(data), 'loaded.txt');
    const grown = await hook(['--data', data, 'hook', '--json'], input, { ...noModel, ...loadedModulesEnv(loaded) });
    expect(grown).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect((await hookLog(data)).at(-1)?.msg).toMatch(/nothing new$/);
    // It read the log again (the importers' Claude Code reader) and loaded nothing of the store, the
    // model, the other formats' packages, the sources' discovery or the commands that open a store.
    const modules = await loadedModules(loaded);
    expect(modules).toContain('electron/importers/agents/claude-code.ts');
    expect(loadedOf(modules, ['@lancedb/lancedb', 'apache-arrow', 'onnxruntime-node', '@huggingface/transformers', 'electron/engine/store/', 'electron/engine/engine.ts', 'zod', 'html-to-text', 'yauzl', 'stream-json', 'tinyglobby', 'cli-progress', 'pino', 'electron/cli/storeCommands.ts', 'electron/sources/discover.ts'])).toEqual([]);
    // A hook's usual command line is read without the program: neither commander nor the other commands load.
    expect(loadedOf(modules, ['commander', 'electron/cli/program.ts', 'electron/cli/sourceCommands.ts', 'electron/cli/connectCommands.ts'])).toEqual([]);

    // New dialogue needs the model: with none to be had the save fails (logged, still status 0), and with it the turn is saved.
    await fs.appendFile(log, claudeCodeLines(6, 2, 's-5') + bookkeepingLines(7));
    const without = await hook(['--data', data, 'hook'], input, noModel);
    expect(without).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect((await hookLog(data)).at(-1)).toMatchObject({ level: 40, msg: expect.stringMatching(/no-models-here/) });
    const withModel = await hook(['--data', data, 'hook', '--json'], input, {});
    expect(jsonLines(withModel.stdout)).toEqual([expect.objectContaining({ sessionId: CLAUDE_SESSION, new: 2, skipped: 6 })]);
  }, 180_000);

  it('leaves the save to the next sync or hook when the running app takes it but does not answer in time', async ({ expect }) => {
    const { data, log } = await machine();
    await fs.mkdir(data, { recursive: true });
    // A server that takes the connection and then hangs (a stuck app).
    const address = handoffAddress(data);
    await fs.mkdir(path.dirname(address), { recursive: true, mode: 0o700 });
    await fs.rm(address, { force: true });
    const held: net.Socket[] = [];
    const stuck = net.createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => stuck.listen(address, resolve));
    await fs.writeFile(path.join(data, TOKEN_FILE), 'a'.repeat(64), { mode: 0o600 });
    try {
      const started = Date.now();
      const run = await hook(['--data', data, 'hook', '--file', log], null, {});
      expect(run).toMatchObject({ status: 0, stdout: '', stderr: '' });
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(held.length).toBe(1);
      expect((await hookLog(data)).at(-1)?.msg).toMatch(/did not answer in time; the save is left/);
      // Not saved meanwhile by the hook itself (the stuck app may still be saving it).
      expect(existsSync(path.join(data, 'lancedb'))).toBe(false);
    } finally {
      for (const s of held) s.destroy();
      await new Promise<void>((resolve) => stuck.close(() => resolve()));
    }
  }, 60_000);
});
