import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HASH_EMBEDDER, startCli } from './helpers/cli.js';
import { tempDir } from './helpers/engine.js';
import { follow } from './helpers/follow.js';

// The subject is following the folder, not embedding: the watchers embed with the hashing stand-in
// (test/sync.test.ts follows with the real model).
const { dir: root, cleanup } = tempDir('sm-watch-');
afterAll(() => cleanup());

/** An OpenClaw session file: a header line, then message entries chained by parentId. */
function openclawSession(id: string, count: number): string {
  const lines = [JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-11-30T10:00:00.000Z', cwd: '/home/user' })];
  let parent: string | null = null;
  for (let i = 0; i < count; i++) {
    const entryId = `e${String(i).padStart(7, '0')}`;
    const role = i % 2 ? 'assistant' : 'user';
    const text = i % 2 ? `Reply ${i}: the garden needs compost and water.` : `Question ${i}: what does the garden need?`;
    lines.push(JSON.stringify({ type: 'message', id: entryId, parentId: parent, timestamp: `2026-11-30T10:${String(i).padStart(2, '0')}:00.000Z`, message: { role, content: role === 'user' ? text : [{ type: 'text', text }], timestamp: 1764496800000 + i * 60000 } }));
    parent = entryId;
  }
  return `${lines.join('\n')}\n`;
}

describe('session-memory watch', () => {
  it('saves an OpenClaw session as it grows, resumes after a restart, and stops cleanly on Ctrl-C', async () => {
    const sessions = path.join(root, 'sessions');
    const data = path.join(root, 'data');
    mkdirSync(sessions);
    const file = path.join(sessions, 'abc123.jsonl');
    writeFileSync(file, openclawSession('abc123', 4));

    const watcher = startCli(['--data', data, 'watch', sessions, '--debounce', '300', '--json'], HASH_EMBEDDER);
    const out = follow(watcher);
    await out.until(1);
    expect(out.lines[0]).toMatchObject({ file, sessionId: 'abc123', new: 4 });

    writeFileSync(file, openclawSession('abc123', 7)); // the conversation goes on
    await out.until(2);
    expect(out.lines[1]).toMatchObject({ sessionId: 'abc123', new: 3, skipped: 4 });

    watcher.kill('SIGINT');
    const exit = await new Promise<number | null>((resolve) => watcher.on('close', (code) => resolve(code)));
    expect(exit).toBe(0);

    // After a restart only what changed meanwhile is read again.
    const second = startCli(['--data', data, 'watch', sessions, '--debounce', '300', '--json'], HASH_EMBEDDER);
    const out2 = follow(second);
    writeFileSync(path.join(sessions, 'def456.jsonl'), openclawSession('def456', 2));
    await out2.until(1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(out2.lines).toEqual([expect.objectContaining({ sessionId: 'def456', new: 2 })]);
    second.kill('SIGINT');
    expect(await new Promise<number | null>((resolve) => second.on('close', (code) => resolve(code)))).toBe(0);
  });
});
