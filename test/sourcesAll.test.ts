/**
 * Every tool of the sources catalogue at once, on a machine laid out with each tool's own files
 * (test/fixtures/import, see each PROVENANCE.md) in its default place on Linux: `sources` finds
 * them all, one `sync` saves them, a second reads nothing, and `sync --watch` saves a Codex rollout
 * as Codex appends to it. The places on macOS and Windows are computed in sources.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { HASH_EMBEDDER, jsonLines, runCli, startCli } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';
import { follow } from './helpers/follow.js';

const scratch = scratchDirs('sm-sources-all-');
const FIXTURES = path.resolve(__dirname, 'fixtures/import');
const CODEX_DAY = path.join('sessions', '2026', '12', '04');
/** A rollout Codex wrote over two runs (`codex exec`, then `codex exec resume`): the second run's lines are appended while `sync --watch` follows it. */
const RESUMED = 'rollout-2026-12-04T18-18-42-01a24247-a9c5-7553-a194-a2bb5ab03838.jsonl';
const FIRST_RUN_LINES = 14;

const TOOLS = ['claude-code', 'openclaw', 'codex', 'gemini-cli', 'qwen-code', 'copilot-cli', 'antigravity', 'continue', 'cline', 'roo-code', 'kilo-code', 'cline-cli', 'vscode-chat', 'aider', 'opencode', 'kilo-cli', 'cursor', 'cursor-workspaces'];

async function copy(from: string, to: string): Promise<void> {
  await fs.mkdir(path.dirname(to), { recursive: true });
  await fs.cp(path.join(FIXTURES, from), to, { recursive: true });
}

/** A HOME where every tool has written, each in its default place (XDG folders unset: their defaults under HOME). */
async function machine(): Promise<{ home: string; env: Record<string, string>; rest: string }> {
  const home = scratch();
  await copy('claude-code', path.join(home, '.claude', 'projects', '-home-ana-trip'));
  // OpenClaw as its 2026.8 upgrade left it: the agents' databases, the leftovers of the files it moved in, archives.
  await copy(path.join('openclaw-sqlite', 'upgraded'), path.join(home, '.openclaw'));
  await copy(path.join('codex', 'home'), path.join(home, '.codex'));
  // The resumed rollout as it was after its first run.
  const rollout = path.join(home, '.codex', CODEX_DAY, RESUMED);
  const lines = (await fs.readFile(rollout, 'utf8')).split('\n').filter(Boolean);
  await fs.writeFile(rollout, `${lines.slice(0, FIRST_RUN_LINES).join('\n')}\n`);
  await copy(path.join('gemini-cli', 'home'), path.join(home, '.gemini'));
  await copy(path.join('qwen-code', 'home'), path.join(home, '.qwen'));
  await copy(path.join('copilot-cli', 'home'), path.join(home, '.copilot'));
  // Antigravity's conversations beside Gemini CLI's files in ~/.gemini: one with both logs, one with the cut copy only.
  await copy('antigravity', path.join(home, '.gemini', 'antigravity-ide'));
  await copy(path.join('continue', 'home'), path.join(home, '.continue'));
  const globalStorage = path.join(home, '.config', 'Code', 'User', 'globalStorage');
  await copy(path.join('cline', 'saoudrizwan.claude-dev'), path.join(globalStorage, 'saoudrizwan.claude-dev'));
  await copy(path.join('cline', 'rooveterinaryinc.roo-cline'), path.join(globalStorage, 'rooveterinaryinc.roo-cline'));
  // Kilo Code writes Cline's task format (it is a fork); no Kilo Code task of its own is among the fixtures.
  await copy(path.join('cline', 'saoudrizwan.claude-dev', 'tasks', '1767258000000'), path.join(globalStorage, 'kilocode.kilo-code', 'tasks', '1767258000001'));
  // Cline's CLI: its data folder, sessions beside its settings, caches and logs.
  await copy(path.join('cline-cli', 'data'), path.join(home, '.cline', 'data'));
  // VS Code's own chat: a workspace's session (.json) and a window's without a folder (.jsonl), beside Cline's tasks.
  await copy(path.join('vscode-chat', 'Code', 'User'), path.join(home, '.config', 'Code', 'User'));
  await copy(path.join('aider', 'monochromatic', '.aider.chat.history.md'), path.join(home, '.aider.chat.history.md'));
  await copy(path.join('opencode', 'opencode.db'), path.join(home, '.local', 'share', 'opencode', 'opencode.db'));
  await copy(path.join('opencode', 'legacy', 'storage'), path.join(home, '.local', 'share', 'opencode', 'storage'));
  // Kilo's CLI keeps opencode's database under its own name and folder (its sessions are its own).
  await copy(path.join('opencode', 'opencode.db'), path.join(home, '.local', 'share', 'kilo', 'kilo.db'));
  await renameOpencodeSessions(path.join(home, '.local', 'share', 'kilo', 'kilo.db'), 'ses_kilo');
  const cursorUser = path.join(home, '.config', 'Cursor', 'User');
  await copy(path.join('cursor', 'global-2025', 'state.vscdb'), path.join(cursorUser, 'globalStorage', 'state.vscdb'));
  await copy(path.join('cursor', 'workspace-2024', 'state.vscdb'), path.join(cursorUser, 'workspaceStorage', '3f1c9d0e7a', 'state.vscdb'));
  // A workspace where Cursor's chat was never used: its database holds no conversation, and is no error.
  await copy(path.join('cursor', 'workspace-2024', 'state.vscdb'), path.join(cursorUser, 'workspaceStorage', '9b2e4d6f1c', 'state.vscdb'));
  await emptyCursorWorkspace(path.join(cursorUser, 'workspaceStorage', '9b2e4d6f1c', 'state.vscdb'));
  // Times in whole seconds, which a test can set back exactly after changing a file.
  const when = Math.floor(Date.now() / 1000) - 60;
  for (const entry of await fs.readdir(home, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) await fs.utimes(path.join(entry.parentPath, entry.name), when, when);
  }
  const rest = scratch();
  // The subject is finding and reading each tool's files, not embedding: the runs embed with the hashing
  // stand-in (test/sync.test.ts syncs and hooks with the real model).
  const env: Record<string, string> = { ...HASH_EMBEDDER, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: '', XDG_DATA_HOME: '', CODEX_HOME: '', CLAUDE_CONFIG_DIR: '', OPENCLAW_STATE_DIR: '', GEMINI_CLI_HOME: '', QWEN_HOME: '', QWEN_RUNTIME_DIR: '', COPILOT_HOME: '', CONTINUE_GLOBAL_DIR: '', CLINE_DIR: '', CLINE_DATA_DIR: '', CLINE_SESSION_DATA_DIR: '', OPENCODE_DB: '', KILO_DB: '', AIDER_CHAT_HISTORY_FILE: '' };
  return { home, env, rest };
}

/** The same conversations under other session ids (`ses_…` becomes `<prefix>…`). */
async function renameOpencodeSessions(file: string, prefix: string): Promise<void> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.pragma('foreign_keys = OFF');
  for (const [table, column] of [['session', 'id'], ['message', 'session_id'], ['part', 'session_id']] as const) {
    db.prepare(`UPDATE ${table} SET ${column} = ? || substr(${column}, 5)`).run(prefix);
  }
  db.close();
}

async function emptyCursorWorkspace(file: string): Promise<void> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.prepare('DELETE FROM ItemTable').run();
  db.close();
}

/**
 * Damages every byte past the 4 KiB a file cursor hashes (and every database page past the first),
 * keeping each file's size and time: a sync that read any of them in full would fail on it.
 */
async function damageBeyondHeads(root: string): Promise<number> {
  let damaged = 0;
  for (const entry of await fs.readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const { size, atimeMs, mtimeMs } = await fs.stat(file);
    if (size <= 4096) continue;
    const handle = await fs.open(file, 'r+');
    await handle.write(Buffer.alloc(size - 4096, 0x23), 0, size - 4096, 4096);
    await handle.close();
    await fs.utimes(file, Math.round(atimeMs / 1000), Math.round(mtimeMs / 1000));
    damaged++;
  }
  return damaged;
}

describe('every source on one machine', () => {
  it('is listed, saved by one sync, not read again by the next, and followed as it grows', async () => {
    const { home, env, rest } = await machine();
    const data = path.join(rest, 'data');

    const listed = await runCli(['--data', data, 'sources', '--json'], env);
    expect(listed.stderr).toBe('');
    const sources = JSON.parse(listed.stdout) as Array<{ id: string; sessions: number; path: string }>;
    expect(sources.map((s) => s.id)).toEqual(TOOLS);
    for (const source of sources) expect(source.sessions, source.id).toBeGreaterThan(0);
    expect(sources.find((s) => s.id === 'aider')!.path).toBe(home);
    // The plain listing counts files, as the app does: opencode's database (two sessions) and its old folder are two.
    const plain = await runCli(['--data', data, 'sources'], env);
    expect(plain.stdout).toContain(`opencode  opencode  ${path.join(home, '.local', 'share', 'opencode')}  2 conversation files, last changed`);

    const first = await runCli(['--data', data, 'sync', '--json'], env);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const reports = jsonLines(first.stdout);
    expect(reports.filter((r) => 'error' in r || 'unsupported' in r)).toEqual([]);
    const saved = (id: string) => reports.filter((r) => r.source === id).reduce((n, r) => n + Number(r.new), 0);
    for (const id of TOOLS) expect(saved(id), id).toBeGreaterThan(0);
    // Sessions of each format, under their tools' own ids.
    const sessionIds = new Set(reports.map((r) => r.sessionId));
    for (const id of [
      '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d:agent-a7f3e9c1',
      '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6',
      'c0ffee00-2222-4333-8444-555566667777',
      '01a24248-6b59-73c0-90ab-a4be87ba89c2',
      'e6d2941f-b4a9-41f8-9ef2-077175452184',
      '05634392-e641-4a60-998d-363cd111e5d1',
      '57de8b1b-71f6-4dfc-b47e-fb3ff89a390a',
      '6f0b2c1e-8d4a-4b7e-9c3f-2a5d7e9b1c40',
      'b81e4d27-3c9f-4a16-8e5b-d0c7f2a94e63',
      'c501fd76-d09e-46b3-ba25-cc1421792f13',
      '1767258000000',
      '0197c8e2-5c1d-7a3b-9f10-2b3c4d5e6f70',
      '1767258000001',
      '1767261600000_k7pzm',
      '1767265200000_x2bfq',
      'ses_dbdb3351fffeUWaGrgf4G3edC2',
      'ses_dbdb7c3b9ffeycEkmI5Wkhvqpo',
      'ses_kilodbdb7c3b9ffeycEkmI5Wkhvqpo',
      '5b0e2c1a-8f3d-4e6a-9c27-1d4b7a9e3f60',
      'cf2ead9f-6bf9-41d0-829e-a7fcae7ddb5a',
      '8e1f4c2a-6b3d-4f7e-9a05-2c7d8e9f1a3b',
      '4a7d2b9e-0c1f-4e3a-8b6d-5f9e1c2a7b40',
    ]) {
      expect(sessionIds, id).toContain(id);
    }
    expect([...sessionIds].some((id) => String(id).startsWith('aider:2025-06-02T'))).toBe(true);
    // The upgrade's leftovers hold sessions the databases hold, under the same ids: nothing twice.
    const leftovers = reports.filter((r) => String(r.file).includes('session-sqlite-import-archive'));
    expect(leftovers.length).toBeGreaterThan(0);
    for (const leftover of leftovers) expect(leftover).toMatchObject({ new: 0 });
    // An Antigravity conversation with both logs is read from its full log alone.
    expect(reports.filter((r) => r.source === 'antigravity').map((r) => path.relative(path.join(home, '.gemini', 'antigravity-ide', 'brain'), String(r.file)))).toEqual([
      path.join('6f0b2c1e-8d4a-4b7e-9c3f-2a5d7e9b1c40', '.system_generated', 'logs', 'transcript_full.jsonl'),
      path.join('b81e4d27-3c9f-4a16-8e5b-d0c7f2a94e63', '.system_generated', 'logs', 'transcript.jsonl'),
    ]);

    // Nothing new: no transcript, database or folder is read beyond what its cursor looks at.
    expect(await damageBeyondHeads(home)).toBeGreaterThan(5);
    const again = await runCli(['--data', data, 'sync', '--json'], env);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);

    // Codex resumes the session: its second run's lines, appended while `sync --watch` follows.
    await fs.rm(home, { recursive: true });
    const grown = await machine();
    const watchData = path.join(grown.rest, 'data');
    const primed = await runCli(['--data', watchData, 'sync', '--json', '--source', 'codex'], grown.env);
    expect(primed.status).toBe(0);
    const watcher = startCli(['--data', watchData, 'sync', '--watch', '--json', '--debounce', '200', '--source', 'codex'], grown.env);
    const out = follow(watcher);
    try {
      await until(() => fs.access(path.join(watchData, 'sync.token')).then(() => true, () => false));
      const rollout = path.join(grown.home, '.codex', CODEX_DAY, RESUMED);
      const all = (await fs.readFile(path.join(FIXTURES, 'codex', 'home', CODEX_DAY, RESUMED), 'utf8')).split('\n').filter(Boolean);
      for (const line of all.slice(FIRST_RUN_LINES)) await fs.appendFile(rollout, `${line}\n`);
      const added = () => out.lines.filter((l) => l.sessionId === '01a24247-a9c5-7553-a194-a2bb5ab03838').reduce((n, l) => n + Number(l.new), 0);
      await until(async () => added() >= 2);
      expect(added()).toBe(2);
      expect(out.lines.filter((l) => 'error' in l)).toEqual([]);
    } finally {
      watcher.kill('SIGINT');
    }
    // How the watcher stops is sync.test.ts's business; here it only has to be gone before the folders are removed.
    await new Promise((resolve) => watcher.on('close', resolve));
  });
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
