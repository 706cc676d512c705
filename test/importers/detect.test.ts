import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../electron/importers/index.js';
import { fixture, readAll, sessionsOf, tempDir } from './helpers.js';

const SAMPLES: Array<[string, string[]]> = [
  ['chatgpt', ['chatgpt', 'conversations.json']],
  ['claude', ['claude', 'conversations.json']],
  ['openclaw', ['openclaw', 'sessions', '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6.jsonl']],
  ['openclaw', ['openclaw', 'sessions', '1e2d3c4b-0000-4aaa-8bbb-123456789abc.jsonl.reset.2026-01-10T08-00-00.000Z']],
  ['open-webui', ['open-webui', 'chats.json']],
  ['sillytavern', ['sillytavern', 'Seraphina - 2024-05-01@12h30m15s.jsonl']],
  ['claude-code', ['claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl']],
  ['json', ['json', 'session.json']],
  ['json', ['json', 'sessions.json']],
  ['markdown', ['markdown', 'kyoto-notes.md']],
  ['markdown', ['markdown', '对话.txt']],
  ['aider', ['aider', 'monochromatic', '.aider.chat.history.md']],
  ['cline', ['cline', 'saoudrizwan.claude-dev', 'tasks', '1767258000000', 'api_conversation_history.json']],
  ['codex', ['codex', 'home', 'sessions', '2026', '12', '04', 'rollout-2026-12-04T18-18-48-01a24247-c1ad-7f61-a9f2-d5acbdd9122a.jsonl']],
  ['codex', ['codex', 'home', 'sessions', '2026', '12', '04', 'rollout-2026-12-04T18-19-32-01a24248-6b59-73c0-90ab-a4be87ba89c2.jsonl']],
  ['gemini-cli', ['gemini-cli', 'home', 'tmp', 'work', 'chats', 'session-2026-12-04T18-20-80635437.jsonl']],
  ['gemini-cli', ['gemini-cli', 'home', 'tmp', 'work', 'chats', '0ec05c2f-0ce8-42cf-b62e-a6b5e9935c7e', 'e6d2941f-b4a9-41f8-9ef2-077175452184.jsonl']],
  ['qwen-code', ['qwen-code', 'home', 'projects', '-tmp-qf-project', 'chats', '05634392-e641-4a60-998d-363cd111e5d1.jsonl']],
  ['copilot-cli', ['copilot-cli', 'home', 'session-state', '57de8b1b-71f6-4dfc-b47e-fb3ff89a390a', 'events.jsonl']],
  ['antigravity', ['antigravity', 'brain', '6f0b2c1e-8d4a-4b7e-9c3f-2a5d7e9b1c40', '.system_generated', 'logs', 'transcript_full.jsonl']],
  ['antigravity', ['antigravity', 'brain', 'b81e4d27-3c9f-4a16-8e5b-d0c7f2a94e63', '.system_generated', 'logs', 'transcript.jsonl']],
  ['continue', ['continue', 'home', 'sessions', 'c501fd76-d09e-46b3-ba25-cc1421792f13.json']],
  ['vscode-chat', ['vscode-chat', 'Code', 'User', 'workspaceStorage', '3c9a1f7e5b2d4c6a8e0f1b3d5c7a9e2f', 'chatSessions', '8e1f4c2a-6b3d-4f7e-9a05-2c7d8e9f1a3b.json']],
  ['vscode-chat', ['vscode-chat', 'Code', 'User', 'globalStorage', 'emptyWindowChatSessions', '4a7d2b9e-0c1f-4e3a-8b6d-5f9e1c2a7b40.jsonl']],
  ['vscode-chat', ['vscode-chat', 'chat-export.json']],
];

/** Databases: recognised from their bytes (as text they are not). */
const DATABASES: Array<[string, string[]]> = [
  ['opencode', ['opencode', 'opencode.db']],
  ['cursor', ['cursor', 'global-2025', 'state.vscdb']],
  ['cursor', ['cursor', 'workspace-2024', 'state.vscdb']],
];

describe('format detection by content', () => {
  it.each(SAMPLES)('recognises %s (%j)', (format, parts) => {
    expect(detectFormat(readFileSync(fixture(...parts)))).toBe(format);
    expect(detectFormat(readFileSync(fixture(...parts), 'utf8'))).toBe(format);
  });

  it.each(DATABASES)('recognises a %s database (%j)', (format, parts) => {
    expect(detectFormat(readFileSync(fixture(...parts)))).toBe(format);
  });

  it('says undefined for what it does not understand', () => {
    expect(detectFormat(readFileSync(fixture('bad', 'unknown.json')))).toBeUndefined();
    expect(detectFormat(readFileSync(fixture('bad', 'unknown.txt')))).toBeUndefined();
    expect(detectFormat(Buffer.from([0xff, 0xfe, 0x00]))).toBeUndefined();
    const other = new Database(':memory:');
    other.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    expect(detectFormat(other.serialize())).toBeUndefined();
    other.close();
    expect(detectFormat(Buffer.from('SQLite format 3\0 and then nothing that holds'))).toBeUndefined();
  });

  it('ignores misleading file names: every sample renamed keeps its format', async () => {
    const dir = tempDir();
    const names = ['export.txt', 'notes.md', 'chat.json', 'session.jsonl', 'README', 'conversations.json', 'a.jsonl', 'b.txt', 'c.md', 'd.json', 'e.jsonl', 'f.json', 'g.txt', 'h.json', 'i.jsonl', 'j.jsonl', 'backup', 'k.txt', 'l.md', 'm.json', 'n.jsonl', 'o.txt', 'p', 'q.jsonl'];
    for (const [index, [format, parts]] of [...SAMPLES, ...DATABASES].entries()) {
      const renamed = path.join(dir, `${index}-${names[index]}`);
      copyFileSync(fixture(...parts), renamed);
      const [result] = await readAll([renamed]);
      expect(result && 'format' in result ? result.format : result).toBe(format);
    }
  });

  it('reads a ChatGPT export renamed to .txt exactly like the original', async () => {
    const renamed = path.join(tempDir(), 'my chats.txt');
    copyFileSync(fixture('chatgpt', 'conversations.json'), renamed);
    expect(await sessionsOf(renamed)).toEqual(await sessionsOf(fixture('chatgpt', 'conversations.json')));
  });

  it('accepts a UTF-8 byte order mark, in whole and streamed reading', async () => {
    const file = path.join(tempDir(), 'with-bom.jsonl');
    const original = fixture('openclaw', 'sessions', '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6.jsonl');
    writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(original)]));
    expect(await sessionsOf(file)).toEqual(await sessionsOf(original));
  });

  it('reads a compact one-line JSON session, and a pretty-printed JSON document that starts like JSONL', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'one-line.json'), JSON.stringify({ session_id: 'x', messages: [{ role: 'user', content: 'hi' }] }));
    writeFileSync(path.join(dir, 'pretty.json'), JSON.stringify({ session_id: 'y', messages: [{ role: 'user', content: 'hi' }] }, null, 2));
    const results = await readAll([dir]);
    expect(results.map((result) => ('format' in result ? [path.basename(result.file), result.format, result.sessions[0]!.sessionId] : result.error.message))).toEqual([
      ['one-line.json', 'json', 'x'],
      ['pretty.json', 'json', 'y'],
    ]);
  });

  it('expands folders recursively, to transcript-looking files only; named files are always read', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'nested', 'deeper'), { recursive: true });
    mkdirSync(path.join(dir, '.hidden'));
    copyFileSync(fixture('json', 'session.json'), path.join(dir, 'nested', 'deeper', 'session.json'));
    copyFileSync(fixture('markdown', 'kyoto-notes.md'), path.join(dir, 'kyoto-notes.md'));
    copyFileSync(fixture('json', 'sessions.json'), path.join(dir, '.hidden', 'sessions.json'));
    writeFileSync(path.join(dir, 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    writeFileSync(path.join(dir, 'user.json'), '{"id":"user-1","email":"a@example.com"}');

    const results = await readAll([dir]);
    expect(results.map((result) => path.relative(dir, result.file))).toEqual(['kyoto-notes.md', path.join('nested', 'deeper', 'session.json')]);
    expect(results.every((result) => 'sessions' in result)).toBe(true);

    const [named] = await readAll([path.join(dir, 'photo.png')]);
    expect(named && 'error' in named ? named.error.code : named).toBe('binary');
  });
});
