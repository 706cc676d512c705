/**
 * VS Code's chat sessions as a source: found under each editor's `User` folder (XDG_CONFIG_HOME on
 * Linux; the places on macOS and Windows are computed in sources.test.ts), saved by `sync`, and a
 * change log that grows saved again for what it gained only.
 */
import { describe, expect, it } from 'vitest';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SaveReport } from '../shared/domain.js';
import { SourceCursors } from '../electron/sources/cursors.js';
import { discoverSources } from '../electron/sources/discover.js';
import { syncSources } from '../electron/sources/sync.js';
import { hashEngineTestBed, scratchDirs } from './helpers/engine.js';

const scratch = scratchDirs('sm-sources-vscode-');
const bed = hashEngineTestBed();
const FIXTURE_USER = path.resolve(__dirname, 'fixtures/import/vscode-chat/Code/User');
const LOG = '4a7d2b9e-0c1f-4e3a-8b6d-5f9e1c2a7b40.jsonl';
/** The log's lines up to the end of the first request (its result and state set). */
const FIRST_REQUEST_LINES = 12;
/** The VSCodium session's id (the fixture's log under another id). */
const GROWN_SESSION = 'b3f1c5d7-2e4a-4b6c-8d0e-1f3a5b7c9d2e';

describe("VS Code's chat sessions as a source", () => {
  it('are found in each editor that has some, saved by sync, and a grown log saves only what it gained', async () => {
    const home = scratch();
    const config = scratch();
    // VS Code: a workspace's session and a window's without a folder.
    await fs.cp(FIXTURE_USER, path.join(config, 'Code', 'User'), { recursive: true });
    // VS Code Insiders, used without its chat: not listed.
    await fs.mkdir(path.join(config, 'Code - Insiders', 'User', 'workspaceStorage', '0a1b2c'), { recursive: true });
    // VSCodium, with a session whose log has only its first request so far.
    const grown = path.join(config, 'VSCodium', 'User', 'workspaceStorage', '7d8e9f', 'chatSessions', `${GROWN_SESSION}.jsonl`);
    await fs.mkdir(path.dirname(grown), { recursive: true });
    const log = await fs.readFile(path.join(FIXTURE_USER, 'globalStorage', 'emptyWindowChatSessions', LOG), 'utf8');
    const lines = log.replaceAll('4a7d2b9e-0c1f-4e3a-8b6d-5f9e1c2a7b40', GROWN_SESSION).split('\n').filter(Boolean);
    await fs.writeFile(grown, `${lines.slice(0, FIRST_REQUEST_LINES).join('\n')}\n`);

    const discover = () => discoverSources({ env: { XDG_CONFIG_HOME: config }, home, platform: 'linux' });
    const found = await discover();
    expect(found.map((s) => [s.id, s.tool, s.path, s.sessions])).toEqual([
      ['vscode-chat', 'VS Code Chat (GitHub Copilot)', path.join(config, 'Code', 'User'), 2],
      ['vscode-chat-vscodium', 'VS Code Chat (GitHub Copilot)', path.join(config, 'VSCodium', 'User'), 1],
    ]);

    const data = bed.dataDir();
    const engine = await bed.open(data);
    try {
      const sync = async () => {
        const reports: SaveReport[] = [];
        const errors: string[] = [];
        const skipped: unknown[] = [];
        let opened = false;
        await syncSources(await discover(), {
          cursors: await SourceCursors.load(data),
          engine: async () => ((opened = true), engine),
          onReport: (_source, _file, report) => reports.push(report),
          onSkipped: (_source, part) => skipped.push(part),
          onError: (_source, file, message) => errors.push(`${file}: ${message}`),
        });
        expect(errors).toEqual([]);
        expect(skipped).toEqual([]);
        return { reports, opened };
      };

      const first = await sync();
      expect(first.reports.map((r) => [r.sessionId, r.new])).toEqual([
        ['4a7d2b9e-0c1f-4e3a-8b6d-5f9e1c2a7b40', 6],
        ['8e1f4c2a-6b3d-4f7e-9a05-2c7d8e9f1a3b', 6],
        [GROWN_SESSION, 2],
      ]);

      // VS Code appends the next two requests to the VSCodium log: only their four messages are new.
      await fs.appendFile(grown, `${lines.slice(FIRST_REQUEST_LINES).join('\n')}\n`);
      const second = await sync();
      expect(second.reports.map((r) => [r.sessionId, r.total, r.new, r.updated])).toEqual([[GROWN_SESSION, 6, 4, 0]]);
      const stored = await engine.showSession(GROWN_SESSION);
      expect(stored.messages.map((m) => m.content)).toContain('All 14 cart tests pass, including the one for a discounted order.');

      // Nothing new: nothing is read, the store is not opened.
      const third = await sync();
      expect(third).toEqual({ reports: [], opened: false });
    } finally {
      await engine.close();
    }
  });
});
