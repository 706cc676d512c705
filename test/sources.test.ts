import { describe, expect, it } from 'vitest';
import { promises as fs, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { SaveReport, SessionInput } from '../shared/domain.js';
import { SOURCE_CATALOGUE } from '../electron/sources/catalogue.js';
import { SourceCursors } from '../electron/sources/cursors.js';
import { discoverSources, sourceRoots } from '../electron/sources/discover.js';
import { askToYield, handOff, handoffAddress, runtimeFolder, serveHandoff, TOKEN_FILE } from '../electron/sources/handoff.js';
import { syncSources } from '../electron/sources/sync.js';
import { scratchDirs } from './helpers/engine.js';

const scratch = scratchDirs('sm-sources-');
const FIXTURES = path.resolve(__dirname, 'fixtures/import');
const CODEX_ROLLOUT = 'rollout-2026-12-04T18-52-32-01a24266-a1e5-7ed0-9ba7-ee0750560bcf.jsonl';

function placesOf(options: Parameters<typeof sourceRoots>[0]): Record<string, string> {
  return Object.fromEntries(sourceRoots(options).map((s) => [s.id, s.root.path]));
}

/** A HOME with Claude Code's projects (a session and its sub-agent), OpenClaw's legacy sessions and a Codex rollout. */
async function machine(): Promise<string> {
  const home = scratch();
  const project = path.join(home, '.claude', 'projects', '-home-ana-project');
  await fs.cp(path.join(FIXTURES, 'claude-code'), project, { recursive: true });
  await fs.cp(path.join(FIXTURES, 'openclaw', 'sessions'), path.join(home, '.openclaw', 'agents', 'main', 'sessions'), { recursive: true });
  await fs.mkdir(path.join(home, '.codex', 'sessions', '2026', '12', '04'), { recursive: true });
  await fs.copyFile(path.join(FIXTURES, 'codex', 'home', 'sessions', '2026', '12', '04', CODEX_ROLLOUT), path.join(home, '.codex', 'sessions', '2026', '12', '04', CODEX_ROLLOUT));
  return home;
}

/** An engine double that records what it is asked to save. */
function recordingEngine(fail = false) {
  const saved: SessionInput[] = [];
  return {
    saved,
    engine: async () => ({
      save: async (session: SessionInput): Promise<SaveReport> => {
        if (fail) throw new Error('disk full');
        saved.push(session);
        return { sessionId: session.sessionId, total: session.messages.length, new: session.messages.length } as SaveReport;
      },
    }),
  };
}

describe('the sources catalogue', () => {
  it('names each tool\'s places on Linux, macOS and Windows, and honours its own variable', () => {
    const linux = placesOf({ env: {}, platform: 'linux', home: '/home/ana' });
    expect(linux).toMatchObject({
      'claude-code': '/home/ana/.claude',
      openclaw: '/home/ana/.openclaw',
      'openclaw-clawdbot': '/home/ana/.clawdbot',
      'openclaw-moltbot': '/home/ana/.moltbot',
      codex: '/home/ana/.codex',
      'gemini-cli': '/home/ana/.gemini',
      'qwen-code': '/home/ana/.qwen',
      'copilot-cli': '/home/ana/.copilot',
      continue: '/home/ana/.continue',
      cline: '/home/ana/.config/Code/User/globalStorage/saoudrizwan.claude-dev',
      'roo-code-cursor': '/home/ana/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline',
      'kilo-code-vscodium': '/home/ana/.config/VSCodium/User/globalStorage/kilocode.kilo-code',
      'cline-cli': '/home/ana/.cline/data/sessions',
      opencode: '/home/ana/.local/share/opencode',
      'kilo-cli': '/home/ana/.local/share/kilo',
      cursor: '/home/ana/.config/Cursor/User/globalStorage',
    });
    const mac = placesOf({ env: {}, platform: 'darwin', home: '/Users/ana' });
    expect(mac.cline).toBe('/Users/ana/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev');
    expect(mac.opencode).toBe('/Users/ana/.local/share/opencode');
    const windows = placesOf({ env: { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' }, platform: 'win32', home: 'C:\\Users\\ana' });
    expect(windows.codex).toBe('C:\\Users\\ana\\.codex');
    expect(windows['roo-code']).toBe('C:\\Users\\ana\\AppData\\Roaming\\Code\\User\\globalStorage\\rooveterinaryinc.roo-cline');
    expect(windows.cursor).toBe('C:\\Users\\ana\\AppData\\Roaming\\Cursor\\User\\globalStorage');
    expect(windows['cline-cli']).toBe('C:\\Users\\ana\\.cline\\data\\sessions');

    const moved = placesOf({
      env: { CLAUDE_CONFIG_DIR: '/data/claude', OPENCLAW_STATE_DIR: '/data/openclaw', CODEX_HOME: '/data/codex', GEMINI_CLI_HOME: '/data/g', CONTINUE_GLOBAL_DIR: '/data/continue', XDG_DATA_HOME: '/data/share', XDG_CONFIG_HOME: '/data/config' },
      platform: 'linux',
      home: '/home/ana',
    });
    // Cline's CLI resolves its sessions folder from the most specific of its three variables.
    expect(placesOf({ env: { CLINE_DIR: '/data/cline' }, platform: 'linux', home: '/home/ana' })['cline-cli']).toBe('/data/cline/data/sessions');
    expect(placesOf({ env: { CLINE_DIR: '/data/cline', CLINE_DATA_DIR: '/data/cline-data' }, platform: 'linux', home: '/home/ana' })['cline-cli']).toBe('/data/cline-data/sessions');
    expect(placesOf({ env: { CLINE_DATA_DIR: '/data/cline-data', CLINE_SESSION_DATA_DIR: '/data/cline-sessions' }, platform: 'linux', home: '/home/ana' })['cline-cli']).toBe('/data/cline-sessions');
    expect(moved).toMatchObject({ 'claude-code': '/data/claude', openclaw: '/data/openclaw', codex: '/data/codex', 'gemini-cli': '/data/g/.gemini', continue: '/data/continue', opencode: '/data/share/opencode', cline: '/data/config/Code/User/globalStorage/saoudrizwan.claude-dev' });
    // Every tool of the catalogue is there, each with something to pick.
    expect(SOURCE_CATALOGUE.map((k) => k.id)).toEqual(['claude-code', 'openclaw', 'codex', 'gemini-cli', 'qwen-code', 'copilot-cli', 'antigravity', 'continue', 'cline', 'roo-code', 'kilo-code', 'cline-cli', 'vscode-chat', 'aider', 'opencode', 'kilo-cli', 'cursor', 'lmstudio', 'jan']);
    expect(placesOf({ env: {}, platform: 'linux', home: '/h', personFolders: { aider: ['/work/app'] } })['aider-1']).toBe('/work/app');
  });

  it('covers every place each tool writes to, and the files its variables name', () => {
    const picks = (options: Parameters<typeof sourceRoots>[0]) =>
      Object.fromEntries(sourceRoots(options).map((s) => [s.id, { path: s.root.path, globs: (s.root.picks ?? s.kind.picks).flatMap((p) => p.globs) }]));
    const linux = picks({ env: {}, platform: 'linux', home: '/home/ana' });
    // Codex's archived sessions and the first CLI's JSON files; Gemini CLI's sub-agents' chats beside their parent's.
    expect(linux.codex!.globs).toEqual(['sessions/**/rollout-*.jsonl', 'sessions/**/rollout-*.jsonl.zst', 'sessions/rollout-*.json', 'archived_sessions/**/rollout-*.jsonl', 'archived_sessions/**/rollout-*.jsonl.zst']);
    expect(linux['gemini-cli']!.globs).toContain('tmp/*/chats/*/*.jsonl');
    // Cursor's workspaces' databases, on each system.
    expect(linux['cursor-workspaces']).toEqual({ path: '/home/ana/.config/Cursor/User/workspaceStorage', globs: ['*/state.vscdb'] });
    expect(picks({ env: {}, platform: 'darwin', home: '/Users/ana' })['cursor-workspaces']!.path).toBe('/Users/ana/Library/Application Support/Cursor/User/workspaceStorage');
    expect(picks({ env: { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' }, platform: 'win32', home: 'C:\\Users\\ana' })['cursor-workspaces']!.path).toBe('C:\\Users\\ana\\AppData\\Roaming\\Cursor\\User\\workspaceStorage');
    // Windows without APPDATA set still finds the roaming folder; Cline in Windsurf under XDG_CONFIG_HOME.
    expect(placesOf({ env: {}, platform: 'win32', home: 'C:\\Users\\ana' }).cline).toBe('C:\\Users\\ana\\AppData\\Roaming\\Code\\User\\globalStorage\\saoudrizwan.claude-dev');
    expect(placesOf({ env: { XDG_CONFIG_HOME: '/data/config' }, platform: 'linux', home: '/home/ana' })['cline-windsurf']).toBe('/data/config/Windsurf/User/globalStorage/saoudrizwan.claude-dev');
    expect(placesOf({ env: {}, platform: 'darwin', home: '/Users/ana' })).toMatchObject({ continue: '/Users/ana/.continue', codex: '/Users/ana/.codex', 'gemini-cli': '/Users/ana/.gemini' });
    expect(placesOf({ env: { GEMINI_CLI_HOME: 'D:\\agents' }, platform: 'win32', home: 'C:\\Users\\ana' })['gemini-cli']).toBe('D:\\agents\\.gemini');
    // Qwen Code's QWEN_HOME moves its whole folder; QWEN_RUNTIME_DIR, where its chats are written, wins over it.
    expect(placesOf({ env: {}, platform: 'win32', home: 'C:\\Users\\ana' })['qwen-code']).toBe('C:\\Users\\ana\\.qwen');
    expect(placesOf({ env: { QWEN_HOME: '/data/qwen' }, platform: 'linux', home: '/home/ana' })['qwen-code']).toBe('/data/qwen');
    expect(placesOf({ env: { QWEN_HOME: '/data/qwen', QWEN_RUNTIME_DIR: '/scratch/qwen' }, platform: 'linux', home: '/home/ana' })['qwen-code']).toBe('/scratch/qwen');
    expect(linux['qwen-code']!.globs).toEqual(['projects/*/chats/*.jsonl']);
    expect(linux['copilot-cli']!.globs).toEqual(['session-state/*/events.jsonl']);
    expect(placesOf({ env: { COPILOT_HOME: '/data/copilot' }, platform: 'linux', home: '/home/ana' })['copilot-cli']).toBe('/data/copilot');
    expect(placesOf({ env: {}, platform: 'win32', home: 'C:\\Users\\ana' })['copilot-cli']).toBe('C:\\Users\\ana\\.copilot');
    // Antigravity: the IDE's folder, the one before it was renamed, and its command-line agent's, each under ~/.gemini.
    expect(Object.entries(placesOf({ env: {}, platform: 'linux', home: '/home/ana' })).filter(([id]) => id.startsWith('antigravity'))).toEqual([
      ['antigravity', '/home/ana/.gemini/antigravity-ide'],
      ['antigravity-legacy', '/home/ana/.gemini/antigravity'],
      ['antigravity-cli', '/home/ana/.gemini/antigravity-cli'],
    ]);
    expect(placesOf({ env: {}, platform: 'win32', home: 'C:\\Users\\ana' }).antigravity).toBe('C:\\Users\\ana\\.gemini\\antigravity-ide');
    expect(placesOf({ env: {}, platform: 'win32', home: 'C:\\Users\\ana' })).toMatchObject({ continue: 'C:\\Users\\ana\\.continue', openclaw: 'C:\\Users\\ana\\.openclaw', opencode: 'C:\\Users\\ana\\.local\\share\\opencode' });

    // VS Code's own chat: each workspace's sessions and those of windows without a folder, in VS Code, Insiders and VSCodium.
    expect(linux['vscode-chat']).toEqual({ path: '/home/ana/.config/Code/User', globs: ['workspaceStorage/*/chatSessions/*.json', 'workspaceStorage/*/chatSessions/*.jsonl', 'globalStorage/emptyWindowChatSessions/*.json', 'globalStorage/emptyWindowChatSessions/*.jsonl'] });
    expect(Object.keys(linux).filter((id) => id.startsWith('vscode-chat'))).toEqual(['vscode-chat', 'vscode-chat-insiders', 'vscode-chat-vscodium']);
    expect(placesOf({ env: {}, platform: 'darwin', home: '/Users/ana' })['vscode-chat-insiders']).toBe('/Users/ana/Library/Application Support/Code - Insiders/User');
    expect(placesOf({ env: { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' }, platform: 'win32', home: 'C:\\Users\\ana' })['vscode-chat-vscodium']).toBe('C:\\Users\\ana\\AppData\\Roaming\\VSCodium\\User');

    // aider: the home folder's log, and the file AIDER_CHAT_HISTORY_FILE names.
    expect(linux.aider).toEqual({ path: '/home/ana', globs: ['.aider.chat.history.md'] });
    expect(picks({ env: { AIDER_CHAT_HISTORY_FILE: 'D:\\notes\\aider [work].md' }, platform: 'win32', home: 'C:\\Users\\ana' })['aider-file']).toEqual({ path: 'D:\\notes', globs: ['aider \\[work\\].md'] });
    // opencode: OPENCODE_DB, absolute or relative to its data folder.
    expect(picks({ env: { OPENCODE_DB: 'work.db' }, platform: 'win32', home: 'C:\\Users\\mika' })['opencode-db']).toEqual({ path: 'C:\\Users\\mika\\.local\\share\\opencode', globs: ['work.db'] });
    expect(picks({ env: { OPENCODE_DB: '/srv/opencode.db' }, platform: 'linux', home: '/home/mika' })['opencode-db']).toEqual({ path: '/srv', globs: ['opencode.db'] });
    expect(linux['opencode-db']).toBeUndefined();
    // Kilo's CLI: its own folder and KILO_DB, as opencode's.
    expect(picks({ env: { XDG_DATA_HOME: '/data/share' }, platform: 'linux', home: '/home/mika' })['kilo-cli']).toEqual({ path: '/data/share/kilo', globs: ['kilo.db', 'kilo-*.db'] });
    expect(picks({ env: { KILO_DB: '/srv/kilo.db' }, platform: 'linux', home: '/home/mika' })['kilo-cli-db']).toEqual({ path: '/srv', globs: ['kilo.db'] });
    // LM Studio: its home folder since 0.3, and the one of earlier installs, on every system.
    expect(linux.lmstudio).toEqual({ path: '/home/ana/.lmstudio', globs: ['conversations/**/*.conversation.json'] });
    expect(linux['lmstudio-cache']!.path).toBe('/home/ana/.cache/lm-studio');
    expect(placesOf({ env: {}, platform: 'win32', home: 'C:\\Users\\ana' }).lmstudio).toBe('C:\\Users\\ana\\.lmstudio');
    // Jan: the system's data folder since 0.6, Linux's settings folder before it, the first versions' ~/jan; JAN_DATA_FOLDER first.
    expect(Object.entries(placesOf({ env: {}, platform: 'linux', home: '/home/ana' })).filter(([id]) => id.startsWith('jan'))).toEqual([
      ['jan', '/home/ana/.local/share/Jan/data'],
      ['jan-legacy', '/home/ana/.config/Jan/data'],
      ['jan-home', '/home/ana/jan'],
    ]);
    expect(linux.jan!.globs).toEqual(['threads/*/messages.jsonl']);
    // A home or data folder moved in the app's settings is added by the person, as aider's project folders are.
    expect(picks({ env: {}, platform: 'linux', home: '/home/ana', personFolders: { jan: ['/mnt/big/jan-data'], lmstudio: ['/mnt/big/lmstudio'] } })).toMatchObject({ 'jan-1': { path: '/mnt/big/jan-data', globs: ['threads/*/messages.jsonl'] }, 'lmstudio-1': { path: '/mnt/big/lmstudio', globs: ['conversations/**/*.conversation.json'] } });
    expect(placesOf({ env: { XDG_DATA_HOME: '/data/share', XDG_CONFIG_HOME: '/data/config' }, platform: 'linux', home: '/home/ana' })).toMatchObject({ jan: '/data/share/Jan/data', 'jan-legacy': '/data/config/Jan/data' });
    expect(placesOf({ env: {}, platform: 'darwin', home: '/Users/ana' }).jan).toBe('/Users/ana/Library/Application Support/Jan/data');
    expect(placesOf({ env: { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' }, platform: 'win32', home: 'C:\\Users\\ana' })).toMatchObject({ jan: 'C:\\Users\\ana\\AppData\\Roaming\\Jan\\data', 'jan-home': 'C:\\Users\\ana\\jan' });
    expect(Object.entries(placesOf({ env: { JAN_DATA_FOLDER: 'D:\\Jan' }, platform: 'win32', home: 'C:\\Users\\ana' })).filter(([id]) => id.startsWith('jan'))).toEqual([
      ['jan', 'D:\\Jan'],
      ['jan-default', 'C:\\Users\\ana\\AppData\\Roaming\\Jan\\data'],
      ['jan-home', 'C:\\Users\\ana\\jan'],
    ]);
    // OpenClaw: OPENCLAW_STATE_DIR first, the standard folder still looked at, then the older names.
    expect(Object.entries(placesOf({ env: { OPENCLAW_STATE_DIR: '/srv/openclaw' }, platform: 'linux', home: '/home/ana' })).filter(([id]) => id.startsWith('openclaw'))).toEqual([
      ['openclaw', '/srv/openclaw'],
      ['openclaw-default', '/home/ana/.openclaw'],
      ['openclaw-clawdbot', '/home/ana/.clawdbot'],
      ['openclaw-moltbot', '/home/ana/.moltbot'],
    ]);
  });

  it('follows a LM Studio home and a Jan data folder that the apps\' own files name', async () => {
    const home = scratch();
    const ids = (env: NodeJS.ProcessEnv = {}) => Object.fromEntries(sourceRoots({ env, platform: 'linux', home }).filter((s) => /^(lmstudio|jan)/.test(s.id)).map((s) => [s.id, s.root.path]));
    // Neither file written yet: the default places only.
    expect(Object.keys(ids())).toEqual(['lmstudio', 'lmstudio-cache', 'jan', 'jan-legacy', 'jan-home']);
    await fs.writeFile(path.join(home, '.lmstudio-home-pointer'), '/mnt/big/lm-studio-home\n');
    await fs.mkdir(path.join(home, '.local', 'share', 'Jan'), { recursive: true });
    await fs.writeFile(path.join(home, '.local', 'share', 'Jan', 'settings.json'), JSON.stringify({ data_folder: '/mnt/big/jan-data', quick_ask: false }));
    expect(ids()).toMatchObject({ 'lmstudio-pointer': '/mnt/big/lm-studio-home', 'jan-settings': '/mnt/big/jan-data' });
    // Files naming a default place (LM Studio writes its pointer anyway), or nothing usable, add no source.
    await fs.writeFile(path.join(home, '.lmstudio-home-pointer'), path.join(home, '.lmstudio'));
    await fs.writeFile(path.join(home, '.local', 'share', 'Jan', 'settings.json'), '{"data_folder": "./data"');
    expect(Object.keys(ids())).toEqual(['lmstudio', 'lmstudio-cache', 'jan', 'jan-legacy', 'jan-home']);
    await fs.writeFile(path.join(home, '.local', 'share', 'Jan', 'settings.json'), JSON.stringify({ data_folder: '/srv/jan' }));
    expect(Object.keys(ids({ JAN_DATA_FOLDER: '/srv/jan' }))).toEqual(['lmstudio', 'lmstudio-cache', 'jan', 'jan-default', 'jan-legacy', 'jan-home']);
  });

  it('finds what exists under HOME, counting sessions without reading them', async () => {
    const home = await machine();
    const found = await discoverSources({ env: {}, home, platform: process.platform });
    expect(found.map((s) => [s.id, s.sessions])).toEqual([
      ['claude-code', 2],
      ['openclaw', 2],
      ['codex', 1],
    ]);
    expect(found[0]!.lastModified).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('picks each Antigravity conversation\'s full log, and its cut copy only where there is no full one', async () => {
    const home = scratch();
    await fs.cp(path.join(__dirname, 'fixtures', 'import', 'antigravity'), path.join(home, '.gemini', 'antigravity-ide'), { recursive: true });
    const [found] = await discoverSources({ env: {}, home, platform: process.platform, catalogue: SOURCE_CATALOGUE.filter((k) => k.id === 'antigravity') });
    const logs = (id: string) => path.join(home, '.gemini', 'antigravity-ide', 'brain', id, '.system_generated', 'logs');
    expect(found).toMatchObject({ id: 'antigravity', sessions: 2 });
    expect(found!.picks.flatMap((p) => p.files.map((f) => f.path))).toEqual([
      path.join(logs('6f0b2c1e-8d4a-4b7e-9c3f-2a5d7e9b1c40'), 'transcript_full.jsonl'),
      path.join(logs('b81e4d27-3c9f-4a16-8e5b-d0c7f2a94e63'), 'transcript.jsonl'),
    ]);
    // Both logs of the first conversation are there: the cut copy is passed over.
    await fs.access(path.join(logs('6f0b2c1e-8d4a-4b7e-9c3f-2a5d7e9b1c40'), 'transcript.jsonl'));
  });
});

describe('syncing sources', () => {
  it('saves each file once, reads nothing unchanged, and advances a cursor only after its save', async () => {
    const home = await machine();
    const data = scratch();
    const sources = await discoverSources({ env: {}, home, platform: process.platform });
    const unsupported: string[] = [];

    // A save that fails leaves the cursor where it was: the next sync tries the file again.
    const failing = recordingEngine(true);
    const errors: string[] = [];
    await syncSources(sources, { cursors: await SourceCursors.load(data), engine: failing.engine, onReport: () => {}, onError: (_s, _f, m) => errors.push(m) });
    expect(errors.length).toBeGreaterThan(0);

    const first = recordingEngine();
    const results = await syncSources(sources, { cursors: await SourceCursors.load(data), engine: first.engine, onReport: () => {}, onError: (_s, _f, m) => errors.push(m), onUnsupported: (_s, m) => unsupported.push(m) });
    expect(first.saved.map((s) => s.sessionId).sort()).toEqual(['01a24266-a1e5-7ed0-9ba7-ee0750560bcf', '1e2d3c4b-0000-4aaa-8bbb-123456789abc', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d:agent-a7f3e9c1', '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6']);
    expect(results.find((r) => r.id === 'codex')).toMatchObject({ filesSaved: 1, sessionsSaved: 1 });
    expect(unsupported).toEqual([]);

    // A format that does not import yet is listed and said once, left unread.
    const pending = SOURCE_CATALOGUE.map((k) => (k.id === 'codex' ? { ...k, picks: k.picks.map((p) => ({ ...p, imports: false })) } : k));
    const later = recordingEngine();
    const withPending = await syncSources(await discoverSources({ env: {}, home, platform: process.platform, catalogue: pending }), { cursors: await SourceCursors.load(scratch()), engine: later.engine, onReport: () => {}, onError: () => {}, onUnsupported: (_s, m) => unsupported.push(m) });
    expect(withPending.find((r) => r.id === 'codex')).toMatchObject({ filesSaved: 0, unsupported: expect.stringMatching(/Codex CLI.*does not import yet/) });
    expect(unsupported).toHaveLength(1);
    expect(later.saved.some((s) => s.sessionId.startsWith('01a24266'))).toBe(false);

    // Nothing new: the engine is not even opened.
    let opened = false;
    await syncSources(sources, { cursors: await SourceCursors.load(data), engine: async () => ((opened = true), first.engine()), onReport: () => {}, onError: () => {} });
    expect(opened).toBe(false);
  });
  it('passes over the file Gemini CLI starts at a resume and leaves holding only its own context', async () => {
    // `gemini --resume latest -p …` in another minute than the chat's file was named for: Gemini CLI 0.61
    // writes a new `session-<minute>-<id>.jsonl` with the header and its session context, then goes on
    // in the chat's own file. The left file holds no message of the person's or the model's.
    const home = scratch();
    const chats = path.join(home, '.gemini', 'tmp', 'work', 'chats');
    await fs.mkdir(chats, { recursive: true });
    const chat = 'session-2026-12-04T18-20-80635437.jsonl';
    await fs.copyFile(path.join(FIXTURES, 'gemini-cli', 'home', 'tmp', 'work', 'chats', chat), path.join(chats, chat));
    const header = { sessionId: '80635437-eb46-4542-bb1f-01ef2dcb525d', projectHash: '68aca3595184568a339b2ce016661b8095646598b311e74d24b21458e274fcd4', startTime: '2026-12-04T18:21:02.120Z', lastUpdated: '2026-12-04T18:21:02.120Z', kind: 'main' };
    const context = { id: 'd04923d38bb0f6017037e74183378ef4', timestamp: '2026-12-04T18:21:02.120Z', type: 'user', content: [{ text: "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Friday, December 4, 2026 (formatted according to the user's locale).\nMy operating system is: linux\n</session_context>" }] };
    await fs.writeFile(path.join(chats, 'session-2026-12-04T18-21-80635437.jsonl'), `${JSON.stringify(header)}\n${JSON.stringify({ $set: { messages: [context], lastUpdated: '2026-12-04T18:21:02.120Z' } })}\n`);

    const sources = await discoverSources({ env: {}, home, platform: process.platform, catalogue: SOURCE_CATALOGUE.filter((k) => k.id === 'gemini-cli') });
    const recording = recordingEngine();
    const errors: string[] = [];
    const [result] = await syncSources(sources, { cursors: await SourceCursors.load(scratch()), engine: recording.engine, onReport: () => {}, onError: (_s, _f, m) => errors.push(m) });
    expect(errors).toEqual([]);
    expect(result).toMatchObject({ id: 'gemini-cli', errors: [] });
    expect(recording.saved.map((s) => [s.sessionId, s.messages.length])).toEqual([['80635437-eb46-4542-bb1f-01ef2dcb525d', 4]]);
  });
});

describe('handing a save to the running process', () => {
  it('listens on a socket only its owner can open, refuses a client without the token, and answers one with it', async () => {
    const data = scratch();
    const asked: string[] = [];
    const server = await serveHandoff(data, async (request, reply) => {
      asked.push(request.file);
      reply({ report: { sessionId: 'abc', new: 2 } });
      return true;
    });
    expect(server).not.toBeNull();
    try {
      if (process.platform !== 'win32') {
        expect(statSync(server!.address).mode & 0o777).toBe(0o600);
        expect(statSync(path.join(data, TOKEN_FILE)).mode & 0o777).toBe(0o600);
      }
      // A second process finds it running and does not take over.
      expect(await serveHandoff(data, async () => true)).toBeNull();

      const intruder = await new Promise<string>((resolve) => {
        const socket = net.connect(server!.address, () => socket.write(`${JSON.stringify({ token: 'guess' })}\n${JSON.stringify({ op: 'save', file: '/etc/passwd' })}\n`));
        let got = '';
        socket.on('data', (d: Buffer) => (got += d.toString()));
        socket.on('close', () => resolve(got));
        socket.on('error', () => resolve(got));
      });
      expect(intruder).toBe('');
      expect(asked).toEqual([]);

      const replies: unknown[] = [];
      expect(await handOff(data, { op: 'save', file: '/tmp/log.jsonl' }, (r) => replies.push(r))).toBe('done');
      expect(asked).toEqual(['/tmp/log.jsonl']);
      expect(replies).toEqual([{ report: { sessionId: 'abc', new: 2 } }]);
    } finally {
      await server!.close();
    }
    expect(await handOff(data, { op: 'save', file: '/tmp/log.jsonl' }, () => {})).toBe('no-server');
  });

  it('a hooks\' saver gives way to a server that takes over; an app or sync --watch does not, and keeps serving', async () => {
    const data = scratch();
    const saved: string[] = [];
    let gaveWay = 0;
    const saver = await serveHandoff(data, async (request) => (saved.push(`saver ${request.file}`), true), { onYield: () => gaveWay++ });
    expect(saver).not.toBeNull();
    const saverToken = await fs.readFile(path.join(data, TOKEN_FILE), 'utf8');
    // Only a taker asks: a server without takeOver leaves the saver serving.
    expect(await serveHandoff(data, async () => true)).toBeNull();
    expect(gaveWay).toBe(0);
    // The app asks; the saver agrees and closes (as hookSaver.ts does once told), the app serves.
    const closing = new Promise<void>((resolve) => {
      const wait = setInterval(() => gaveWay > 0 && (clearInterval(wait), resolve(saver!.close())), 10);
    });
    const app = await serveHandoff(data, async (request) => (saved.push(`app ${request.file}`), true), { takeOver: true });
    await closing;
    expect(app).not.toBeNull();
    try {
      expect(gaveWay).toBe(1);
      // The app's token, not removed by the saver's close, and hooks reach the app.
      const appToken = await fs.readFile(path.join(data, TOKEN_FILE), 'utf8');
      expect(appToken).not.toBe(saverToken);
      expect(app!.token).toBe(appToken);
      expect(await handOff(data, { op: 'save', file: '/tmp/turn.jsonl' }, () => {})).toBe('done');
      expect(saved).toEqual(['app /tmp/turn.jsonl']);
      // The app does not give way: a second taker finds it serving and serves nothing.
      expect(await askToYield(data)).toBe(false);
      expect(await serveHandoff(data, async () => true, { takeOver: true })).toBeNull();
      expect(await handOff(data, { op: 'save', file: '/tmp/next.jsonl' }, () => {})).toBe('done');
      expect(saved).toEqual(['app /tmp/turn.jsonl', 'app /tmp/next.jsonl']);
    } finally {
      await app!.close();
    }
    expect(await askToYield(data)).toBe(false);
  });

  it('listens for a data folder whose path is too long for a socket in it (macOS\'s Application Support, a shared store\'s folder)', async () => {
    const data = path.join(scratch(), 'Library', 'Application Support', 'Session Memory', 'stores', `team-memory-${'0123456789abcdef'.repeat(4)}`);
    expect(Buffer.byteLength(path.join(data, 'sync.sock'))).toBeGreaterThan(104);
    const server = await serveHandoff(data, async (_request, reply) => {
      reply({ report: { sessionId: 'abc', new: 1 } });
      return true;
    });
    expect(server).not.toBeNull();
    try {
      expect(Buffer.byteLength(server!.address)).toBeLessThanOrEqual(100);
      if (process.platform !== 'win32') {
        // In this user's own runtime folder, which no one else may enter.
        expect(statSync(path.dirname(server!.address)).mode & 0o777).toBe(0o700);
        expect(statSync(server!.address).mode & 0o777).toBe(0o600);
      }
      const replies: unknown[] = [];
      expect(await handOff(data, { op: 'save', file: '/tmp/log.jsonl' }, (r) => replies.push(r))).toBe('done');
      expect(replies).toEqual([{ report: { sessionId: 'abc', new: 1 } }]);
    } finally {
      await server!.close();
    }
  });

  it('names each data folder\'s socket apart, in $XDG_RUNTIME_DIR where the system keeps one, else in the temporary folder', () => {
    expect(handoffAddress('/data/a', 'linux', runtimeFolder({ XDG_RUNTIME_DIR: '/run/user/1000' }))).toMatch(/^\/run\/user\/1000\/session-memory\/[0-9a-f]{16}\.sock$/);
    expect(handoffAddress('/data/a', 'linux', '/r')).not.toBe(handoffAddress('/data/b', 'linux', '/r'));
    expect(runtimeFolder({})).toBe(path.join(os.tmpdir(), `session-memory-${process.getuid?.() ?? os.userInfo().username}`));
  });
});
