import { describe, expect, it } from 'vitest';
import { promises as fs, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { SaveReport, SessionInput } from '../shared/domain.js';
import { SOURCE_CATALOGUE } from '../electron/sources/catalogue.js';
import { SourceCursors } from '../electron/sources/cursors.js';
import { discoverSources, sourceRoots } from '../electron/sources/discover.js';
import { handOff, serveHandoff, TOKEN_FILE } from '../electron/sources/handoff.js';
import { syncSources } from '../electron/sources/sync.js';
import { scratchDirs } from './helpers/engine.js';

const scratch = scratchDirs('sm-sources-');
const FIXTURES = path.resolve(__dirname, 'fixtures/import');

function placesOf(options: Parameters<typeof sourceRoots>[0]): Record<string, string> {
  return Object.fromEntries(sourceRoots(options).map((s) => [s.id, s.root.path]));
}

/** A HOME with Claude Code's projects (a session and its sub-agent), OpenClaw's legacy sessions and a Codex rollout. */
async function machine(): Promise<string> {
  const home = scratch();
  const project = path.join(home, '.claude', 'projects', '-home-ana-project');
  await fs.cp(path.join(FIXTURES, 'claude-code'), project, { recursive: true });
  await fs.cp(path.join(FIXTURES, 'openclaw', 'sessions'), path.join(home, '.openclaw', 'agents', 'main', 'sessions'), { recursive: true });
  await fs.mkdir(path.join(home, '.codex', 'sessions', '2026', '11', '30'), { recursive: true });
  await fs.writeFile(path.join(home, '.codex', 'sessions', '2026', '11', '30', 'rollout-2026-11-30T10-00-00-abc.jsonl'), '{"timestamp":"2026-11-30T10:00:00Z","type":"session_meta","payload":{"id":"abc"}}\n');
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
      continue: '/home/ana/.continue',
      cline: '/home/ana/.config/Code/User/globalStorage/saoudrizwan.claude-dev',
      'roo-code-cursor': '/home/ana/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline',
      'kilo-code-vscodium': '/home/ana/.config/VSCodium/User/globalStorage/kilocode.kilo-code',
      opencode: '/home/ana/.local/share/opencode',
      cursor: '/home/ana/.config/Cursor/User/globalStorage',
    });
    const mac = placesOf({ env: {}, platform: 'darwin', home: '/Users/ana' });
    expect(mac.cline).toBe('/Users/ana/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev');
    expect(mac.opencode).toBe('/Users/ana/.local/share/opencode');
    const windows = placesOf({ env: { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' }, platform: 'win32', home: 'C:\\Users\\ana' });
    expect(windows.codex).toBe('C:\\Users\\ana\\.codex');
    expect(windows['roo-code']).toBe('C:\\Users\\ana\\AppData\\Roaming\\Code\\User\\globalStorage\\rooveterinaryinc.roo-cline');
    expect(windows.cursor).toBe('C:\\Users\\ana\\AppData\\Roaming\\Cursor\\User\\globalStorage');

    const moved = placesOf({
      env: { CLAUDE_CONFIG_DIR: '/data/claude', OPENCLAW_STATE_DIR: '/data/openclaw', CODEX_HOME: '/data/codex', GEMINI_CLI_HOME: '/data/g', CONTINUE_GLOBAL_DIR: '/data/continue', XDG_DATA_HOME: '/data/share', XDG_CONFIG_HOME: '/data/config' },
      platform: 'linux',
      home: '/home/ana',
    });
    expect(moved).toMatchObject({ 'claude-code': '/data/claude', openclaw: '/data/openclaw', codex: '/data/codex', 'gemini-cli': '/data/g/.gemini', continue: '/data/continue', opencode: '/data/share/opencode', cline: '/data/config/Code/User/globalStorage/saoudrizwan.claude-dev' });
    // Every tool of the catalogue is there, each with something to pick.
    expect(SOURCE_CATALOGUE.map((k) => k.id)).toEqual(['claude-code', 'openclaw', 'codex', 'gemini-cli', 'continue', 'cline', 'roo-code', 'kilo-code', 'aider', 'opencode', 'cursor']);
    expect(placesOf({ env: {}, platform: 'linux', home: '/h', personFolders: { aider: ['/work/app'] } })['aider-1']).toBe('/work/app');
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
    expect(first.saved.map((s) => s.sessionId).sort()).toEqual(['1e2d3c4b-0000-4aaa-8bbb-123456789abc', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d:agent-a7f3e9c1', '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6']);
    expect(results.find((r) => r.id === 'codex')).toMatchObject({ filesSaved: 0, unsupported: expect.stringMatching(/Codex CLI.*does not import yet/) });
    expect(unsupported).toHaveLength(1);

    // Nothing new: the engine is not even opened.
    let opened = false;
    await syncSources(sources, { cursors: await SourceCursors.load(data), engine: async () => ((opened = true), first.engine()), onReport: () => {}, onError: () => {} });
    expect(opened).toBe(false);
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
});
