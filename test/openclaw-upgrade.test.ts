/**
 * A person who saved OpenClaw's sessions from their `.jsonl` files, then upgraded OpenClaw (which moved
 * them into SQLite), saves the state folder again: it is one memory, nothing new. Through the CLI, on
 * the files openclaw@2026.9.6's own upgrade wrote (test/fixtures/import/openclaw-sqlite).
 */
import { cpSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HASH_EMBEDDER, jsonLines, REPO, runCli } from './helpers/cli.js';
import { tempDir } from './helpers/engine.js';

// The subject is recognising one memory across OpenClaw's upgrade, not embedding: the runs embed with
// the hashing stand-in (the search looks for the message's own words).
const FIXTURES = path.join(REPO, 'test', 'fixtures', 'import', 'openclaw-sqlite');
const TRIP = 'c0ffee00-2222-4333-8444-555566667777';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

function copyOf(name: string): string {
  const { dir, cleanup } = tempDir('sm-openclaw-');
  cleanups.push(cleanup);
  cpSync(path.join(FIXTURES, name), path.join(dir, name), { recursive: true });
  return path.join(dir, name);
}

describe('OpenClaw upgraded to SQLite', () => {
  it('saving the upgraded state folder after the .jsonl files were saved adds 0 messages; what OpenClaw writes later is new', async () => {
    const data = path.join(copyOf('legacy'), '..', 'data');
    const before = await runCli(['--data', data, 'import', copyOf('legacy'), '--json'], HASH_EMBEDDER);
    expect(before.status, before.stderr).toBe(0);
    const saved = jsonLines(before.stdout).filter((line) => 'sessionId' in line);
    expect(saved.map((report) => report.sessionId).sort()).toEqual([
      '1e2d3c4b-0000-4aaa-8bbb-123456789abc',
      '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6',
      TRIP,
      'd00d0000-aaaa-4bbb-8ccc-000000000001',
      'd00d0000-aaaa-4bbb-8ccc-000000000002',
    ]);
    expect(saved.every((report) => Number(report.new) > 0)).toBe(true);

    const after = await runCli(['--data', data, 'import', copyOf('upgraded'), '--json'], HASH_EMBEDDER);
    expect(after.status, after.stderr).toBe(0);
    const lines = jsonLines(after.stdout);
    expect(lines.filter((line) => 'error' in line)).toEqual([]);
    const again = lines.filter((line) => 'sessionId' in line);
    expect(again.map((report) => report.sessionId).sort()).toEqual(saved.map((report) => report.sessionId).sort());
    expect(again.map((report) => [report.sessionId, report.new])).toEqual(again.map((report) => [report.sessionId, 0]));

    // The Telegram conversation went on after the upgrade; its large answer is stored zstd-compressed.
    const later = await runCli(['--data', data, 'import', path.join(copyOf('zstd'), 'openclaw-agent.sqlite'), '--json'], HASH_EMBEDDER);
    expect(later.status, later.stderr).toBe(0);
    const grown = jsonLines(later.stdout).filter((line) => 'sessionId' in line);
    expect(grown.map((report) => [report.sessionId, report.new])).toEqual([
      ['7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6', 0],
      [TRIP, 2],
    ]);
    const found = JSON.parse((await runCli(['--data', data, 'search', 'francesinha in Porto', '--json'], HASH_EMBEDDER)).stdout) as Array<{ sessionId: string }>;
    expect(found[0]?.sessionId).toBe(TRIP);
  }, 120_000);
});
