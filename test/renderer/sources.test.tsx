// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createMockMemory } from './mockApi.js';
import { renderApp } from './render.js';

async function row(tool: string): Promise<HTMLElement> {
  const list = await screen.findByRole('list', { name: 'Sources' });
  return within(list).getByRole('listitem', { name: tool });
}

describe('sources', () => {
  it('lists what was found, all off until a person turns one on, then syncs it and says how it went', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/sources');
    const claude = await row('Claude Code');
    expect(screen.getByRole('link', { name: 'Sources' }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByText(/Nothing is read from a source until you turn it on/)).toBeTruthy();
    expect(within(claude).getByText('/home/demo/.claude')).toBeTruthy();
    expect(within(claude).getByText(/12 conversation files found/)).toBeTruthy();
    const toggle = within(claude).getByRole('checkbox', { name: "Save Claude Code's conversations" }) as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    // Nothing was asked to sync while every source is off.
    expect(mock.requestsOn('sources:set')).toEqual([]);
    expect(mock.requestsOn('sources:sync')).toEqual([]);

    fireEvent.click(toggle);
    await waitFor(() => expect((within(claude).getByRole('checkbox') as HTMLInputElement).checked).toBe(true));
    expect(mock.requestsOn('sources:set')).toEqual([{ id: 'claude-code', enabled: true }]);
    expect(await within(await row('Claude Code')).findByText(/Last synced/)).toBeTruthy();

    // A tool whose format does not import yet says so, and its sync names the problem.
    const codex = await row('Codex CLI');
    expect(within(codex).getByText(/This format does not import yet/)).toBeTruthy();
    fireEvent.click(within(codex).getByRole('checkbox'));
    const problems = await within(await row('Codex CLI')).findByRole('list', { name: 'Problems with Codex CLI' });
    expect(problems.textContent).toMatch(/does not import yet; 3 files under \/home\/demo\/.codex left unread/);

    fireEvent.click(screen.getByRole('button', { name: 'Sync now' }));
    await waitFor(() => expect(mock.requestsOn('sources:sync')).toEqual([{}]));
  });

  it('says so when no assistant is found', async () => {
    renderApp(createMockMemory({ host: { sources: [] } }), '#/sources');
    expect(await screen.findByText(/No assistant's conversations were found/)).toBeTruthy();
  });

  it('Settings shows Claude Code\'s hooks and OpenClaw\'s MCP configuration, ready to copy', async () => {
    const hook = { command: '/opt/Session Memory/session-memory', args: ['--data', '/home/ana/memory', 'hook'], env: { ELECTRON_RUN_AS_NODE: '1' } };
    const mcpServer = { ...hook, args: ['--data', '/home/ana/memory', 'mcp'] };
    renderApp(createMockMemory({ host: { settings: { hookCommand: hook, mcpServer } } }), '#/settings');
    const card = (await screen.findByRole('heading', { name: 'Save after every turn' })).closest('section') as HTMLElement;
    const settings = JSON.parse(within(card).getByLabelText('Claude Code (~/.claude/settings.json)').textContent ?? '') as { hooks: Record<string, Array<{ hooks: Array<{ type: string; command: string }> }>> };
    const command = "ELECTRON_RUN_AS_NODE=1 '/opt/Session Memory/session-memory' --data /home/ana/memory hook";
    // With a timeout (seconds): without one, Claude Code cancels a SessionEnd hook after 1.5 s.
    expect(settings.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command, timeout: 60 }] }]);
    expect(settings.hooks.SessionEnd).toEqual([{ hooks: [{ type: 'command', command, timeout: 60 }] }]);
    const openclaw = JSON.parse(within(card).getByLabelText('OpenClaw: recall through MCP (~/.openclaw/openclaw.json)').textContent ?? '') as { mcp: { servers: Record<string, unknown> } };
    expect(openclaw.mcp.servers['session-memory']).toEqual({ command: mcpServer.command, args: mcpServer.args, env: mcpServer.env });
  });
});
