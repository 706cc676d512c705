/**
 * The MCP server as an assistant uses it: a real `session-memory mcp` process on stdio, driven by the
 * protocol SDK's own client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnSync } from 'node:child_process';
import { acquireWriteLock } from '../electron/engine/files/writeLock.js';
import { MemoryHost } from '../electron/host/memoryHost.js';
import { claudeCodeCommand, claudeDesktopConfig } from '../renderer/src/views/ConnectAssistantCard.js';
import { TEST_MODELS_DIR } from './helpers/model.js';
import { BIN, cliEnv, REPO } from './helpers/cli.js';
import { conversation, tempDir } from './helpers/engine.js';

interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

const { dir: root, cleanup } = tempDir('sm-mcp-');
const dataDir = path.join(root, 'data');
let client: Client;
let stderr = '';

async function connect(args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--data', dataDir, 'mcp', ...args], cwd: REPO, env: cliEnv() as Record<string, string>, stderr: 'pipe' });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const c = new Client({ name: 'test-assistant', version: '1.0.0' });
  await c.connect(transport);
  return c;
}

const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => (await client.callTool({ name, arguments: args })) as ToolResult;
const textOf = (result: ToolResult): string => result.content.map((c) => c.text ?? '').join('\n');

beforeAll(async () => {
  mkdirSync(dataDir, { recursive: true });
  client = await connect();
}, 120_000);

afterAll(async () => {
  await client?.close();
  cleanup();
});

describe('session-memory mcp', () => {
  it('lists the four tools with their argument schemas, and --read-only leaves saving out', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_session', 'list_sessions', 'save_session', 'search_memory']);
    const search = tools.find((t) => t.name === 'search_memory')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(['limit', 'query', 'session_id', 'since', 'until']);
    const readOnly = await connect(['--read-only']);
    try {
      expect((await readOnly.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_session', 'list_sessions', 'search_memory']);
    } finally {
      await readOnly.close();
    }
  }, 120_000);

  it('says in its handshake what it holds and which tool searches it (Codex shows a server whose tools it defers by these words alone)', async () => {
    expect(client.getInstructions()).toMatch(/past conversations/);
    expect(client.getInstructions()).toContain('search_memory');
    const readOnly = await connect(['--read-only']);
    try {
      expect(readOnly.getInstructions()).toContain('search_memory');
      expect(readOnly.getInstructions()).not.toContain('save_session');
    } finally {
      await readOnly.close();
    }
  }, 120_000);

  it('saves a conversation, skips it when saved again, finds it, and reads it back in pages', async () => {
    const input = conversation(12, { sessionId: 'trip-planning' });
    const transcript = { session_id: input.sessionId, title: 'Trip planning', messages: input.messages.map((m) => ({ msg_id: m.msgId, role: m.role, content: m.content, timestamp: `2025-03-0${1 + Math.floor(Number(m.msgId!.slice(4)) / 6)}T10:00:00Z` })) };
    const first = await call('save_session', { transcript });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent?.reports).toEqual([expect.objectContaining({ sessionId: 'trip-planning', new: 12, skippedSession: false })]);
    expect(textOf(first)).toMatch(/12 new/);

    const again = await call('save_session', { transcript });
    expect(again.structuredContent?.reports).toEqual([expect.objectContaining({ skippedSession: true, new: 0, skipped: 12, embeddingsComputed: 0 })]);

    const found = await call('search_memory', { query: 'how should I think about the budget', limit: 3 });
    const results = found.structuredContent?.results as Array<Record<string, unknown>>;
    expect(results.length).toBeGreaterThan(0);
    expect(results[0]).toMatchObject({ sessionId: 'trip-planning', sessionTitle: 'Trip planning' });
    expect(String(results[0]!.date)).toMatch(/^2025-03-0[12]T/);
    expect(textOf(found)).toContain('Trip planning');

    const early = await call('search_memory', { query: 'budget', until: '2025-02-28' });
    expect(early.structuredContent?.results).toEqual([]);

    const page = await call('get_session', { session_id: 'trip-planning', from_message: 5, limit: 4 });
    expect(page.structuredContent).toMatchObject({ totalMessages: 12, fromMessage: 5, nextFrom: 9 });
    expect((page.structuredContent?.messages as Array<{ messageId: string }>).map((m) => m.messageId)).toEqual(['msg-5', 'msg-6', 'msg-7', 'msg-8']);

    const listed = await call('list_sessions', { query: 'trip' });
    expect(listed.structuredContent).toMatchObject({ total: 1, sessions: [expect.objectContaining({ sessionId: 'trip-planning', messages: 12 })] });
  }, 180_000);

  it('reads back who said each message of a chat between people', async () => {
    const transcript = { session_id: 'pottery', messages: [{ role: 'user', content: 'I went to a pottery class on Saturday.', speaker: 'Caroline' }, { role: 'assistant', content: 'What did you make?', speaker: 'Melanie' }] };
    expect((await call('save_session', { transcript })).isError).toBeFalsy();
    const page = await call('get_session', { session_id: 'pottery' });
    expect((page.structuredContent?.messages as Array<{ speaker?: string }>).map((m) => m.speaker)).toEqual(['Caroline', 'Melanie']);
    expect(textOf(page)).toContain('] Melanie (assistant): What did you make?');
  }, 120_000);

  it('saves the text of a supported export format', async () => {
    const markdown = '**User:** What is a good name for a sourdough starter?\n\n**Assistant:** Many people pick a pun, like Clint Yeastwood.\n';
    const saved = await call('save_session', { transcript: markdown });
    expect(saved.isError).toBeFalsy();
    expect(saved.structuredContent?.reports).toEqual([expect.objectContaining({ new: 2 })]);
  }, 120_000);

  it('save_session names the damaged lines it left out and deletes no stored message for them, even in overwrite mode', async () => {
    const line = (id: string, parent: string | null, role: 'user' | 'assistant', text: string) =>
      JSON.stringify({ parentUuid: parent, isSidechain: false, type: role, sessionId: 'damaged-log', uuid: id, timestamp: '2025-06-01T08:00:00.000Z', message: { role, content: role === 'user' ? text : [{ type: 'text', text }] } });
    const log = [line('u1', null, 'user', 'Which tide table should I trust for the bay?'), line('a1', 'u1', 'assistant', 'The harbour office publishes the tables the pilots use.'), line('u2', 'a1', 'user', 'And for the estuary upstream?'), line('a2', 'u2', 'assistant', 'Add about forty minutes to the harbour times there.')];
    const saved = await call('save_session', { transcript: `${log.join('\n')}\n` });
    expect(saved.structuredContent).toMatchObject({ reports: [expect.objectContaining({ sessionId: 'damaged-log', new: 4 })], skipped: [] });

    const damaged = [...log.slice(0, 3), log[3]!.slice(0, 60)].join('\n');
    const again = await call('save_session', { transcript: `${damaged}\n`, mode: 'overwrite' });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent?.skipped).toEqual([{ line: 4, error: expect.any(String) }]);
    expect(again.structuredContent?.reports).toEqual([expect.objectContaining({ sessionId: 'damaged-log', mode: 'incremental', deleted: 0 })]);
    expect(textOf(again)).toMatch(/Skipped as damaged, not saved: the transcript, line 4: /);
    expect(textOf(again)).toMatch(/without deleting/);
    expect(textOf(again)).not.toContain(root);
    const page = await call('get_session', { session_id: 'damaged-log' });
    expect(page.structuredContent).toMatchObject({ totalMessages: 4 });
  }, 120_000);

  it('a bad call gets one clear error line, and the next call is served', async () => {
    const bad = await call('search_memory', { query: 'x', limit: 0 });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/limit/);
    expect(textOf(bad).split('\n').length).toBeLessThanOrEqual(2);
    const missing = await call('get_session', { session_id: 'no-such-session' });
    expect(missing).toMatchObject({ isError: true });
    expect(textOf(missing)).toMatch(/no session "no-such-session"/);
    const broken = await call('save_session', { transcript: { messages: 'not a list' } });
    expect(broken.isError).toBe(true);
    expect(textOf(broken)).not.toContain(root);
    const good = await call('list_sessions', {});
    expect(good.isError).toBeFalsy();
  }, 120_000);

  it('a save waits while another process holds the write lock, then goes through; reads do not wait', async () => {
    const release = await acquireWriteLock(dataDir, { waitMs: 10_000 });
    let releasedAt = 0;
    const saving = call('save_session', { transcript: { session_id: 'while-locked', messages: [{ role: 'user', content: 'Saved while the app was writing.' }] } }).then((r) => ({ r, at: Date.now() }));
    // Reads are served meanwhile.
    const listed = await call('list_sessions', {});
    expect(listed.isError).toBeFalsy();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    releasedAt = Date.now();
    await release();
    const { r, at } = await saving;
    expect(r.isError).toBeFalsy();
    expect(at).toBeGreaterThanOrEqual(releasedAt);
    expect(r.structuredContent?.reports).toEqual([expect.objectContaining({ sessionId: 'while-locked', new: 1 })]);
  }, 120_000);

  it('keeps stdout for the protocol: diagnostics went to stderr', () => {
    expect(stderr).toMatch(/MCP server ready on stdio/);
  });
});

describe('connecting an assistant', () => {
  it('the Claude Desktop configuration that Settings shows starts a server on the app\'s store', async () => {
    const host = new MemoryHost({ dataDir, modelsDir: TEST_MODELS_DIR, cliLauncher: { command: process.execPath, args: [BIN] } });
    try {
      const { mcpServer } = await host.handlers['settings:get']({});
      expect(mcpServer).not.toBeNull();
      const entry = (JSON.parse(claudeDesktopConfig(mcpServer!)) as { mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }> }).mcpServers['session-memory']!;
      expect(entry.args.slice(-3)).toEqual(['--data', dataDir, 'mcp']);
      expect(claudeCodeCommand(mcpServer!)).toMatch(/^claude mcp add --scope user session-memory -e SESSION_MEMORY_MODELS_DIR=\S+ -- /);
      // As Claude Desktop would: the command, its args and env, nothing else from this process.
      const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: { PATH: process.env.PATH ?? '', ...entry.env, SESSION_MEMORY_MODEL: 'use-lite-en' }, stderr: 'pipe' });
      const assistant = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
      await assistant.connect(transport);
      try {
        const listed = (await assistant.callTool({ name: 'list_sessions', arguments: {} })) as ToolResult;
        expect((listed.structuredContent?.sessions as Array<{ sessionId: string }>).map((s) => s.sessionId)).toContain('trip-planning');
      } finally {
        await assistant.close();
      }
    } finally {
      await host.close();
    }
  }, 120_000);

  it('the packaged app\'s CLI bundle serves the same tools, embedding with its unpacked worker', async () => {
    const built = spawnSync(process.execPath, ['scripts/build-electron.mjs'], { cwd: REPO, encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(REPO, 'dist-electron', 'cli.cjs'), '--data', dataDir, 'mcp'], env: cliEnv() as Record<string, string>, stderr: 'pipe' });
    const assistant = new Client({ name: 'packaged', version: '1.0.0' });
    await assistant.connect(transport);
    try {
      const found = (await assistant.callTool({ name: 'search_memory', arguments: { query: 'budget', limit: 2 } })) as ToolResult;
      expect(found.isError).toBeFalsy();
      expect((found.structuredContent?.results as unknown[]).length).toBeGreaterThan(0);
    } finally {
      await assistant.close();
    }
  }, 120_000);
});
