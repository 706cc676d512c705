/**
 * Damaged state: the archive record deleted, truncated or garbage; a data file of the store
 * truncated or missing; the data directory read-only; the disk full. Each gives a clear one-line
 * message (never a stack trace), `verify` names the problem, and `verify --repair` recovers what
 * can be recovered without losing what is readable.
 */
import { afterAll, beforeAll, describe, expect, it, vi, type ExpectStatic } from 'vitest';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, promises as fs, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { realisticConversation } from '../scripts/transcriptGenerator.js';
import { HASH_EMBEDDER, jsonLines, runCli as runAnyCli } from './helpers/cli.js';
import { tempDir } from './helpers/engine.js';

let root: string;
let cleanup: () => void;
let first: string;
let second: string;
let twoSessions: string;

beforeAll(async () => {
  ({ dir: root, cleanup } = tempDir('sm-damage-'));
  first = path.join(root, 'first.json');
  second = path.join(root, 'second.json');
  writeFileSync(first, JSON.stringify(realisticConversation('first', 30, 1)));
  writeFileSync(second, JSON.stringify(realisticConversation('second', 40, 2)));
  // One store saved by the CLI, copied for each test that damages it.
  twoSessions = path.join(root, 'two-sessions');
  for (const file of [first, second]) expect((await runCli(['--data', twoSessions, 'save', file])).status).toBe(0);
});
afterAll(() => cleanup());

/** The subject is damage and what the CLI says of it, not embedding: the hashing stand-in embeds. */
function runCli(args: string[]) {
  return runAnyCli(args, HASH_EMBEDDER);
}

/** A copy of the store the two sessions were saved in, its files' times kept (a test damages the newest data file). */
function storeWithTwoSessions(name: string): string {
  const data = path.join(root, name);
  cpSync(twoSessions, data, { recursive: true, preserveTimestamps: true });
  return data;
}

function expectOneCleanLine(expect: ExpectStatic, stderr: string): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

async function verify(data: string, ...extra: string[]) {
  const result = await runCli(['--data', data, 'verify', '--json', ...extra]);
  return { status: result.status, ...(JSON.parse(result.stdout) as { ok: boolean; messages: number; problems: string[] }) };
}

// Two tests at a time (describe.concurrent, maxConcurrency 2 for the file): each works on a store of its
// own (a copy, or a tmpfs of its own) and spends its time in the CLI processes it starts. Each asserts
// with its own `expect` (the test context's), as tests running at the same time must.
vi.setConfig({ maxConcurrency: 2 });

describe.concurrent('a damaged archive record', () => {
  for (const [label, damage] of [
    ['deleted', (file: string) => fs.rm(file)],
    ['truncated', async (file: string) => fs.writeFile(file, (await fs.readFile(file, 'utf8')).slice(0, 40))],
    ['garbage', (file: string) => fs.writeFile(file, Buffer.from([0xff, 0x00, 0x13, 0x37]))],
  ] as const) {
    it(`${label}: verify names it, --repair rebuilds it from the store, and saves still skip what is stored`, async ({ expect }) => {
      const data = storeWithTwoSessions(`record-${label}`);
      await damage(path.join(data, '.archived_sessions.json'));
      const found = await verify(data);
      expect(found.ok).toBe(false);
      expect(found.problems.join('\n')).toMatch(/archive record/);
      const repaired = await verify(data, '--repair');
      expect(repaired.messages).toBe(70);
      expect(await verify(data)).toMatchObject({ ok: true, messages: 70 });
      const again = jsonLines((await runCli(['--data', data, 'save', first, '--json'])).stdout)[0];
      expect(again).toMatchObject({ skippedSession: true, embeddingsComputed: 0 });
    });
  }
});

describe.concurrent('a damaged store', () => {
  it('a truncated data file: clear errors, verify names the file, --repair rolls back to the newest whole version and a re-save restores the rest', async ({ expect }) => {
    const data = storeWithTwoSessions('truncated');
    const dataFiles = path.join(data, 'lancedb', 'chunks.lance', 'data');
    const newest = readdirSync(dataFiles).sort((a, b) => statSync(path.join(dataFiles, b)).mtimeMs - statSync(path.join(dataFiles, a)).mtimeMs)[0]!;
    await fs.truncate(path.join(dataFiles, newest), 100);

    const show = await runCli(['--data', data, 'show', 'second', '--json']);
    expect(show.status).not.toBe(0);
    expectOneCleanLine(expect, show.stderr);
    expect(show.stderr).toMatch(/damaged or missing.*verify --repair/);

    const found = await verify(data);
    expect(found.status).toBe(1);
    expect(found.problems).toContain(`store: data file ${newest} is truncated (100 bytes, no Lance footer)`);

    const repaired = await verify(data, '--repair');
    expect(repaired.problems.join('\n')).toMatch(/rolled back to version \d+/);
    // What the rollback dropped was copied first, the damaged file included.
    const kept = /the store as it was is kept in (\S+)/.exec(repaired.problems.join('\n'))?.[1];
    expect(kept).toBeDefined();
    expect(statSync(path.join(kept!, 'lancedb', 'chunks.lance', 'data', newest)).size).toBe(100);
    expect(await verify(data)).toMatchObject({ ok: true });
    const firstShown = JSON.parse((await runCli(['--data', data, 'show', 'first', '--json'])).stdout) as { messages: unknown[] };
    expect(firstShown.messages).toHaveLength(30); // nothing readable was lost

    const resave = jsonLines((await runCli(['--data', data, 'save', second, '--json'])).stdout)[0]!;
    expect(Number(resave.new)).toBeGreaterThan(0);
    expect(await verify(data)).toMatchObject({ ok: true, messages: 70 });
  });

  it('a missing data file is named by verify', async ({ expect }) => {
    const data = storeWithTwoSessions('missing');
    const dataFiles = path.join(data, 'lancedb', 'chunks.lance', 'data');
    const victim = readdirSync(dataFiles)[0]!;
    await fs.rm(path.join(dataFiles, victim));
    const found = await verify(data);
    expect(found.problems).toContain(`store: data file ${victim} is missing`);
    const save = await runCli(['--data', data, 'save', second]);
    if (save.status !== 0) expectOneCleanLine(expect, save.stderr);
  });
});

/** A small tmpfs for disk-full and read-only trials; needs root (CI runs as root). */
function mountTmpfs(dir: string, size: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const canMount = (() => {
  const probe = path.join(process.env.TMPDIR ?? '/tmp', `sm-mount-probe-${process.pid}`);
  const ok = mountTmpfs(probe, '1m');
  if (ok) execFileSync('umount', [probe]);
  return ok;
})();

describe.skipIf(!canMount)('the file system says no (tmpfs; skipped where mounting is not allowed, i.e. when not root)', { concurrent: true }, () => {
  it('a full disk: one clear line, and what was stored before is intact', async ({ expect }) => {
    const mount = path.join(root, 'small-disk');
    expect(mountTmpfs(mount, '3m')).toBe(true);
    try {
      const data = path.join(mount, 'data');
      expect((await runCli(['--data', data, 'save', first])).status).toBe(0);
      const huge = path.join(root, 'huge.json');
      writeFileSync(huge, JSON.stringify(realisticConversation('huge', 1200, 9)));
      const full = await runCli(['--data', data, 'save', huge]);
      expect(full.status).not.toBe(0);
      expectOneCleanLine(expect, full.stderr);
      expect(full.stderr).toMatch(/disk is full/);
      const shown = JSON.parse((await runCli(['--data', data, 'show', 'first', '--json'])).stdout) as { messages: unknown[] };
      expect(shown.messages).toHaveLength(30);
    } finally {
      execFileSync('umount', ['-l', mount]);
    }
  });

  it('a read-only data directory: reading works, saving says why it cannot', async ({ expect }) => {
    const mount = path.join(root, 'ro-disk');
    expect(mountTmpfs(mount, '20m')).toBe(true);
    try {
      const data = path.join(mount, 'data');
      expect((await runCli(['--data', data, 'save', first])).status).toBe(0);
      execFileSync('mount', ['-o', 'remount,ro', mount]);
      const list = await runCli(['--data', data, 'sessions', '--json']);
      expect(list.status, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ sessionId: 'first', messageCount: 30 })]);
      const save = await runCli(['--data', data, 'save', second]);
      expect(save.status).not.toBe(0);
      expectOneCleanLine(expect, save.stderr);
      expect(save.stderr).toMatch(/(read-only|permission denied).*writable|writable/i);
    } finally {
      execFileSync('umount', ['-l', mount]);
    }
  });
});
