/**
 * Settings, "Save after every turn": ready-to-copy configuration that makes an assistant save each
 * conversation as it happens. Claude Code runs `session-memory hook` after each reply (Stop) and at
 * the end of a session (SessionEnd), passing the transcript's path as JSON on stdin; OpenClaw gets
 * the store's MCP server, so its agents can recall what was saved.
 */
import type { ReactNode } from 'react';
import type { McpLaunch } from '../../../shared/ipc.js';
import { useT } from '../i18n.js';
import { CopyBlock, MCP_SERVER_NAME, shellWord } from './ConnectAssistantCard.js';

/** The command line a hook runs: the variables first (Claude Code runs hooks through a POSIX shell, Git Bash on Windows). */
export function hookCommandLine(launch: McpLaunch): string {
  const env = Object.entries(launch.env).map(([key, value]) => `${key}=${shellWord(value)}`);
  return [...env, ...[launch.command, ...launch.args].map(shellWord)].join(' ');
}

/** The `hooks` entry of Claude Code's settings.json: a save after each reply and at the end of each session. */
export function claudeCodeHooks(launch: McpLaunch): string {
  // Claude Code cancels a SessionEnd hook after 1.5 s unless its entry sets a timeout (in seconds).
  const run = [{ hooks: [{ type: 'command', command: hookCommandLine(launch), timeout: 60 }] }];
  return JSON.stringify({ hooks: { Stop: run, SessionEnd: run } }, null, 2);
}

/** The `mcp.servers` entry of OpenClaw's openclaw.json. */
export function openclawMcpConfig(launch: McpLaunch): string {
  const entry = { command: launch.command, args: launch.args, ...(Object.keys(launch.env).length > 0 ? { env: launch.env } : {}) };
  return JSON.stringify({ mcp: { servers: { [MCP_SERVER_NAME]: entry } } }, null, 2);
}

export function HooksCard({ hook, mcp }: { hook: McpLaunch | null; mcp: McpLaunch | null }): ReactNode {
  const t = useT();
  return (
    <section className="card card--wide" aria-labelledby="hooks-title">
      <h2 id="hooks-title" className="card__title">
        {t('settings.hooks')}
      </h2>
      <p className="card__subtitle">{t('settings.hooksHint')}</p>
      {hook ? <CopyBlock label={t('settings.hooks.claudeCode')} text={claudeCodeHooks(hook)} /> : <p className="muted">{t('settings.hooks.unavailable')}</p>}
      {mcp && <CopyBlock label={t('settings.hooks.openclaw')} text={openclawMcpConfig(mcp)} />}
    </section>
  );
}
