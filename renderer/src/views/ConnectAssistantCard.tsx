/**
 * Settings, "Connect an assistant": a Connect button for each assistant found on this computer, and
 * ready-to-copy configuration that starts this store's MCP server (`session-memory mcp`) for Claude
 * Desktop, Claude Code and any other stdio MCP client.
 */
import { useState, type ReactNode } from 'react';
import type { McpLaunch } from '../../../shared/ipc.js';
import { useT } from '../i18n.js';
import { AssistantConnections } from './AssistantConnections.js';

export const MCP_SERVER_NAME = 'session-memory';

/** The `mcpServers` entry of claude_desktop_config.json (Cursor and others read the same shape). */
export function claudeDesktopConfig(launch: McpLaunch): string {
  const entry = { command: launch.command, args: launch.args, ...(Object.keys(launch.env).length > 0 ? { env: launch.env } : {}) };
  return JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: entry } }, null, 2);
}

/** A POSIX shell word: bare when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function claudeCodeCommand(launch: McpLaunch): string {
  const env = Object.entries(launch.env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  // The name before `-e`: Claude Code reads every word after `-e` up to `--` as a variable.
  return ['claude', 'mcp', 'add', '--scope', 'user', MCP_SERVER_NAME, ...env, '--', launch.command, ...launch.args].map(shellWord).join(' ');
}

export function genericConfig(launch: McpLaunch): string {
  return JSON.stringify({ name: MCP_SERVER_NAME, transport: 'stdio', command: launch.command, args: launch.args, env: launch.env }, null, 2);
}

export function CopyBlock({ label, text }: { label: string; text: string }): ReactNode {
  const t = useT();
  const [copied, setCopied] = useState(false);
  const copy = async (): Promise<void> => {
    await navigator.clipboard?.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <div className="copy-block">
      <div className="copy-block__head">
        <h3 className="copy-block__label">{label}</h3>
        <button type="button" className="button button--small" onClick={() => void copy()} aria-label={t('settings.mcp.copy', { what: label })}>
          {copied ? t('settings.mcp.copied') : t('settings.mcp.copyShort')}
        </button>
      </div>
      <pre className="copy-block__text mono" aria-label={label}>
        {text}
      </pre>
    </div>
  );
}

export function ConnectAssistantCard({ launch }: { launch: McpLaunch | null }): ReactNode {
  const t = useT();
  return (
    <section className="card card--wide" aria-labelledby="mcp-title">
      <h2 id="mcp-title" className="card__title">
        {t('settings.mcp')}
      </h2>
      <p className="card__subtitle">{t('settings.mcpHint')}</p>
      {launch && <AssistantConnections />}
      {launch ? (
        <>
          <CopyBlock label={t('settings.mcp.claudeDesktop')} text={claudeDesktopConfig(launch)} />
          <CopyBlock label={t('settings.mcp.claudeCode')} text={claudeCodeCommand(launch)} />
          <CopyBlock label={t('settings.mcp.generic')} text={genericConfig(launch)} />
          <p className="field__hint">{t('settings.mcp.tools')}</p>
        </>
      ) : (
        <p className="muted">{t('settings.mcp.unavailable')}</p>
      )}
    </section>
  );
}
