import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { detectFormat, readTranscripts } from '../../electron/importers/index.js';
import { errorOf, fixture, readAll, sessionsOf, tempDir } from './helpers.js';

/** Written by opencode 1.18.33 (SQLite) and 1.1.65 (JSON files) against a local mock model: see PROVENANCE.md. */
const DATABASE = fixture('opencode', 'opencode.db');
const STORAGE = fixture('opencode', 'legacy', 'storage');
const FIRST = 'ses_dbdb7c3b9ffeycEkmI5Wkhvqpo';
const SECOND = 'ses_dbdb5c36effeQPcURTnVeWbFXp';

function copyOfDatabase(): string {
  const file = path.join(tempDir(), 'opencode.db');
  copyFileSync(DATABASE, file);
  return file;
}

describe('opencode database (1.2 and later)', () => {
  it("reads every session with opencode's own ids, titles and times; tools and reasoning only when asked", async () => {
    const sessions = await sessionsOf(DATABASE);
    expect(sessions.map((session) => [session.sessionId, session.title, session.source, session.messages.length])).toEqual([
      [FIRST, 'Counting words in a file', 'opencode', 5],
      [SECOND, 'Counting words in a file', 'opencode', 2],
    ]);
    expect(sessions[0]!.messages.map((message) => [message.msgId, message.role, message.content, message.timestamp])).toEqual([
      ['msg_242483e87001nMoTeAsrUp1Dn0', 'user', '"How many words are in notes.txt?"', '2026-12-04T18:19:20.583Z'],
      ['msg_2424858a9001xYX2zP56w92tNA', 'assistant', 'Let me count them.', '2026-12-04T18:19:27.273Z'],
      ['msg_24248b5730017uSYUVVJ2684Bv', 'assistant', 'The file notes.txt has 7 words. I counted them with wc -w.', '2026-12-04T18:19:51.027Z'],
      ['msg_242493d61001MyuyNH2vxZMXFa', 'user', '"And what is the second thing the notes mention?"', '2026-12-04T18:20:25.825Z'],
      ['msg_2424978f7001rPbmNZSmT2w1iO', 'assistant', 'I cannot see the weather from here, but the notes say Kyoto in April.', '2026-12-04T18:20:41.079Z'],
    ]);

    const [full] = await sessionsOf(DATABASE, { include: ['tools', 'thinking'] });
    for (const message of sessions[0]!.messages) expect(full!.messages).toContainEqual(message);
    expect(full!.messages.filter((message) => message.msgId!.startsWith('msg_2424858a9001xYX2zP56w92tNA#')).map((message) => [message.role, message.content])).toEqual([
      ['assistant', '[thinking] I should count the words with a shell command.'],
      ['tool', '[tool call: bash] {"command":"wc -w notes.txt","description":"Count words in notes.txt"}'],
      ['tool', '[tool result: bash] 6 notes.txt'],
    ]);
  });

  it('is recognised by content, whatever its name, and found in opencode\'s data folder beside its WAL files', async () => {
    expect(detectFormat(readFileSync(DATABASE))).toBe('opencode');
    const dir = tempDir();
    copyFileSync(DATABASE, path.join(dir, 'backup.sqlite3'));
    copyFileSync(DATABASE, path.join(dir, 'opencode.db'));
    writeFileSync(path.join(dir, 'opencode.db-wal'), '');
    writeFileSync(path.join(dir, 'opencode.db-shm'), '');
    const [named] = await readAll([path.join(dir, 'backup.sqlite3')]);
    expect(named && 'format' in named ? named.sessionCount : named).toBe(2);
    const found = await readAll([dir]);
    expect(found.map((result) => [path.basename(result.file), 'format' in result ? result.format : result.error.message])).toEqual([['opencode.db', 'opencode']]);
  });

  it("reads Kilo's CLI, a fork of opencode, from its data folder: its kilo.db as Kilo Code's, not the diffs kept beside it", async () => {
    // Kilo CLI 7.7.7 keeps opencode's database as `~/.local/share/kilo/kilo.db`, and a `storage/` folder
    // that holds only `migration` and each session's `session_diff/<id>.json` (`[]` when nothing changed).
    const dir = tempDir();
    copyFileSync(DATABASE, path.join(dir, 'kilo.db'));
    writeFileSync(path.join(dir, 'kilo.db-wal'), '');
    mkdirSync(path.join(dir, 'storage', 'session_diff'), { recursive: true });
    writeFileSync(path.join(dir, 'storage', 'migration'), '2');
    writeFileSync(path.join(dir, 'storage', 'session_diff', `${FIRST}.json`), '[]');
    const found = await readAll([dir]);
    expect(found.map((result) => [path.basename(result.file), 'format' in result ? result.format : result.error.message])).toEqual([['kilo.db', 'opencode']]);
    const sessions = found[0] && 'sessions' in found[0] ? found[0].sessions : [];
    expect(sessions.map((session) => [session.sessionId, session.source])).toEqual([
      [FIRST, 'kilo-code'],
      [SECOND, 'kilo-code'],
    ]);
  });

  it('reads a database that opencode is writing, without waiting for it or keeping it waiting', async () => {
    const file = copyOfDatabase();
    const writer = new Database(file);
    try {
      writer.pragma('journal_mode = WAL');
      const addMessage = (id: string, text: string) => {
        const created = 1796409000000;
        writer.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)').run(id, SECOND, created, created, JSON.stringify({ role: 'user', time: { created } }));
        writer.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run(`prt_${id}`, id, SECOND, created, created, JSON.stringify({ type: 'text', text }));
      };
      // opencode is in the middle of a write: the import sees what was committed and does not wait.
      writer.exec('BEGIN IMMEDIATE');
      addMessage('msg_zz1', 'Half written');
      const started = Date.now();
      const during = await readAll([file]);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(during.map((result) => ('format' in result ? result.sessions.map((session) => session.messages.length) : result.error.message))).toEqual([[5, 2]]);
      writer.exec('COMMIT');

      // Between the check of the database and the handing out of its sessions, opencode writes on.
      const [opened] = await collectFiles(file);
      addMessage('msg_zz2', 'Written while the import ran');
      const handedOut = [];
      for await (const session of opened!.sessions) handedOut.push(session);
      expect(handedOut.map((session) => session.messages.at(-1)!.content)).toEqual(['I cannot see the weather from here, but the notes say Kyoto in April.', 'Written while the import ran']);
    } finally {
      writer.close();
    }
  });

  it("names a sub-agent's parent session", async () => {
    const file = copyOfDatabase();
    const writer = new Database(file);
    writer
      .prepare("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) SELECT 'ses_child', project_id, id, 'brave-fox', directory, 'Find the notes (@explore subagent)', version, time_created + 1, time_updated FROM session WHERE id = ?")
      .run(FIRST);
    writer.prepare("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_child', 'ses_child', 1, 1, ?)").run(JSON.stringify({ role: 'user', time: { created: 1796408361000 } }));
    writer.prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_child', 'msg_child', 'ses_child', 1, 1, ?)").run(JSON.stringify({ type: 'text', text: 'List the notes files.' }));
    writer.close();
    const child = (await sessionsOf(file)).find((session) => session.sessionId === 'ses_child');
    expect(child).toMatchObject({ parentSessionId: FIRST, title: 'Find the notes (@explore subagent)', messages: [{ msgId: 'msg_child', content: 'List the notes files.' }] });
  });

  it('titles a session that kept the placeholder opencode gives before its title is made by what the person said first', async () => {
    // Kilo CLI 7.7.7 left its second session titled so: its title request to the model did not complete.
    const file = copyOfDatabase();
    const writer = new Database(file);
    writer.prepare("UPDATE session SET title = 'New session - 2026-12-04T18:21:05.117Z' WHERE id = ?").run(SECOND);
    writer.close();
    const sessions = await sessionsOf(file);
    expect(sessions.map((session) => session.title)).toEqual(['Counting words in a file', '"Is the weather nice in Kyoto?"']);
  });

  it('leaves out a session with a damaged record and names it; a strict import refuses the database', async () => {
    const file = copyOfDatabase();
    const writer = new Database(file);
    writer.prepare("UPDATE part SET data = '{\"type\":\"text\",' WHERE id = 'prt_2424a4033001jDcASHEkwkfFkZ'").run();
    writer.close();
    const [result] = await readAll([file]);
    if (!result || !('format' in result)) throw new Error(JSON.stringify(result));
    expect(result.sessions.map((session) => session.sessionId)).toEqual([FIRST]);
    expect(result.skipped).toEqual([{ file, session: SECOND, error: 'part prt_2424a4033001jDcASHEkwkfFkZ: its data is not valid JSON' }]);
    const strict = await errorOf(file, undefined, { strict: true });
    expect(strict.message).toBe(`${file}: part prt_2424a4033001jDcASHEkwkfFkZ: its data is not valid JSON`);
  });

  it('refuses a database that is not one, and a SQLite database of another tool, saying which', async () => {
    const dir = tempDir();
    const damaged = path.join(dir, 'opencode.db');
    writeFileSync(damaged, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(200, 7)]));
    const error = await errorOf(damaged);
    // One SQLite reader for every tool's database: the same words as for OpenClaw's.
    expect([error.code, error.message]).toEqual(['binary', `${damaged}: not an SQLite database`]);

    const other = path.join(dir, 'notes.db');
    const db = new Database(other);
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    db.close();
    expect((await errorOf(other)).message).toBe(`${other}: a SQLite database of no tool we know (understood: OpenClaw's agent databases, opencode's opencode.db, Cursor's state.vscdb)`);
  });
});

describe('opencode storage folder (before 1.2)', () => {
  it('reads the JSON files of each session as one session, in the same shape as the database gives', async () => {
    const [session] = await sessionsOf(STORAGE);
    expect(session!.sessionId).toBe('ses_dbdb3351fffeUWaGrgf4G3edC2');
    expect(session!.title).toBe('Counting words in a file');
    expect(session!.messages.map((message) => [message.role, message.content.trim()])).toEqual([
      ['user', '"How many words are in notes.txt?"'],
      ['assistant', 'Let me count them.'],
      ['assistant', 'The file notes.txt has 7 words. I counted them with wc -w.'],
      ['user', '"And what is the second thing the notes mention?"'],
      ['assistant', 'I cannot see the weather from here, but the notes say Kyoto in April.'],
    ]);
    const [full] = await sessionsOf(STORAGE, { include: ['tools'] });
    expect(full!.messages.map((message) => message.content)).toContain('[tool result: bash] 6 notes.txt');
  });

  it('reads what `opencode export` writes as the same session, not as a list of chat messages', async () => {
    // The shape opencode 1.18 wrote for a session a person published (an export of August 2026), with our own text.
    const session = 'ses_ff11ac3b7ffeuofa8m9N4TlzSu';
    const part = (messageID: string, id: string, fields: Record<string, unknown>) => ({ id, sessionID: session, messageID, ...fields });
    const exported = {
      info: { id: session, slug: 'nimble-canyon', directory: '/home/ana/site', title: 'Assignment.md review', version: '1.18.18', time: { created: 1786956299336, updated: 1787029237475 } },
      messages: [
        { info: { id: 'msg_u1', sessionID: session, role: 'user', time: { created: 1786956299510 }, agent: 'plan' }, parts: [part('msg_u1', 'prt_1', { type: 'text', text: 'go through the assignment.md file in this folder' })] },
        {
          info: { id: 'msg_a1', sessionID: session, role: 'assistant', time: { created: 1786956299591, completed: 1786956320088 }, parentID: 'msg_u1', mode: 'plan' },
          parts: [
            part('msg_a1', 'prt_2', { type: 'step-start' }),
            part('msg_a1', 'prt_3', { type: 'reasoning', text: 'Find the file first.', time: { start: 1786956304479, end: 1786956319992 } }),
            part('msg_a1', 'prt_4', { type: 'tool', callID: 'call_1', tool: 'glob', state: { status: 'completed', input: { pattern: '**/assignment.md' }, output: 'assignment.md', title: 'site' } }),
            part('msg_a1', 'prt_5', { type: 'text', text: 'I read the assignment: a landing page with three sections.' }),
            part('msg_a1', 'prt_6', { type: 'step-finish', reason: 'stop' }),
          ],
        },
      ],
    };
    const file = path.join(tempDir(), 'chat-export.json');
    writeFileSync(file, JSON.stringify(exported));
    expect(detectFormat(readFileSync(file))).toBe('opencode');
    const [plain] = await sessionsOf(file);
    expect(plain).toMatchObject({ sessionId: session, title: 'Assignment.md review', source: 'opencode' });
    expect(plain!.messages.map((m) => [m.msgId, m.role, m.content, m.timestamp])).toEqual([
      ['msg_u1', 'user', 'go through the assignment.md file in this folder', '2026-08-17T08:44:59.510Z'],
      ['msg_a1', 'assistant', 'I read the assignment: a landing page with three sections.', '2026-08-17T08:44:59.591Z'],
    ]);
    const [full] = await sessionsOf(file, { include: ['tools', 'thinking'] });
    expect(full!.messages.map((m) => m.content)).toEqual([
      'go through the assignment.md file in this folder',
      '[thinking] Find the file first.',
      '[tool call: glob] {"pattern":"**/assignment.md"}',
      '[tool result: glob] assignment.md',
      'I read the assignment: a landing page with three sections.',
    ]);
  });

  it('is found inside opencode\'s data folder; a session whose info file is gone keeps its messages', async () => {
    const data = path.join(tempDir(), 'opencode');
    cpSync(STORAGE, path.join(data, 'storage'), { recursive: true });
    rmSync(path.join(data, 'storage', 'session'), { recursive: true });
    writeFileSync(path.join(data, 'storage', 'message', 'ses_dbdb3351fffeUWaGrgf4G3edC2', 'msg_broken.json'), '{"id": "msg_br');
    const [result] = await readAll([data]);
    if (!result || !('format' in result)) throw new Error(JSON.stringify(result));
    expect(result.sessions.map((session) => [session.sessionId, session.title, session.messages.length])).toEqual([['ses_dbdb3351fffeUWaGrgf4G3edC2', undefined, 5]]);
    expect(result.skipped).toEqual([{ file: path.join(data, 'storage', 'message', 'ses_dbdb3351fffeUWaGrgf4G3edC2', 'msg_broken.json'), error: 'not a JSON object (a damaged or half-written file)' }]);
  });
});

async function collectFiles(file: string) {
  const files = [];
  for await (const result of readTranscripts([file])) {
    if ('error' in result) throw result.error;
    files.push(result);
  }
  return files;
}
