/**
 * Forgetting a session that `sync` saved from a tool's transcript: no file of the data folder keeps
 * the transcript's path (the sources' cursors and their last errors lose it), and the session does
 * not come back, neither at the next sync nor when its transcript grows and is read again, nor
 * through a hook. The other sessions of the same source go on being saved.
 */
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { forgetCursorSessions, SourceCursors } from '../electron/sources/cursors.js';
import { HASH_EMBEDDER, jsonLines, runCli } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';
import { filesContaining } from './helpers/files.js';
import { claudeCodeLines } from './helpers/claudeCode.js';

const scratch = scratchDirs('sm-forget-sources-');
const FORGOTTEN = '2b4d6f80-1a3c-4e5f-9a7b-c9d8e7f6a5b4';
const KEPT = '9e8d7c6b-5a49-4382-b1c0-d9e8f7a6b5c4';

async function sessionIds(data: string, env: Record<string, string>): Promise<string[]> {
  const listed = await runCli(['--data', data, 'sessions', '--json'], env);
  expect(listed.status).toBe(0);
  return (JSON.parse(listed.stdout) as Array<{ sessionId: string }>).map((s) => s.sessionId).sort();
}

describe('forgetting a session saved from a source', () => {
  it('leaves no path of its transcript in the data folder, and a later sync or hook does not bring it back', async () => {
    const home = scratch();
    const project = path.join(home, '.claude', 'projects', '-work-hidden-project');
    await fs.mkdir(project, { recursive: true });
    const forgottenLog = path.join(project, `${FORGOTTEN}.jsonl`);
    const keptLog = path.join(project, `${KEPT}.jsonl`);
    await fs.writeFile(forgottenLog, claudeCodeLines(FORGOTTEN, 'the surprise party', 0, 6));
    await fs.writeFile(keptLog, claudeCodeLines(KEPT, 'the garden shed', 0, 6));
    const data = path.join(scratch(), 'data');
    // The subject is forgetting, not embedding: the hashing stand-in embeds.
    const env = { HOME: home, USERPROFILE: home, ...HASH_EMBEDDER };

    const first = await runCli(['--data', data, 'sync', '--json', '--source', 'claude-code'], env);
    expect(first.status).toBe(0);
    expect(jsonLines(first.stdout).map((r) => r.sessionId).sort()).toEqual([FORGOTTEN, KEPT].sort());
    expect(filesContaining(data, forgottenLog).length).toBeGreaterThan(0);
    // What the app records of a sync that went wrong names the file too.
    const settingsFile = path.join(data, 'sources.json');
    await fs.writeFile(settingsFile, JSON.stringify({ enabled: { 'claude-code': true }, folders: {}, status: { 'claude-code': { lastSync: new Date().toISOString(), sessionsSaved: 1, errors: [`${forgottenLog}: cannot read: EBUSY`, 'another error'] } } }));

    const forgot = await runCli(['--data', data, 'forget', FORGOTTEN, '--json'], env);
    expect(forgot.stderr).toBe('');
    expect(forgot.status).toBe(0);
    expect(filesContaining(data, forgottenLog)).toEqual([]);
    expect(filesContaining(data, path.basename(forgottenLog))).toEqual([]);
    expect(JSON.parse(await fs.readFile(settingsFile, 'utf8')).status['claude-code'].errors).toEqual(['another error']);
    expect(await sessionIds(data, env)).toEqual([KEPT]);

    // The next sync reads nothing: the forgotten transcript is unchanged.
    const again = await runCli(['--data', data, 'sync', '--json', '--source', 'claude-code'], env);
    expect(again.status).toBe(0);
    expect(again.stdout).toBe('');
    expect(await sessionIds(data, env)).toEqual([KEPT]);

    // Both conversations go on: the kept one is saved, the forgotten one is read again and left out.
    await fs.appendFile(forgottenLog, claudeCodeLines(FORGOTTEN, 'the surprise party', 6, 2));
    await fs.appendFile(keptLog, claudeCodeLines(KEPT, 'the garden shed', 6, 2));
    const grown = await runCli(['--data', data, 'sync', '--json', '--source', 'claude-code'], env);
    expect(grown.status).toBe(0);
    expect(jsonLines(grown.stdout)).toEqual([expect.objectContaining({ sessionId: KEPT, new: 2 })]);
    await fs.appendFile(forgottenLog, claudeCodeLines(FORGOTTEN, 'the surprise party', 8, 2));
    const hooked = await runCli(['--data', data, 'hook', '--json', '--file', forgottenLog], env);
    expect(hooked.status).toBe(0);
    expect(hooked.stdout).toBe('');
    expect(await sessionIds(data, env)).toEqual([KEPT]);
    expect(filesContaining(data, forgottenLog)).toEqual([]);
    expect(filesContaining(data, 'surprise party')).toEqual([]);
    expect(filesContaining(data, keptLog).length).toBeGreaterThan(0);

    // An import is a writer like the others: it leaves the forgotten session out, and says so.
    const imported = await runCli(['--data', data, 'import', '--json', forgottenLog], env);
    expect(imported.status).toBe(0);
    expect(jsonLines(imported.stdout)).toEqual([expect.objectContaining({ sessionId: FORGOTTEN, forgotten: true, chunksWritten: 0 })]);
    expect(await sessionIds(data, env)).toEqual([KEPT]);
    // Brought back on purpose: an import with --unforget saves it, and later syncs keep it up to date.
    const unforgotten = await runCli(['--data', data, 'import', '--json', '--unforget', forgottenLog], env);
    expect(unforgotten.status).toBe(0);
    expect(await sessionIds(data, env)).toEqual([FORGOTTEN, KEPT].sort());
    await fs.appendFile(forgottenLog, claudeCodeLines(FORGOTTEN, 'the surprise party', 10, 2));
    const resumed = await runCli(['--data', data, 'hook', '--json', '--file', forgottenLog], env);
    expect(resumed.status).toBe(0);
    expect(jsonLines(resumed.stdout)).toEqual([expect.objectContaining({ sessionId: FORGOTTEN, new: 2 })]);
  });

  it('a file saved while its session was being forgotten is recorded without it', async () => {
    const data = scratch();
    const cursors = await SourceCursors.load(data);
    const at = { size: 120, mtimeMs: 1_700_000_000_000, head: 'a'.repeat(64) };
    // The forget ran between the file's save and its cursor's advance.
    await forgetCursorSessions(data, ['gone-session']);
    await cursors.advance('/home/ana/.tool/gone-session.jsonl', at, { sessions: ['gone-session'], leftOut: 0 });
    await cursors.advance('/home/ana/.tool/chats.db', at, { sessions: ['gone-session', 'kept-session'], leftOut: 0 });
    expect(filesContaining(data, 'gone-session')).toEqual([]);
    expect(filesContaining(data, 'chats.db')).toEqual(['source-cursors.json']);
    expect(filesContaining(data, 'kept-session')).toEqual(['source-cursors.json']);
    // Both stay read up to their cursor: the first under a hash of its path.
    const later = await SourceCursors.load(data);
    expect(await later.unchanged('/home/ana/.tool/gone-session.jsonl', at)).toBe(true);
    expect(await later.unchanged('/home/ana/.tool/chats.db', at)).toBe(true);
    expect(await later.forgotten('gone-session')).toBe(true);
    expect(await later.forgotten('kept-session')).toBe(false);
  });
});
