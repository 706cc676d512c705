/**
 * Ctrl-C (SIGINT) and SIGTERM stop `sync --watch` cleanly, whenever they come: during its first sync
 * (the save under way ends at a safe point) and while it only follows. The process exits 0 and says
 * "stopped"; it leaves no handoff token, no socket and no write lock behind; and what it saved is
 * whole (a plain `sync` afterwards saves the rest of a session it was stopped in). The subject is
 * stopping, not embedding: the hashing stand-in embeds (test/sync.test.ts syncs with the real model).
 */
import { describe, expect, it } from 'vitest';
import { promises as fs, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { collect, HASH_EMBEDDER, jsonLines, runCli, startCli, type CliResult } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';
import { handoffAddress } from '../electron/sources/handoff.js';

const scratch = scratchDirs('sm-sync-stop-');
const SESSION = '7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b';

/** Claude Code's log lines of one session: user and assistant turns about a garden, each different. */
function claudeCodeLines(from: number, count: number): string {
  const lines: string[] = [];
  for (let i = from; i < from + count; i++) {
    const user = i % 2 === 0;
    const uuid = `g-${String(i).padStart(5, '0')}`;
    const parentUuid = i === 0 ? null : `g-${String(i - 1).padStart(5, '0')}`;
    const text = user
      ? `Question ${i}: the tomato bed number ${i} gets ${i % 7} hours of sun; should it be watered in the morning or in the evening, and how deep?`
      : `Answer ${i}: water bed ${i} early in the morning, about ${(i % 5) + 2} centimetres deep, and mulch it so the soil keeps its moisture through the afternoon.`;
    const message = user ? { role: 'user', content: text } : { id: `msg_${i}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-20250514', content: [{ type: 'text', text }] };
    lines.push(JSON.stringify({ parentUuid, isSidechain: false, userType: 'external', cwd: '/garden', sessionId: SESSION, version: '1.0.98', type: user ? 'user' : 'assistant', message, uuid, timestamp: new Date(Date.UTC(2026, 10, 30, 8, 0, i)).toISOString() }));
  }
  return `${lines.join('\n')}\n`;
}

async function machine(messages: number): Promise<{ env: Record<string, string>; data: string; log: string }> {
  const home = scratch();
  const project = path.join(home, '.claude', 'projects', '-garden');
  await fs.mkdir(project, { recursive: true });
  const log = path.join(project, `${SESSION}.jsonl`);
  await fs.writeFile(log, claudeCodeLines(0, messages));
  return { env: { HOME: home, USERPROFILE: home, ...HASH_EMBEDDER }, data: path.join(scratch(), 'data'), log };
}

/** What a stopped watcher must not leave in the data folder (and its socket, in this user's runtime folder). */
const LEFTOVERS = ['sync.token', '.write.lock', '.write.lock.owner'];

async function leftovers(data: string): Promise<string[]> {
  const names = await fs.readdir(data).catch(() => [] as string[]);
  const socket = existsSync(handoffAddress(data)) ? ['socket'] : [];
  return [...names.filter((n) => LEFTOVERS.includes(n) || n.startsWith('.write.lock.')), ...socket];
}

function watch(data: string, env: Record<string, string>, extra: Record<string, string> = {}): { child: ChildProcess; done: Promise<CliResult>; stderr: () => string } {
  const child = startCli(['--data', data, 'sync', '--watch', '--debounce', '200', '--source', 'claude-code'], { ...env, ...extra });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, done: collect(child), stderr: () => stderr };
}

async function sessionMessages(data: string, env: Record<string, string>): Promise<number> {
  const listed = await runCli(['--data', data, 'sessions', '--json'], env);
  expect(listed.status).toBe(0);
  return (JSON.parse(listed.stdout) as Array<{ sessionId: string; messageCount: number }>).find((s) => s.sessionId === SESSION)?.messageCount ?? 0;
}

describe('sync --watch stops cleanly', () => {
  it('on Ctrl-C during its first sync: the save ends at a safe point, nothing is left behind, and the next sync saves the rest', async () => {
    const messages = 600;
    const { env, data } = await machine(messages);
    // Small commits: the save is stopped between two of them.
    const watcher = watch(data, env, { SESSION_MEMORY_TEST_WRITE_BATCH: '4' });
    // The signal comes in the middle of the first sync's save, once some of its commits are in the store.
    const committed = path.join(data, 'lancedb', 'chunks.lance', 'data');
    await until(() => (existsSync(committed) && readdirSync(committed).length >= 3) || watcher.child.exitCode !== null);
    watcher.child.kill('SIGINT');
    const result = await watcher.done;
    expect({ status: result.status, signal: result.signal }).toEqual({ status: 0, signal: null });
    expect(result.stderr).toMatch(/^stopped$/m);
    expect(await leftovers(data)).toEqual([]);

    // What the stopped save wrote is whole: a plain sync finishes the session.
    const again = await runCli(['--data', data, 'sync', '--json', '--source', 'claude-code'], env);
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
    // The watcher was stopped in the middle of the save: it reported none, and this sync saved the rest.
    expect(result.stdout).toBe('');
    const [report] = jsonLines(again.stdout);
    expect(report).toMatchObject({ sessionId: SESSION, total: messages });
    expect(Number(report!.new)).toBeGreaterThan(0);
    expect(Number(report!.skipped)).toBeGreaterThan(0);
    expect(await sessionMessages(data, env)).toBe(messages);
  });

  it('on Ctrl-C or SIGTERM while following, also after a save that opened the store only once it followed', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const { env, data, log } = await machine(10);
      // Saved before: the first sync of the watcher finds nothing new and opens no store.
      expect((await runCli(['--data', data, 'sync', '--source', 'claude-code'], env)).status).toBe(0);
      const watcher = watch(data, env);
      await until(() => /following 1 source/.test(watcher.stderr()) && existsSync(path.join(data, 'sync.token')));
      // The log grows: the watcher opens the store to save it.
      await fs.appendFile(log, claudeCodeLines(10, 2));
      let out = '';
      watcher.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      await until(() => /2 new/.test(out));
      watcher.child.kill(signal);
      const result = await watcher.done;
      expect({ signal, status: result.status, killedBy: result.signal }).toEqual({ signal, status: 0, killedBy: null });
      expect(result.stderr).toMatch(/^stopped$/m);
      expect(await leftovers(data)).toEqual([]);
      expect(await sessionMessages(data, env)).toBe(12);
    }
  });
});

async function until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
