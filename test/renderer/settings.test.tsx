// @vitest-environment jsdom
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { createMockMemory } from './mockApi.js';
import { renderApp } from './render.js';

describe('settings: connect an assistant', () => {
  it('shows copyable configurations that start this store\'s MCP server, and copies them', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const launch = { command: '/Applications/Session Memory.app/Contents/MacOS/Session Memory', args: ['/Applications/Session Memory.app/Contents/Resources/app.asar/dist-electron/cli.cjs', '--data', '/Users/ana/memory', 'mcp'], env: { ELECTRON_RUN_AS_NODE: '1' } };
    renderApp(createMockMemory({ host: { settings: { mcpServer: launch } } }), '#/settings');
    const card = (await screen.findByRole('heading', { name: 'Connect an assistant' })).closest('section') as HTMLElement;

    const desktop = JSON.parse(within(card).getByLabelText('Claude Desktop (claude_desktop_config.json)').textContent ?? '') as { mcpServers: Record<string, unknown> };
    expect(desktop.mcpServers['session-memory']).toEqual({ command: launch.command, args: launch.args, env: launch.env });
    // Paths with spaces are quoted for the shell.
    expect(within(card).getByLabelText('Claude Code (terminal)').textContent).toBe(
      "claude mcp add --scope user session-memory -e ELECTRON_RUN_AS_NODE=1 -- '/Applications/Session Memory.app/Contents/MacOS/Session Memory' '/Applications/Session Memory.app/Contents/Resources/app.asar/dist-electron/cli.cjs' --data /Users/ana/memory mcp",
    );
    expect(JSON.parse(within(card).getByLabelText('Any stdio MCP client').textContent ?? '')).toMatchObject({ transport: 'stdio', command: launch.command, args: launch.args });

    fireEvent.click(within(card).getByRole('button', { name: 'Copy Claude Code (terminal)' }));
    expect(await within(card).findByRole('button', { name: 'Copy Claude Code (terminal)' })).toHaveProperty('textContent', 'Copied');
    expect(writeText).toHaveBeenCalledWith(expect.stringContaining('claude mcp add'));
  });

  it('says how to start the server by hand when the host cannot tell', async () => {
    renderApp(createMockMemory({ host: { settings: { mcpServer: null } } }), '#/settings');
    expect(await screen.findByText(/run "session-memory mcp" from the command line/)).toBeTruthy();
  });
});

describe('settings: connect an assistant in one click', () => {
  const card = async () => within((await screen.findByRole('heading', { name: 'Connect an assistant' })).closest('section') as HTMLElement);

  it('lists the assistants found on this computer and connects or disconnects each, saying what it then saves', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/settings');
    const list = await (await card()).findByRole('list', { name: 'Assistants on this computer' });
    // Only the tools whose folders exist: the demo has Claude Code, Codex CLI and OpenClaw.
    expect(within(list).getAllByRole('listitem').map((item) => item.querySelector('strong')?.textContent)).toEqual(['Claude Code', 'Codex CLI', 'OpenClaw']);
    expect(within(list).getByRole('button', { name: 'Disconnect OpenClaw' })).toBeTruthy();
    expect(within(list).getByText(/Saves after every reply the Gateway sends/)).toBeTruthy();

    fireEvent.click(within(list).getByRole('button', { name: 'Connect Claude Code' }));
    expect(await within(list).findByRole('button', { name: 'Disconnect Claude Code' })).toBeTruthy();
    expect(mock.requestsOn('assistants:connect')).toEqual([{ id: 'claude-code', remove: false }]);
    expect(within(list).getByText(/Saves after every reply and when a session ends \(Stop and SessionEnd hooks\)/)).toBeTruthy();

    fireEvent.click(within(list).getByRole('button', { name: 'Disconnect OpenClaw' }));
    expect(await within(list).findByRole('button', { name: 'Connect OpenClaw' })).toBeTruthy();
    expect(mock.requestsOn('assistants:connect')).toEqual([{ id: 'claude-code', remove: false }, { id: 'openclaw', remove: true }]);
    expect(within(list).queryByText(/the Gateway sends/)).toBeNull();
  });

  it('shows why a configuration was refused, and leaves the assistant as it was', async () => {
    const mock = createMockMemory();
    mock.failNext('assistants:connect', 'invalid_input', '/home/demo/.codex/config.toml: not valid TOML (Invalid TOML document: illegal character in key); fix or move it, then run this again');
    renderApp(mock, '#/settings');
    const list = await (await card()).findByRole('list', { name: 'Assistants on this computer' });
    fireEvent.click(within(list).getByRole('button', { name: 'Connect Codex CLI' }));
    expect(await within(screen.getByRole('alert')).findByText(/config\.toml: not valid TOML/)).toBeTruthy();
    expect(within(list).getByRole('button', { name: 'Connect Codex CLI' })).toBeTruthy();
  });

  it('says so when none is found', async () => {
    renderApp(createMockMemory({ host: { assistants: [{ id: 'cursor', name: 'Cursor', found: false, connected: false }] } }), '#/settings');
    expect(await (await card()).findByText(/No assistant that connects in one click/)).toBeTruthy();
  });
});

describe('settings: the log', () => {
  it('shows where the log is, and the desktop app opens its folder', async () => {
    const mock = createMockMemory({ host: { settings: { nativeDialogs: true, logDir: '/Users/ana/memory/logs' } } });
    renderApp(mock, '#/settings');
    const storage = (await screen.findByRole('heading', { name: 'Storage' })).closest('section') as HTMLElement;
    expect(within(storage).getByText('/Users/ana/memory/logs')).toBeTruthy();
    fireEvent.click(within(storage).getByRole('button', { name: 'Open log folder' }));
    await vi.waitFor(() => expect(mock.requestsOn('app:openLogFolder')).toEqual([{}]));
  });

  it('in web mode shows the path without a button that could not open it', async () => {
    renderApp(createMockMemory({ host: { settings: { nativeDialogs: false, logDir: '/srv/memory/logs' } } }), '#/settings');
    const storage = (await screen.findByRole('heading', { name: 'Storage' })).closest('section') as HTMLElement;
    expect(within(storage).getByText('/srv/memory/logs')).toBeTruthy();
    expect(within(storage).queryByRole('button', { name: 'Open log folder' })).toBeNull();
  });
});

describe('settings: verify and repair', () => {
  it('asks before a repair, saying what it would drop and that a copy is kept', async () => {
    const mock = createMockMemory();
    const damaged = { ok: false, sessions: 2, messages: 10, chunks: 4, problems: ['store: data file 01.lance is truncated (100 bytes, no Lance footer)'] };
    (mock.host.api as unknown as Record<string, (request: { repair?: boolean }) => Promise<unknown>>)['store:verify'] = async (request) =>
      request.repair ? { ...damaged, problems: ['repair: the store as it was is kept in /data/backups/repair-1'] } : damaged;
    renderApp(mock, '#/settings');
    const card = (await screen.findByRole('heading', { name: 'Store check' })).closest('section') as HTMLElement;
    fireEvent.click(within(card).getByRole('button', { name: 'Check store' }));
    fireEvent.click(await within(card).findByRole('button', { name: 'Repair' }));
    const dialog = within(card).getByRole('alertdialog', { name: 'Repair the store?' });
    expect(dialog.textContent).toMatch(/newest version that reads whole.*A copy of the store as it is now is kept first/);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(mock.requestsOn('store:verify')).toEqual([{}]);
    fireEvent.click(within(card).getByRole('button', { name: 'Repair' }));
    fireEvent.click(within(within(card).getByRole('alertdialog')).getByRole('button', { name: 'Repair now' }));
    expect(await within(card).findByText(/kept in \/data\/backups\/repair-1/)).toBeTruthy();
    expect(mock.requestsOn('store:verify')).toEqual([{}, { repair: true }]);
  });
});

describe('settings: privacy', () => {
  it('redaction is on by default and can be turned off; the choice is sent to the host', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/settings');
    const card = (await screen.findByRole('heading', { name: 'Privacy' })).closest('section') as HTMLElement;
    const box = within(card).getByRole('checkbox', { name: 'Redact secrets before storing' }) as HTMLInputElement;
    expect(box.checked).toBe(true);
    fireEvent.click(box);
    await vi.waitFor(() => expect(mock.requestsOn('settings:set')).toEqual([{ redactSecrets: false }]));
    await vi.waitFor(() => expect((within(card).getByRole('checkbox', { name: 'Redact secrets before storing' }) as HTMLInputElement).checked).toBe(false));
  });
});
