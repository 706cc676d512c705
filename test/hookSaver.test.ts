/**
 * The hooks' saver (electron/cli/hookSaver.ts): a hook that finds nothing serving its data folder
 * saves on its own and leaves a saver running, to which the next turns' hooks hand their saves; the
 * saver gives way to `sync --watch` (as to the app), ends when no hook came for `--idle` minutes, and
 * is not left after the session's last hook. The MCP server of an assistant's session serves the
 * hooks too (electron/mcp/server.ts: serveHooks). Processes as an assistant starts them, the engine
 * on the hashing stand-in (the model's path is the hook's own, tested in hooks.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { askToYield, handoffAddress } from '../electron/sources/handoff.js';
import { BIN, cliEnv, collect, HASH_EMBEDDER, jsonLines, REPO, runCli, startCli, type CliResult } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';
import { mcpHandshake } from '../scripts/mcpHandshake.js';

const scratch = scratchDirs('sm-hook-saver-');
const SESSION = '5d2c8e41-7a3b-4c6d-9e8f-1a2b3c4d5e6f';

function turnLines(from: number, count: number): string {
  let out = '';
  for (let i = from; i < from + count; i++) {
    const user = i % 2 === 0;
    const text = user ? `Question ${i}: which port does the staging proxy listen on?` : `Answer ${i}: port ${8000 + i}, behind the load balancer.`;
    const message = user ? { role: 'user', content: text } : { id: `msg_${i}`, type: 'message', role: 'assistant', content: [{ type: 'text', text }] };
    out += `${JSON.stringify({ parentUuid: i === 0 ? null : `t-${i - 1}`, sessionId: SESSION, type: user ? 'user' : 'assistant', message, uuid: `t-${i}`, timestamp: new Date(Date.UTC(2026, 11, 2, 9, i)).toISOString() })}\n`;
  }
  return out;
}

/** Claude Code's hook: its input on stdin. */
function hook(data: string, log: string, event: string, env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, '--data', data, 'hook'], { cwd: REPO, env: cliEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin!.end(JSON.stringify({ session_id: SESSION, transcript_path: log, cwd: '/work', hook_event_name: event }));
  return collect(child);
}

/**
 * A scratch folder with a Claude Code log of `turns` lines, a home with no assistant in it (`sync
 * --watch` then follows no source, only the hooks) and the hooks' environment, a saver staying 5 minutes.
 */
async function assistantFolder(turns: number): Promise<{ data: string; log: string; env: Record<string, string> }> {
  const root = scratch();
  const log = path.join(root, 'claude', `${SESSION}.jsonl`);
  await fs.mkdir(path.dirname(log), { recursive: true });
  await fs.writeFile(log, turnLines(0, turns));
  const home = path.join(root, 'home');
  await fs.mkdir(home);
  return { data: path.join(root, 'data'), log, env: { ...HASH_EMBEDDER, HOME: home, SESSION_MEMORY_TEST_HOOK_STAY: '5' } };
}

async function hookLog(data: string): Promise<Array<{ pid: number; msg: string }>> {
  return jsonLines(await fs.readFile(path.join(data, 'logs', 'hooks.log'), 'utf8').catch(() => '')) as Array<{ pid: number; msg: string }>;
}

function answers(data: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(handoffAddress(data));
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function until(what: string, test: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const start = Date.now();
  while (!(await test())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function messageCount(data: string): Promise<number | undefined> {
  const sessions = JSON.parse((await runCli(['--data', data, 'sessions', '--json'], HASH_EMBEDDER)).stdout) as Array<{ sessionId: string; messageCount: number }>;
  return sessions.find((s) => s.sessionId === SESSION)?.messageCount;
}

describe('the hooks\' saver', () => {
  it('is left by a hook that saved on its own, takes the next turn, gives way to sync --watch, and is not left by the last hook', async () => {
    const { data, log, env } = await assistantFolder(4);

    // Turn 1: nothing serves the folder, so the hook saves on its own, then leaves a saver.
    expect(await hook(data, log, 'Stop', env)).toMatchObject({ status: 0, stdout: '', stderr: '' });
    await until('the saver answers', () => answers(data));
    let logged = await hookLog(data);
    expect(logged[0]!.msg).toMatch(new RegExp(`${SESSION}: 4 messages: 4 new`));
    const started = logged.find((l) => l.msg.startsWith('hook saver: serving'));
    expect(started?.msg).toMatch(/until 5 minutes without one/);
    const saver = started!.pid;
    expect(saver).not.toBe(logged[0]!.pid);
    expect(alive(saver)).toBe(true);

    // Turn 2: handed to the saver, which saves it; the hook itself opened nothing.
    await fs.appendFile(log, turnLines(4, 2));
    expect(await hook(data, log, 'Stop', env)).toMatchObject({ status: 0, stdout: '', stderr: '' });
    logged = await hookLog(data);
    expect(logged.at(-1)!.msg).toBe(`hook: ${SESSION}: saved by the process serving hooks (2 new)`);
    expect(await messageCount(data)).toBe(6);

    // `sync --watch` starts: the saver gives way and ends, the watcher serves the hooks.
    const watcher = startCli(['--data', data, 'sync', '--watch', '--json'], env);
    const watched = collect(watcher);
    try {
      await until('the saver ended', async () => !alive(saver));
      await until('the watcher serves the hooks', () => answers(data));
      expect((await hookLog(data)).map((l) => l.msg)).toContain('hook saver: ended (gave way) after 1 save');
      await fs.appendFile(log, turnLines(6, 2));
      expect(await hook(data, log, 'Stop', env)).toMatchObject({ status: 0, stdout: '', stderr: '' });
      expect((await hookLog(data)).at(-1)!.msg).toBe(`hook: ${SESSION}: saved by the process serving hooks (2 new)`);
    } finally {
      watcher.kill('SIGINT');
    }
    const watch = await watched;
    expect(watch.status).toBe(0);
    expect(jsonLines(watch.stdout)).toEqual([expect.objectContaining({ source: 'hook', sessionId: SESSION, new: 2 })]);
    expect(await messageCount(data)).toBe(8);

    // The session ends with nothing serving: the hook saves on its own and leaves no saver.
    await until('the watcher stopped answering', async () => !(await answers(data)));
    await fs.appendFile(log, turnLines(8, 2));
    expect(await hook(data, log, 'SessionEnd', env)).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect((await hookLog(data)).at(-1)!.msg).toMatch(new RegExp(`${SESSION}: 10 messages: 2 new`));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await answers(data)).toBe(false);
    expect((await hookLog(data)).filter((l) => l.msg.startsWith('hook saver: serving'))).toHaveLength(1);
  }, 240_000);

  it('ends once no hook came for --idle minutes; a second one waits while the first serves, and ends after its own idle time', async () => {
    const data = path.join(scratch(), 'data');
    await fs.mkdir(data, { recursive: true });
    const first = startCli(['--data', data, 'hook-saver', '--idle', '0.25'], HASH_EMBEDDER);
    const firstRun = collect(first);
    try {
      await until('the first saver answers', () => answers(data));
      const started = Date.now();
      const second = await runCli(['--data', data, 'hook-saver', '--idle', '0.05'], HASH_EMBEDDER);
      expect(second).toMatchObject({ status: 0, stdout: '' });
      expect(second.stderr).toMatch(/were served by another process all along/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
    } finally {
      // Asked to give way as the app would, in case the idle end below failed.
      setTimeout(() => void askToYield(data), 120_000).unref();
    }
    const started = Date.now();
    expect(await firstRun).toMatchObject({ status: 0, stdout: '', stderr: '' });
    // About 15 s after it began to serve, not at once and not only when asked.
    expect(Date.now() - started).toBeLessThan(110_000);
    const logged = (await hookLog(data)).map((l) => l.msg);
    expect(logged).toEqual([expect.stringMatching(/^hook saver: serving .*until 15 s without one/), 'hook saver: ended (idle) after 0 saves']);
    expect(await answers(data)).toBe(false);
  }, 180_000);

  it('the MCP server of an assistant\'s session serves the hooks, the first turn\'s included; a saver waits and serves once the session ends; a read-only server serves none', async () => {
    const root = scratch();
    const data = path.join(root, 'data');
    const log = path.join(root, 'claude', `${SESSION}.jsonl`);
    await fs.mkdir(path.dirname(log), { recursive: true });
    await fs.writeFile(log, turnLines(0, 4));
    const env = { ...HASH_EMBEDDER, SESSION_MEMORY_TEST_HOOK_STAY: '5' };
    const startMcp = (args: string[]) => {
      const child = spawn(process.execPath, [BIN, '--data', data, 'mcp', ...args], { cwd: REPO, env: cliEnv(HASH_EMBEDDER), stdio: ['pipe', 'pipe', 'pipe'] });
      const err = { text: '' };
      child.stderr.on('data', (d: Buffer) => (err.text += d.toString()));
      return { child, err, closed: new Promise((resolve) => child.once('close', resolve)) };
    };

    // A read-only server leaves the door free.
    const readOnly = startMcp(['--read-only']);
    await mcpHandshake(readOnly.child, 'read-only');
    await until('the read-only server is ready', async () => readOnly.err.text.includes('ready on stdio'));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await answers(data)).toBe(false);
    readOnly.child.stdin.end();
    await readOnly.closed;

    const session = startMcp([]);
    let saver: ReturnType<typeof collect> | null = null;
    try {
      await mcpHandshake(session.child, 'session');
      await until('the MCP server serves the hooks', async () => session.err.text.includes('serving the hooks of this data folder'));
      // The session's first turn: handed over, and no saver is started.
      expect(await hook(data, log, 'Stop', env)).toMatchObject({ status: 0, stdout: '', stderr: '' });
      expect((await hookLog(data)).at(-1)!.msg).toBe(`hook: ${SESSION}: saved by the process serving hooks (4 new)`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await hookLog(data)).filter((l) => l.msg.startsWith('hook saver:'))).toEqual([]);
      // A saver that starts now (as one a hook started just before the server began to serve) waits.
      saver = collect(startCli(['--data', data, 'hook-saver', '--idle', '5'], HASH_EMBEDDER));
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect((await hookLog(data)).filter((l) => l.msg.startsWith('hook saver:'))).toEqual([]);
    } finally {
      session.child.stdin.end();
    }
    await session.closed;
    // The session ended: the saver serves the next turn.
    await until('the saver serves', async () => (await hookLog(data)).some((l) => l.msg.startsWith('hook saver: serving')));
    await fs.appendFile(log, turnLines(4, 2));
    expect(await hook(data, log, 'Stop', env)).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect((await hookLog(data)).at(-1)!.msg).toBe(`hook: ${SESSION}: saved by the process serving hooks (2 new)`);
    expect(await askToYield(data)).toBe(true);
    expect(await saver).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect((await hookLog(data)).at(-1)!.msg).toBe('hook saver: ended (gave way) after 1 save');
    expect(await messageCount(data)).toBe(6);
  }, 240_000);

  it('the MCP server gives way to sync --watch, which serves the next turn', async () => {
    const root = scratch();
    const data = path.join(root, 'data');
    const log = path.join(root, 'claude', `${SESSION}.jsonl`);
    await fs.mkdir(path.dirname(log), { recursive: true });
    await fs.writeFile(log, turnLines(0, 2));
    const home = path.join(root, 'home');
    await fs.mkdir(home);
    const mcp = spawn(process.execPath, [BIN, '--data', data, 'mcp'], { cwd: REPO, env: cliEnv(HASH_EMBEDDER), stdio: ['pipe', 'pipe', 'pipe'] });
    let mcpErr = '';
    mcp.stderr.on('data', (d: Buffer) => (mcpErr += d.toString()));
    const mcpClosed = new Promise((resolve) => mcp.once('close', resolve));
    let watcher: ReturnType<typeof startCli> | null = null;
    let watched: Promise<CliResult> | null = null;
    try {
      await mcpHandshake(mcp, 'session');
      await until('the MCP server serves the hooks', async () => mcpErr.includes('serving the hooks of this data folder'));
      watcher = startCli(['--data', data, 'sync', '--watch', '--json'], { ...HASH_EMBEDDER, HOME: home });
      watched = collect(watcher);
      await until('the MCP server gave way', async () => mcpErr.includes('served by the app or `sync --watch` now'));
      await until('the watcher serves the hooks', () => answers(data));
      expect(await hook(data, log, 'Stop', HASH_EMBEDDER)).toMatchObject({ status: 0, stdout: '', stderr: '' });
      expect((await hookLog(data)).at(-1)!.msg).toBe(`hook: ${SESSION}: saved by the process serving hooks (2 new)`);
    } finally {
      watcher?.kill('SIGINT');
      mcp.stdin.end();
    }
    expect(jsonLines((await watched!).stdout)).toEqual([expect.objectContaining({ source: 'hook', sessionId: SESSION, new: 2 })]);
    await mcpClosed;
  }, 180_000);

  // Making a folder another account's takes root (chown); the suite runs as root in CI.
  it.skipIf(typeof process.getuid !== 'function' || process.getuid() !== 0)('ends at once, without waiting, where nothing serves and its door cannot be opened (a socket folder another account owns)', async () => {
    const root = scratch();
    const data = path.join(root, 'data');
    const runtime = path.join(root, 'run');
    await fs.mkdir(data, { recursive: true });
    await fs.mkdir(path.join(runtime, 'session-memory'), { recursive: true, mode: 0o700 });
    await fs.chown(path.join(runtime, 'session-memory'), 65534, 65534);
    const started = Date.now();
    const run = await runCli(['--data', data, 'hook-saver', '--idle', '5'], { ...HASH_EMBEDDER, XDG_RUNTIME_DIR: runtime });
    expect(run).toMatchObject({ status: 0, stdout: '' });
    expect(run.stderr).toMatch(/cannot be served from here: the folder for its socket is not this user's own/);
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it('ends at once, making nothing, where its data folder is gone (removed between the hook that started it and its start)', async () => {
    const data = path.join(scratch(), 'data');
    const started = Date.now();
    const run = await runCli(['--data', data, 'hook-saver', '--idle', '5'], HASH_EMBEDDER);
    expect(run).toMatchObject({ status: 0, stdout: '' });
    expect(run.stderr).toContain(`nothing to serve: the data folder ${data} does not exist`);
    expect(Date.now() - started).toBeLessThan(60_000);
    await expect(fs.stat(data)).rejects.toThrow(/ENOENT/);
  }, 120_000);

  it('ends once its data folder is removed, and makes nothing in a folder made again at that path', async () => {
    const { data, log, env } = await assistantFolder(2);
    // A hook saves on its own and leaves a saver serving the folder, its store open.
    expect(await hook(data, log, 'Stop', env)).toMatchObject({ status: 0 });
    await until('the saver answers', () => answers(data));
    // It may answer a moment before its log line is written.
    const serving = async () => (await hookLog(data)).find((l) => l.msg.startsWith('hook saver: serving'));
    await until('the saver logs that it serves', async () => (await serving()) !== undefined);
    const saver = (await serving())!.pid;
    // It opens the store as it begins to serve (so that the first save handed over does not wait).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // Removed (an assistant's sandbox going away), and made again empty at the same path by something else.
    await fs.rm(data, { recursive: true, force: true });
    await fs.mkdir(data);
    await until('the saver ends', async () => !alive(saver));
    expect(await fs.readdir(data)).toEqual([]);
  }, 120_000);

  it('refuses an --idle or --stay that is not a number of minutes', async () => {
    const data = path.join(scratch(), 'data');
    const bad = await runCli(['--data', data, 'hook-saver', '--idle', 'soon'], HASH_EMBEDDER);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--idle takes a number of minutes \(0 or more\), not "soon"/);
    // A hook's bad option is logged, and the hook still exits 0 with nothing on stdout.
    const hookRun = await runCli(['--data', data, 'hook', '--stay', '-2', '--file', path.join(data, 'none.jsonl')], HASH_EMBEDDER);
    expect(hookRun).toMatchObject({ status: 0, stdout: '' });
    expect((await hookLog(data)).at(-1)!.msg).toMatch(/--stay takes a number of minutes/);
  }, 60_000);
});
