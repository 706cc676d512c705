// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { filterAndSortSessions } from '../../renderer/src/views/SessionsView.js';
import { createMockMemory } from './mockApi.js';
import { renderApp } from './render.js';

const titlesIn = (table: HTMLElement): string[] => within(table).getAllByRole('rowheader').map((cell) => within(cell).getAllByRole('link')[0]!.textContent ?? '');

describe('sessions list', () => {
  it('lists archived sessions with source, counts and last save, most recent first', async () => {
    renderApp(createMockMemory());
    const table = await screen.findByRole('table', { name: 'Archived sessions' });
    expect(titlesIn(table)).toEqual(['Garden log', '长期记忆的去重设计', 'Train trip to Lisbon']);
    const trip = within(table).getByRole('row', { name: /Train trip to Lisbon/ });
    const cells = within(trip).getAllByRole('cell').map((cell) => cell.textContent);
    expect(cells[0]).toBe('ChatGPT');
    expect(cells[1]).toBe('6');
    expect(cells[3]).toBe('2');
    expect(within(trip).getByRole('link', { name: 'Train trip to Lisbon' })).toHaveProperty('hash', '#/sessions/trip-lisbon');
    expect(screen.getByText('3 sessions · 20 messages · 4 chunks', { exact: false })).toBeTruthy();
  });

  it("names the session a subagent's conversation came from, with a link to it", async () => {
    const mock = createMockMemory();
    mock.host.save({
      sessionId: 'trip-lisbon:agent-a1',
      title: 'Subagent: compare train fares',
      source: 'claude-code',
      parentSessionId: 'trip-lisbon',
      messages: [{ msgId: 'a1', role: 'user', content: 'Compare the train fares from Madrid to Lisbon.' }],
    });
    renderApp(mock);
    const table = await screen.findByRole('table', { name: 'Archived sessions' });
    const row = within(table).getByRole('row', { name: /Subagent: compare train fares/ });
    expect(within(row).getByText('Subagent of', { exact: false })).toBeTruthy();
    expect(within(row).getByRole('link', { name: 'Train trip to Lisbon' })).toHaveProperty('hash', '#/sessions/trip-lisbon');
  });

  it('deletes several sessions at once after a confirmation that lists them', async () => {
    const mock = createMockMemory();
    renderApp(mock);
    const table = await screen.findByRole('table', { name: 'Archived sessions' });
    fireEvent.click(within(table).getByRole('checkbox', { name: 'Select Garden log' }));
    fireEvent.click(within(table).getByRole('checkbox', { name: 'Select Train trip to Lisbon' }));
    // Ticking a box selects, it does not open the session.
    expect(window.location.hash).not.toMatch(/#\/sessions\/./);
    fireEvent.click(screen.getByRole('button', { name: 'Delete 2 selected sessions…' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete 2 sessions?' });
    expect(within(dialog).getAllByRole('listitem').map((item) => item.querySelector('strong')?.textContent)).toEqual(['Garden log', 'Train trip to Lisbon']);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(titlesIn(screen.getByRole('table', { name: 'Archived sessions' }))).toEqual(['长期记忆的去重设计']));
    expect(mock.requestsOn('sessions:forget')).toEqual([{ sessionIds: ['garden-log', 'trip-lisbon'] }]);
  });

  it('filters by title, source or id and says when nothing matches', async () => {
    renderApp(createMockMemory());
    const table = await screen.findByRole('table', { name: 'Archived sessions' });
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter sessions' }), { target: { value: 'lisbon' } });
    expect(titlesIn(table)).toEqual(['Train trip to Lisbon']);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter sessions' }), { target: { value: 'openclaw' } });
    expect(titlesIn(screen.getByRole('table', { name: 'Archived sessions' }))).toEqual(['Garden log']);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter sessions' }), { target: { value: 'nothing like this' } });
    expect(screen.queryByRole('table', { name: 'Archived sessions' })).toBeNull();
    expect(screen.getByText('No sessions match “nothing like this”.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Clear filter' }));
    expect(titlesIn(screen.getByRole('table', { name: 'Archived sessions' }))).toHaveLength(3);
  });

  it('sorts by title and by size', async () => {
    renderApp(createMockMemory());
    await screen.findByRole('table', { name: 'Archived sessions' });
    fireEvent.change(screen.getByRole('combobox', { name: 'Sort by' }), { target: { value: 'title' } });
    expect(titlesIn(screen.getByRole('table', { name: 'Archived sessions' }))).toEqual(['Garden log', 'Train trip to Lisbon', '长期记忆的去重设计']);
    fireEvent.change(screen.getByRole('combobox', { name: 'Sort by' }), { target: { value: 'size' } });
    expect(titlesIn(screen.getByRole('table', { name: 'Archived sessions' }))).toEqual(['Garden log', 'Train trip to Lisbon', '长期记忆的去重设计']);
  });

  it('shows what to drop when nothing is archived', async () => {
    renderApp(createMockMemory({ sample: false }));
    expect(await screen.findByRole('heading', { name: 'No memories yet' })).toBeTruthy();
    const formats = screen.getByText(/You can drop/);
    for (const format of ['ChatGPT', 'Claude', 'Gemini', 'DeepSeek', 'WhatsApp', 'Claude Code', 'Codex', 'Cursor', 'OpenClaw', 'Open WebUI', 'SillyTavern', 'JSON', 'Markdown']) {
      expect(formats.textContent).toContain(format);
    }
    expect(screen.getByRole('button', { name: 'Choose files…' })).toBeTruthy();
  });

  it('orders equal keys stably by id', () => {
    const base = { source: 'json', forkOf: null, messageCount: 1, chunkCount: 1, archivedAt: '2025-01-01T00:00:00Z', lastSavedAt: '2025-01-01T00:00:00Z', saves: 1 };
    const sorted = filterAndSortSessions([{ ...base, sessionId: 'b', title: 'Same' }, { ...base, sessionId: 'a', title: 'Same' }], '', 'title', 'en');
    expect(sorted.map((session) => session.sessionId)).toEqual(['a', 'b']);
  });
});
