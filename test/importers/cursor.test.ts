import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../electron/importers/index.js';
import { fixture, readAll, sessionsOf, tempDir } from './helpers.js';

/** Real chats of Cursor 2024 (cut down, MIT) and the 2025 layout with our own text: see PROVENANCE.md. */
const WORKSPACE_2024 = fixture('cursor', 'workspace-2024', 'state.vscdb');
const GLOBAL_2025 = fixture('cursor', 'global-2025', 'state.vscdb');
const COMPOSER = '5b0e2c1a-8f3d-4e6a-9c27-1d4b7a9e3f60';

describe("Cursor's state.vscdb", () => {
  it('reads the chats of the 2025 layout in their own order, under their own ids and names; an unused chat is not one', async () => {
    const sessions = await sessionsOf(GLOBAL_2025);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ sessionId: COMPOSER, title: 'pnpm frozen lockfile', source: 'cursor' });
    expect(sessions[0]!.messages.map((message) => [message.msgId, message.role, message.content.slice(0, 30), message.timestamp])).toEqual([
      ['b1f0c2a4-0d1e-4c55-8a61-3e2f9b7c1a01', 'user', 'What does the --frozen-lockfil', '2026-01-02T09:59:50.000Z'],
      ['b1f0c2a4-0d1e-4c55-8a61-3e2f9b7c1a02', 'assistant', 'It makes pnpm install fail ins', '2026-01-02T10:00:01.500Z'],
      ['b1f0c2a4-0d1e-4c55-8a61-3e2f9b7c1a03', 'user', 'Is it on by default in CI?', undefined],
      ['b1f0c2a4-0d1e-4c55-8a61-3e2f9b7c1a04', 'assistant', 'Yes: when pnpm detects a CI en', '2026-01-02T10:00:30.500Z'],
    ]);
  });

  it("reads a 2024 workspace's composers and chat panel tabs", async () => {
    const sessions = await sessionsOf(WORKSPACE_2024);
    expect(sessions.map((session) => [session.sessionId, session.title, session.messages.map((message) => message.role).join(' ')])).toEqual([
      ['cf2ead9f-6bf9-41d0-829e-a7fcae7ddb5a', 'create a dedicated page for the copilot icon from the', 'user assistant user assistant'],
      ['7be608e0-b251-4d1c-ac8c-2b14ef2cdf55', 'why did you  change the color of the header for each page. keep the one i gave earlier', 'user assistant'],
      ['55076a5c-1876-426b-90ff-36a3daa69fd7', 'Resolving Module Not Found Error in Code', 'user assistant'],
      ['f73a2965-5b2c-403b-a625-d347ab7107a1', 'Running a Local Python Server via CLI', 'user assistant'],
    ]);
    expect(sessions[3]!.messages[0]!.content).toBe('how to run a local server with python in a simple cli command');
    expect(sessions[0]!.messages[0]!.timestamp).toBe('2024-11-16T22:52:17.671Z');
  });

  it('is recognised by content and found in the workspace folders, read while Cursor holds a write lock', async () => {
    expect(detectFormat(readFileSync(GLOBAL_2025))).toBe('cursor');
    expect(detectFormat(readFileSync(WORKSPACE_2024))).toBe('cursor');
    const workspaces = path.join(tempDir(), 'workspaceStorage');
    mkdirSync(path.join(workspaces, '0a1b2c'), { recursive: true });
    copyFileSync(WORKSPACE_2024, path.join(workspaces, '0a1b2c', 'state.vscdb'));
    const writer = new Database(path.join(workspaces, '0a1b2c', 'state.vscdb'));
    try {
      writer.pragma('journal_mode = WAL');
      writer.exec('BEGIN IMMEDIATE');
      writer.prepare("INSERT INTO ItemTable VALUES ('workbench.panel.aichat', '{}')").run();
      const results = await readAll([workspaces]);
      expect(results.map((result) => ('format' in result ? [path.relative(workspaces, result.file), result.sessionCount] : result.error.message))).toEqual([[path.join('0a1b2c', 'state.vscdb'), 4]]);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('leaves out a chat whose message record is damaged, naming it', async () => {
    const file = path.join(tempDir(), 'state.vscdb');
    copyFileSync(GLOBAL_2025, file);
    const db = new Database(file);
    db.prepare("UPDATE cursorDiskKV SET value = '{\"_v\":3,' WHERE key = ?").run(`bubbleId:${COMPOSER}:b1f0c2a4-0d1e-4c55-8a61-3e2f9b7c1a03`);
    db.close();
    const [result] = await readAll([file]);
    expect(result && 'error' in result ? [result.error.code, result.error.problem] : result).toEqual([
      'empty',
      `no readable session (message b1f0c2a4-0d1e-4c55-8a61-3e2f9b7c1a03 of composer ${COMPOSER}: its data is not valid JSON)`,
    ]);
  });
});
