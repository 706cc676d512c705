import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { promises as fs, existsSync } from 'node:fs';
import path from 'node:path';
import { BIN, cliEnv, collect, jsonLines, REPO, runCli, startCli, type CliResult } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';
import { follow } from './helpers/follow.js';

const scratch = scratchDirs('sm-sync-');
const SESSION = '5d7e0c1a-2b3c-4d5e-8f90-0123456789ab';
/** Messages in the log at first: more than the 4 KiB head a cursor hashes. */
const FIRST = 20;
const CODEX_FIXTURES = path.join(REPO, 'test', 'fixtures', 'import', 'codex', 'home', 'sessions', '2026', '12', '04');
const CODEX_ROLLOUT = 'rollout-2026-12-04T18-52-32-01a24266-a1e5-7ed0-9ba7-ee0750560bcf.jsonl';

/** Claude Code's log lines of one session: alternating user and assistant turns about bread. */
function claudeCodeLines(from: number, count: number): string {
  const lines: string[] = [];
  for (let i = from; i < from + count; i++) {
    const user = i % 2 === 0;
    const uuid = `u-${String(i).padStart(4, '0')}`;
    const parentUuid = i === 0 ? null : `u-${String(i - 1).padStart(4, '0')}`;
    const text = user ? `Question ${i}: how long should rye dough rest before baking?` : `Answer ${i}: let rye dough rest about ninety minutes in a warm kitchen.`;
    const message = user ? { role: 'user', content: text } : { id: `msg_${i}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-20250514', content: [{ type: 'text', text }] };
    lines.push(JSON.stringify({ parentUuid, isSidechain: false, userType: 'external', cwd: '/repo', sessionId: SESSION, version: '1.0.98', type: user ? 'user' : 'assistant', message, uuid, timestamp: `2026-11-30T10:${String(i).padStart(2, '0')}:00.000Z` }));
  }
  return `${lines.join('\n')}\n`;
}

async function machine(): Promise<{ home: string; data: string; log: string; codexHome: string }> {
  const home = scratch();
  const project = path.join(home, '.claude', 'projects', '-repo');
  await fs.mkdir(project, { recursive: true });
  const log = path.join(project, `${SESSION}.jsonl`);
  await fs.writeFile(log, claudeCodeLines(0, FIRST));
  // Codex kept elsewhere, as its own variable says.
  const codexHome = path.join(scratch(), 'codex');
  await fs.mkdir(path.join(codexHome, 'sessions', '2026', '12', '04'), { recursive: true });
  await fs.copyFile(path.join(CODEX_FIXTURES, CODEX_ROLLOUT), path.join(codexHome, 'sessions', '2026', '12', '04', CODEX_ROLLOUT));
  return { home, data: path.join(scratch(), 'data'), log, codexHome };
}

function hook(args: string[], stdin: string, env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, env: cliEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(stdin);
  return collect(child);
}

describe('session-memory sources and sync', () => {
  it('lists what is found under HOME and the tools\' variables, saves it, and reads nothing unchanged', async () => {
    const { home, data, log, codexHome } = await machine();
    const env = { HOME: home, USERPROFILE: home, CODEX_HOME: codexHome };

    const listed = await runCli(['--data', data, 'sources', '--json'], env);
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      { id: 'claude-code', tool: 'Claude Code', path: path.join(home, '.claude'), sessions: 1, lastModified: expect.stringMatching(/^\d{4}-/), enabled: false },
      { id: 'codex', tool: 'Codex CLI', path: codexHome, sessions: 1, lastModified: expect.stringMatching(/^\d{4}-/), enabled: false },
    ]);

    const first = await runCli(['--data', data, 'sync', '--json'], env);
    expect(first.status).toBe(0);
    const lines = jsonLines(first.stdout);
    expect(lines).toEqual([
      expect.objectContaining({ source: 'claude-code', file: log, sessionId: SESSION, new: FIRST, skippedSession: false }),
      expect.objectContaining({ source: 'codex', file: path.join(codexHome, 'sessions', '2026', '12', '04', CODEX_ROLLOUT), sessionId: '01a24266-a1e5-7ed0-9ba7-ee0750560bcf', new: 2 }),
    ]);

    // Same size, time and head, a damaged tail: a sync that read the file in full would fail on it.
    const { mtimeMs, atimeMs, size } = await fs.stat(log);
    const text = await fs.readFile(log, 'utf8');
    await fs.writeFile(log, `${text.slice(0, size - 40)}${'#'.repeat(39)}\n`);
    await fs.utimes(log, atimeMs / 1000, mtimeMs / 1000);
    const again = await runCli(['--data', data, 'sync', '--json', '--source', 'claude-code'], env);
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
    expect(again.stdout).toBe('');

    // The conversation goes on: only the two new messages are saved.
    await fs.writeFile(log, claudeCodeLines(0, FIRST + 2));
    const more = await runCli(['--data', data, 'sync', '--json', '--source', 'claude-code'], env);
    expect(jsonLines(more.stdout)).toEqual([expect.objectContaining({ source: 'claude-code', sessionId: SESSION, new: 2, skipped: FIRST })]);

    const unknown = await runCli(['--data', data, 'sync', '--source', 'nope'], env);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/no source "nope" on this machine.*claude-code, codex/);
  });

  it('a hook saves the transcript its input names, and reports nothing when nothing is new', async () => {
    const { home, data, log } = await machine();
    const env = { HOME: home };
    const input = JSON.stringify({ session_id: SESSION, transcript_path: log, cwd: '/repo', hook_event_name: 'Stop', stop_hook_active: false });
    const first = await hook(['--data', data, 'hook', '--json'], input, env);
    expect(first.status).toBe(0);
    expect(jsonLines(first.stdout)).toEqual([expect.objectContaining({ source: 'hook', sessionId: SESSION, new: FIRST })]);

    const again = await hook(['--data', data, 'hook', '--json'], input, env);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe('');

    // A log touched but not changed is read again, and found as its last save read it: nothing is
    // saved, and no model loaded (with none to be had, it still succeeds).
    await fs.utimes(log, new Date(), new Date());
    const touched = await hook(['--data', data, 'hook', '--json'], input, { ...env, SESSION_MEMORY_MODELS_DIR: path.join(log, 'no-models-here') });
    expect(touched.stderr).toBe('');
    expect(touched.stdout).toBe('');

    // Never exit status 2, which Claude Code reads from a Stop hook as "do not stop"; nor any other
    // but 0, which every client shows the person as a failure: the log says what went wrong.
    const bad = await hook(['--data', data, 'hook'], 'not json', env);
    expect(bad).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(await fs.readFile(path.join(data, 'logs', 'hooks.log'), 'utf8')).toMatch(/hook input on stdin is not a JSON object/);
  });

  it('sync --watch saves a log as it grows and takes saves handed over by hooks', async () => {
    const { home, data, log } = await machine();
    const env = { HOME: home };
    const watcher = startCli(['--data', data, 'sync', '--watch', '--json', '--debounce', '200', '--source', 'claude-code'], env);
    const out = follow(watcher);
    try {
      await out.until(1);
      expect(out.lines[0]).toMatchObject({ source: 'claude-code', sessionId: SESSION, new: FIRST });

      await fs.appendFile(log, claudeCodeLines(FIRST, 1));
      await fs.appendFile(log, claudeCodeLines(FIRST + 1, 1));
      // Saved as it grows: in one save or two, depending on how the changes fall.
      const added = () => out.lines.slice(1).reduce((n, l) => n + Number(l.new), 0);
      await until(() => added() >= 2);
      expect(added()).toBe(2);

      // A hook while the watcher runs, for a log the watcher does not follow: the watcher saves it
      // (it says so on its own output) and the hook prints the report it got back.
      await until(() => existsSync(path.join(data, 'sync.token')));
      const elsewhere = path.join(scratch(), `${SESSION}.jsonl`);
      await fs.writeFile(elsewhere, claudeCodeLines(0, FIRST + 4));
      // However long the busy test machine takes (a hook gives up after 3 s, leaving the save to the watcher).
      const handed = await hook(['--data', data, 'hook', '--json', '--file', elsewhere], '', { ...env, SESSION_MEMORY_TEST_HANDOFF_TIMEOUT_MS: '120000' });
      expect(handed.stderr).toBe('');
      expect(handed.status).toBe(0);
      expect(jsonLines(handed.stdout)).toEqual([expect.objectContaining({ source: 'hook', file: elsewhere, sessionId: SESSION, new: 2, skipped: FIRST + 2 })]);
      await until(() => out.lines.some((l) => l.source === 'hook'));
      expect(out.lines.find((l) => l.source === 'hook')).toMatchObject({ source: 'hook', file: elsewhere, new: 2 });
    } finally {
      watcher.kill('SIGINT');
    }
    expect(await new Promise<number | null>((resolve) => watcher.on('close', (code) => resolve(code)))).toBe(0);
    expect(existsSync(path.join(data, 'sync.token'))).toBe(false);
  });
});

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
