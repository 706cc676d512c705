/**
 * A forget holds on every machine of a shared store, and where the memory is copied: the marks of
 * forgotten sessions are in the store (s3rver and dynalite on 127.0.0.1), so another machine's sync
 * of a transcript that changed does not save the session again, and that machine drops its own
 * traces of it (its cursors, its record, its log) when it next opens the store. A copy takes the
 * marks and the person's choice of sources with it.
 */
import { afterAll, beforeAll, describe, it, vi, type ExpectStatic } from 'vitest';
import { existsSync, promises as fs, readdirSync } from 'node:fs';
import path from 'node:path';
import { HASH_EMBEDDER, jsonLines, runCli, type CliResult } from './helpers/cli.js';
import { claudeCodeLines } from './helpers/claudeCode.js';
import { tempDir } from './helpers/engine.js';
import { filesContaining } from './helpers/files.js';
import { startObjectStoreServers, type ObjectStoreServers } from './helpers/objectStore.js';

let servers: ObjectStoreServers;
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  servers = await startObjectStoreServers();
}, 60_000);

afterAll(async () => {
  await servers?.close();
  cleanups.forEach((cleanup) => cleanup());
});

function dir(): string {
  const t = tempDir('sm-forget-everywhere-');
  cleanups.push(t.cleanup);
  return t.dir;
}

const FORGOTTEN = '4c1e2d3f-5a6b-4c7d-8e9f-a0b1c2d3e4f5';
const KEPT = '7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2f1e';

/** A person's machine: its home (where assistants write their transcripts) and its memory's local folder. */
interface Machine {
  home: string;
  memoryHome: string;
  env: Record<string, string>;
  cli(args: string[]): Promise<CliResult>;
}

function machine(name: string): Machine {
  const home = dir();
  const memoryHome = dir();
  // The subject is forgetting, not embedding: the hashing stand-in embeds (test/sharedStore.test.ts
  // saves and searches a bucket with the real model).
  const env = { ...servers.env, HOME: home, USERPROFILE: home, SESSION_MEMORY_HOME: memoryHome, SESSION_MEMORY_MACHINE: name, ...HASH_EMBEDDER };
  return { home, memoryHome, env, cli: (args) => runCli(args, env) };
}

/** Claude Code's two logs in a machine's home: one to forget, one to keep. */
async function twoLogs(home: string): Promise<{ forgottenLog: string; keptLog: string }> {
  const project = path.join(home, '.claude', 'projects', '-work-quiet-project');
  await fs.mkdir(project, { recursive: true });
  const forgottenLog = path.join(project, `${FORGOTTEN}.jsonl`);
  const keptLog = path.join(project, `${KEPT}.jsonl`);
  await fs.writeFile(forgottenLog, claudeCodeLines(FORGOTTEN, 'the hidden lighthouse', 0, 6));
  await fs.writeFile(keptLog, claudeCodeLines(KEPT, 'the orchard fence', 0, 6));
  return { forgottenLog, keptLog };
}

/** `result` once `expect` (the test's own) has checked it ended well. */
function ok(expect: ExpectStatic, result: CliResult, what: string): CliResult {
  expect(result.status, `${what}: ${result.stderr}`).toBe(0);
  return result;
}

async function sessionIds(expect: ExpectStatic, m: Machine, data: string): Promise<string[]> {
  const listed = ok(expect, await m.cli(['--data', data, 'sessions', '--json']), 'sessions');
  return (JSON.parse(listed.stdout) as Array<{ sessionId: string }>).map((s) => s.sessionId).sort();
}

// Two tests at a time (describe.concurrent, maxConcurrency 2 for the file): each has its own bucket,
// table and machines' folders, and spends its time in the CLI processes it starts. Each asserts with
// its own `expect` (the test context's), as tests running at the same time must.
vi.setConfig({ maxConcurrency: 2 });

describe.concurrent('a forget on one machine', () => {
  it('holds on another machine: its sync of the changed transcript does not save the session again, and it drops its own traces', async ({ expect }) => {
    const { sharedUri, bucket } = await servers.newStore('forget-everywhere');
    const laptop = machine('laptop');
    const desktop = machine('desktop');
    // The desktop is where the assistant ran: its sync saves both conversations.
    const { forgottenLog, keptLog } = await twoLogs(desktop.home);
    const first = ok(expect, await desktop.cli(['--data', sharedUri, 'sync', '--json', '--source', 'claude-code']), 'first sync');
    expect(jsonLines(first.stdout).map((r) => r.sessionId).sort()).toEqual([FORGOTTEN, KEPT].sort());
    expect(filesContaining(desktop.memoryHome, forgottenLog).length).toBeGreaterThan(0);
    expect(filesContaining(desktop.memoryHome, FORGOTTEN).length).toBeGreaterThan(0);

    // The person forgets it on the laptop, which never saw the transcript.
    ok(expect, await laptop.cli(['--data', sharedUri, 'forget', FORGOTTEN]), 'forget');
    expect(await sessionIds(expect, laptop, sharedUri)).toEqual([KEPT]);

    // On the desktop both conversations go on; its next sync saves only the kept one.
    await fs.appendFile(forgottenLog, claudeCodeLines(FORGOTTEN, 'the hidden lighthouse', 6, 2));
    await fs.appendFile(keptLog, claudeCodeLines(KEPT, 'the orchard fence', 6, 2));
    const grown = ok(expect, await desktop.cli(['--data', sharedUri, 'sync', '--json', '--source', 'claude-code']), 'sync after the forget');
    expect(jsonLines(grown.stdout)).toEqual([expect.objectContaining({ sessionId: KEPT, new: 2 })]);
    // Nor does a hook bring it back.
    await fs.appendFile(forgottenLog, claudeCodeLines(FORGOTTEN, 'the hidden lighthouse', 8, 2));
    const hooked = ok(expect, await desktop.cli(['--data', sharedUri, 'hook', '--json', '--file', forgottenLog]), 'hook');
    expect(hooked.stdout).toBe('');
    expect(await sessionIds(expect, desktop, sharedUri)).toEqual([KEPT]);
    expect((await servers.objects(bucket)).filter((o) => o.body.toString('latin1').includes('hidden lighthouse')).map((o) => o.key)).toEqual([]);
    // The desktop's folder keeps neither the transcript's path nor a word of the session (cursors, record).
    expect(filesContaining(desktop.memoryHome, forgottenLog)).toEqual([]);
    expect(filesContaining(desktop.memoryHome, 'hidden lighthouse')).toEqual([]);
    expect(filesContaining(desktop.memoryHome, FORGOTTEN)).toEqual([]);
    expect(filesContaining(desktop.memoryHome, keptLog).length).toBeGreaterThan(0);
  }, 240_000);

  it('drops another machine\'s traces at its next open, even when nothing of the session changed there', async ({ expect }) => {
    const { sharedUri } = await servers.newStore('forget-traces');
    const laptop = machine('laptop');
    const desktop = machine('desktop');
    const { forgottenLog } = await twoLogs(desktop.home);
    ok(expect, await desktop.cli(['--data', sharedUri, 'sync', '--json', '--source', 'claude-code']), 'first sync');
    ok(expect, await laptop.cli(['--data', sharedUri, 'forget', FORGOTTEN]), 'forget');
    expect(filesContaining(desktop.memoryHome, forgottenLog).length).toBeGreaterThan(0);
    // Any command that opens the store on the desktop (here a search) drops what its folder keeps of the session.
    ok(expect, await desktop.cli(['--data', sharedUri, 'search', 'orchard fence', '--json']), 'search');
    expect(filesContaining(desktop.memoryHome, forgottenLog)).toEqual([]);
    expect(filesContaining(desktop.memoryHome, FORGOTTEN)).toEqual([]);
    expect(filesContaining(desktop.memoryHome, 'hidden lighthouse')).toEqual([]);
    // The transcript is left alone while unchanged: the next sync reads nothing.
    const again = ok(expect, await desktop.cli(['--data', sharedUri, 'sync', '--json', '--source', 'claude-code']), 'sync');
    expect(again.stdout).toBe('');
  }, 240_000);
});

describe.concurrent('a copy of the memory', () => {
  it('takes the forgotten sessions\' marks and the choice of sources: the sources at the new place bring no forgotten session back', async ({ expect }) => {
    const person = machine('laptop');
    const { forgottenLog } = await twoLogs(person.home);
    const folder = path.join(dir(), 'memory');
    ok(expect, await person.cli(['--data', folder, 'sync', '--json', '--source', 'claude-code']), 'sync');
    const choices = { enabled: { 'claude-code': true, codex: false }, folders: { aider: [path.join(person.home, 'notes')] } };
    await fs.writeFile(path.join(folder, 'sources.json'), JSON.stringify({ ...choices, status: { 'claude-code': { lastSync: new Date().toISOString(), sessionsSaved: 2, errors: [] } } }));
    ok(expect, await person.cli(['--data', folder, 'forget', FORGOTTEN]), 'forget');

    const { sharedUri } = await servers.newStore('forget-copy');
    ok(expect, await person.cli(['--data', folder, 'copy', '--to', sharedUri, '--json']), 'copy');
    // The bucket's local folder on this machine holds the same choices (not the old place's sync status).
    const stores = path.join(person.memoryHome, 'stores');
    const local = readdirSync(stores).map((name) => path.join(stores, name)).find((d) => existsSync(path.join(d, 'sources.json')));
    expect(local).toBeDefined();
    expect(JSON.parse(await fs.readFile(path.join(local!, 'sources.json'), 'utf8'))).toEqual({ ...choices, status: {} });

    // A new place has no cursors: every transcript is read again, and the forgotten one is left out.
    await fs.appendFile(forgottenLog, claudeCodeLines(FORGOTTEN, 'the hidden lighthouse', 6, 2));
    const synced = ok(expect, await person.cli(['--data', sharedUri, 'sync', '--json', '--source', 'claude-code']), 'sync at the new place');
    expect(jsonLines(synced.stdout).filter((r) => r.sessionId === FORGOTTEN && r.forgotten !== true)).toEqual([]);
    expect(await sessionIds(expect, person, sharedUri)).toEqual([KEPT]);
    // A forget made at the new place holds there too.
    ok(expect, await person.cli(['--data', sharedUri, 'forget', KEPT]), 'forget at the new place');
    const resynced = ok(expect, await person.cli(['--data', sharedUri, 'import', '--json', path.dirname(forgottenLog)]), 'import');
    expect(jsonLines(resynced.stdout).map((r) => [r.sessionId, r.forgotten])).toEqual(expect.arrayContaining([[FORGOTTEN, true], [KEPT, true]]));
    expect(await sessionIds(expect, person, sharedUri)).toEqual([]);
  }, 240_000);
});
