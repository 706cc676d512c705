/**
 * `sync --watch` follows a source's folder for the files its picks name; a folder no pick reaches
 * (OpenClaw's `agents/<id>/agent/`, where its database makes and removes log files at each read)
 * is not watched at all (cli/syncWatch.ts).
 */
import { describe, expect, it } from 'vitest';
import { pickMayHold } from '../electron/cli/syncWatch.js';
import { SOURCE_CATALOGUE } from '../electron/sources/catalogue.js';

const openClawFiles = SOURCE_CATALOGUE.find((s) => s.id === 'openclaw')!.picks.find((p) => p.kind === 'files')!;

describe('the folders sync --watch follows below a source', () => {
  it('skips the folder of OpenClaw database and its log files, and keeps those that lead to session files', () => {
    expect(pickMayHold(openClawFiles, 'agents/main/agent')).toBe(false);
    expect(pickMayHold(openClawFiles, 'agents/main/agent/openclaw-agent.sqlite-wal')).toBe(false);
    expect(pickMayHold(openClawFiles, 'agents')).toBe(true);
    expect(pickMayHold(openClawFiles, 'agents/main')).toBe(true);
    expect(pickMayHold(openClawFiles, 'agents/main/sessions')).toBe(true);
    expect(pickMayHold(openClawFiles, 'agents/main/sessions/5e55.jsonl')).toBe(true);
    expect(pickMayHold(openClawFiles, 'agents/main/sessions/5e55.jsonl.reset.2026-01-02')).toBe(true);
    expect(pickMayHold(openClawFiles, 'agents/main/session-sqlite-import-archive/5e55.jsonl.imported-1')).toBe(true);
    expect(pickMayHold(openClawFiles, 'agents\\main\\agent')).toBe(false);
  });

  it('keeps anything a `**`, a folder pick or a pattern it does not read could reach', () => {
    expect(pickMayHold({ kind: 'files', globs: ['sessions/**/rollout-*.jsonl'] }, 'sessions/2026/01/02')).toBe(true);
    expect(pickMayHold({ kind: 'files', globs: ['sessions/**/rollout-*.jsonl'] }, 'logs')).toBe(false);
    expect(pickMayHold({ kind: 'folder', globs: ['chats/*'] }, 'chats/a/b/c.json')).toBe(true);
    expect(pickMayHold({ kind: 'files', globs: ['chats/*'] }, 'chats/a/b')).toBe(false);
    expect(pickMayHold({ kind: 'files', globs: ['{a,b}/*.json'] }, 'c')).toBe(true);
    expect(pickMayHold({ kind: 'files', globs: ['a+b/x?.json'] }, 'a+b/x1.json')).toBe(true);
    expect(pickMayHold({ kind: 'files', globs: ['a+b/x?.json'] }, 'aab/x1.json')).toBe(false);
  });
});
