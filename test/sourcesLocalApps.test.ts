/**
 * LM Studio and Jan as sources: on a machine where each app wrote its chats in its default place
 * (HOME and the XDG folders pointing into a scratch folder), `sources` lists them, `sync` saves them,
 * and after the person goes on chatting the next `sync` saves only what is new.
 */
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { HASH_EMBEDDER, jsonLines, runCli } from './helpers/cli.js';
import { scratchDirs } from './helpers/engine.js';

const scratch = scratchDirs('sm-sources-local-');
const FIXTURES = path.resolve(__dirname, 'fixtures/import');
const TRIP = '1765012345678';
const PACKING = '1765098765432';
const THREAD = '01JZ8K4W2Q9M3N5P7R1S3T5V7X';

interface Chat {
  messages: Array<{ versions: unknown[]; currentlySelected: number }>;
  [field: string]: unknown;
}

async function machine(): Promise<{ home: string; env: Record<string, string> }> {
  const home = scratch();
  await fs.cp(path.join(FIXTURES, 'lmstudio', 'home', '.lmstudio'), path.join(home, '.lmstudio'), { recursive: true });
  // A chat opened and left empty: LM Studio writes it at once.
  const { messages: _messages, ...settings } = JSON.parse(await fs.readFile(path.join(home, '.lmstudio', 'conversations', `${TRIP}.conversation.json`), 'utf8')) as Chat;
  await fs.writeFile(path.join(home, '.lmstudio', 'conversations', '1765300000000.conversation.json'), JSON.stringify({ ...settings, name: 'New Chat', createdAt: 1765300000000, messages: [] }));
  const dataHome = path.join(home, 'xdg-data');
  await fs.cp(path.join(FIXTURES, 'jan', 'data'), path.join(dataHome, 'Jan', 'data'), { recursive: true });
  // A thread Jan made before its first message: no messages yet.
  await fs.mkdir(path.join(dataHome, 'Jan', 'data', 'threads', '01JZ9AAAAAAAAAAAAAAAAAAAAA'));
  await fs.writeFile(path.join(dataHome, 'Jan', 'data', 'threads', '01JZ9AAAAAAAAAAAAAAAAAAAAA', 'messages.jsonl'), '');
  const env: Record<string, string> = { ...HASH_EMBEDDER, HOME: home, USERPROFILE: home, XDG_DATA_HOME: dataHome, XDG_CONFIG_HOME: path.join(home, 'xdg-config'), JAN_DATA_FOLDER: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', OPENCLAW_STATE_DIR: '', GEMINI_CLI_HOME: '', CONTINUE_GLOBAL_DIR: '', OPENCODE_DB: '', AIDER_CHAT_HISTORY_FILE: '' };
  return { home, env };
}

describe('LM Studio and Jan as sources', () => {
  it('are found in their default places, synced, and a re-sync after a new message saves only that message', async () => {
    const { home, env } = await machine();
    const data = path.join(scratch(), 'data');

    const listed = await runCli(['--data', data, 'sources', '--json'], env);
    expect(listed.stderr).toBe('');
    const sources = JSON.parse(listed.stdout) as Array<{ id: string; sessions: number; path: string }>;
    expect(sources.map((s) => [s.id, s.path, s.sessions])).toEqual([
      ['lmstudio', path.join(home, '.lmstudio'), 3],
      ['jan', path.join(home, 'xdg-data', 'Jan', 'data'), 2],
    ]);

    const first = await runCli(['--data', data, 'sync', '--json'], env);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const saved = jsonLines(first.stdout);
    // The empty chat and the empty thread are no errors, and no sessions.
    expect(saved.filter((r) => 'error' in r)).toEqual([]);
    expect(saved.map((r) => [r.source, r.sessionId, r.new]).sort()).toEqual([
      ['jan', THREAD, 4],
      ['lmstudio', TRIP, 4],
      ['lmstudio', PACKING, 2],
    ]);

    // The person asks one more question in each app.
    const tripFile = path.join(home, '.lmstudio', 'conversations', `${TRIP}.conversation.json`);
    const chat = JSON.parse(await fs.readFile(tripFile, 'utf8')) as Chat;
    chat.messages.push({ versions: [{ type: 'singleStep', role: 'user', content: [{ type: 'text', text: 'Is there a shower on board?' }] }], currentlySelected: 0 });
    chat.userLastMessagedAt = 1765012400000;
    await fs.writeFile(tripFile, JSON.stringify(chat, null, 2));
    const thread = path.join(home, 'xdg-data', 'Jan', 'data', 'threads', THREAD, 'messages.jsonl');
    await fs.appendFile(thread, `${JSON.stringify({ type: 'text', role: 'user', content: [{ type: 'text', text: { value: 'And the couchette?', annotations: [] } }], id: '01JZ8K7C3D4E5F6G7H8J9K0M1N', object: 'thread.message', thread_id: THREAD, status: 'ready', created_at: 1765200120000, completed_at: 1765200120000 })}\n`);

    const second = await runCli(['--data', data, 'sync', '--json'], env);
    expect(second.stderr).toBe('');
    expect(jsonLines(second.stdout).map((r) => [r.source, r.sessionId, r.new, r.updated, r.deleted]).sort()).toEqual([
      ['jan', THREAD, 1, 0, 0],
      ['lmstudio', TRIP, 1, 0, 0],
    ]);

    // The person picks the answer's first version again: it is saved, and the one left is dropped.
    chat.messages[1]!.currentlySelected = 0;
    await fs.writeFile(tripFile, JSON.stringify(chat, null, 2));
    const third = await runCli(['--data', data, 'sync', '--json'], env);
    expect(third.stderr).toBe('');
    expect(jsonLines(third.stdout).map((r) => [r.source, r.sessionId, r.new, r.deleted])).toEqual([['lmstudio', TRIP, 1, 1]]);
    const shown = await runCli(['--data', data, 'show', TRIP, '--json'], env);
    expect(shown.stdout).toContain('The EuroNight 40467 is the one');
    expect(shown.stdout).not.toContain('reaches Wien Hbf at 07:49');
  });
});
