// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createMockMemory } from './mockApi.js';
import { renderApp } from './render.js';

describe('a session', () => {
  it('shows its numbers and every message with the chunk it is in', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/sessions/trip-lisbon');
    expect(await screen.findByRole('heading', { level: 1, name: 'Train trip to Lisbon' })).toBeTruthy();
    const stats = screen.getByLabelText('Session statistics');
    expect(within(stats).getByText('Messages').nextSibling?.textContent).toBe('6');
    expect(within(stats).getByText('Chunks').nextSibling?.textContent).toBe('1');

    const list = screen.getByRole('list', { name: 'Messages of this session' });
    const items = within(list).getAllByRole('listitem');
    expect(items.length).toBe(6);
    const detail = await mock.api['sessions:show']({ sessionId: 'trip-lisbon' });
    const first = detail.messages[0];
    expect(first).toBeDefined();
    expect(within(items[0] as HTMLElement).getByText(first?.content ?? '')).toBeTruthy();
    const chunkLink = within(items[0] as HTMLElement).getByRole('link', { name: `Inspect chunk ${first?.chunkId} (message 1)` });
    expect(chunkLink.getAttribute('href')).toBe(`#/chunks/${first?.chunkId}`);
    expect(chunkLink.textContent).toContain(`Chunk ${first?.chunkId.slice(0, 12)}`);
  });

  it('charts and tabulates the save history with each save’s diff', async () => {
    renderApp(createMockMemory(), '#/sessions/trip-lisbon');
    const table = await screen.findByRole('table', { name: 'Save history, one row per save' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    const cells = (row: HTMLElement): string[] => within(row).getAllByRole('cell').map((cell) => cell.textContent ?? '');
    // Newest first: the second save added q3 and a3 and changed a2; the first wrote four new messages.
    expect(cells(rows[0] as HTMLElement).slice(0, 5)).toEqual(['Incremental', '2', '1', '3', '0']);
    expect(cells(rows[1] as HTMLElement).slice(0, 5)).toEqual(['Incremental', '4', '0', '0', '0']);
    const chart = screen.getByRole('figure', { name: 'Messages per save, stacked: new, updated, skipped and deleted' });
    expect(within(chart).getByRole('img', { name: '2 saves: 6 new, 1 updated, 3 skipped, 0 deleted messages in total.' })).toBeTruthy();
    expect(chart.querySelectorAll('.recharts-bar-rectangle').length).toBeGreaterThan(0);
  });

  it('lists the chunks on their own tab, each linking to the inspector', async () => {
    renderApp(createMockMemory(), '#/sessions/garden-log');
    const tab = await screen.findByRole('tab', { name: /Chunks/ });
    expect(tab.getAttribute('aria-selected')).toBe('false');
    fireEvent.click(tab);
    const list = await screen.findByRole('list', { name: 'Chunks of this session' });
    const links = within(list).getAllByRole('link', { name: /^Inspect chunk / });
    expect(links).toHaveLength(2);
    expect(screen.getByRole('tab', { name: /Chunks/ }).getAttribute('aria-selected')).toBe('true');
    expect(window.location.hash).toBe('#/sessions/garden-log/chunks');
  });

  it('renders only the visible part of 5,000 messages', async () => {
    const mock = createMockMemory({ sample: false });
    mock.host.save({
      sessionId: 'huge',
      title: 'A very long conversation',
      messages: Array.from({ length: 5000 }, (_, index) => ({ msgId: `m${index}`, role: index % 2 ? 'assistant' : 'user', content: `Message number ${index}` })),
    });
    renderApp(mock, '#/sessions/huge');
    const list = await screen.findByRole('list', { name: 'Messages of this session' });
    const items = within(list).getAllByRole('listitem');
    expect(items.length).toBeGreaterThan(3);
    expect(items.length).toBeLessThan(40);
    expect(items[0]?.getAttribute('aria-setsize')).toBe('5000');
    expect(within(items[0] as HTMLElement).getByText('Message number 0')).toBeTruthy();
  });

  it('a branch says where it branched from, with a link, and still shows its whole conversation', async () => {
    const mock = createMockMemory({ sample: false });
    const shared = Array.from({ length: 6 }, (_, index) => ({ role: index % 2 ? ('assistant' as const) : ('user' as const), content: `Shared line ${index}` }));
    mock.host.save({ sessionId: 'original', title: 'The original chat', messages: [...shared, { role: 'user', content: 'Original goes on' }] });
    mock.host.save({ sessionId: 'branch', title: 'A branch', messages: [...shared, { role: 'user', content: 'The branch goes elsewhere' }, { role: 'assistant', content: 'Indeed' }] });
    renderApp(mock, '#/sessions/branch');
    const link = await screen.findByRole('link', { name: 'The original chat' });
    expect(link.getAttribute('href')).toBe('#/sessions/original');
    expect(link.parentElement?.textContent).toBe('Branched from The original chat at message 6');
    const list = await screen.findByRole('list', { name: 'Messages of this session' });
    expect(within(list).getAllByRole('listitem')[0]?.getAttribute('aria-setsize')).toBe('8');
    // The original is no branch of its copy.
    fireEvent.click(link);
    await screen.findByRole('heading', { name: 'The original chat' });
    expect(screen.queryByText(/Branched from/)).toBeNull();
  });

  it('a chat between people shows who said each message, the role only where no name is known', async () => {
    const mock = createMockMemory({ sample: false });
    mock.host.save({
      sessionId: 'hike',
      title: 'WhatsApp Chat with Priya',
      source: 'whatsapp',
      messages: [
        { role: 'user', speaker: 'Sam', content: 'Are we still on for the hike?' },
        { role: 'assistant', speaker: 'Priya', content: 'Yes, 8 at the trailhead.' },
        { role: 'user', content: 'Great.' },
      ],
    });
    renderApp(mock, '#/sessions/hike');
    const list = await screen.findByRole('list', { name: 'Messages of this session' });
    const badges = within(list).getAllByRole('listitem').map((item) => item.querySelector('.role'));
    expect(badges.map((badge) => badge?.textContent)).toEqual(['Sam', 'Priya', 'User']);
    // The name's role is still there to read.
    expect(badges[1]?.getAttribute('title')).toBe('Assistant');
  });

  it('says so when the session does not exist', async () => {
    renderApp(createMockMemory(), '#/sessions/nope');
    const alert = await screen.findByRole('alert');
    expect(await within(alert).findByText(/No archived session "nope"/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });
});

describe('deleting a session', () => {
  it('asks first, naming the session and its counts; Cancel keeps it, Delete forgets it and goes back to the list', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/sessions/trip-lisbon');
    await screen.findByRole('heading', { name: 'Train trip to Lisbon', level: 1 });
    fireEvent.click(screen.getByRole('button', { name: 'Delete…' }));
    let dialog = screen.getByRole('dialog', { name: 'Delete “Train trip to Lisbon”?' });
    expect(within(dialog).getByText('Train trip to Lisbon').parentElement?.textContent).toMatch(/6 messages, \d+ chunks?/);
    expect(within(dialog).getByText(/cannot be undone/)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(mock.requestsOn('sessions:forget')).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Delete…' }));
    dialog = screen.getByRole('dialog', { name: 'Delete “Train trip to Lisbon”?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(window.location.hash).toBe('#/sessions'));
    expect(mock.requestsOn('sessions:forget')).toEqual([{ sessionIds: ['trip-lisbon'] }]);
    expect(mock.host.sessionIds()).not.toContain('trip-lisbon');
    const table = await screen.findByRole('table', { name: 'Archived sessions' });
    expect(within(table).queryByText('Train trip to Lisbon')).toBeNull();
  });
});

describe('deleting a message', () => {
  it('asks first, then forgets that message only; the session shows the rest', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/sessions/trip-lisbon');
    const list = await screen.findByRole('list', { name: 'Messages of this session' });
    const second = (await mock.api['sessions:show']({ sessionId: 'trip-lisbon' })).messages[1]!;
    fireEvent.click(within(list).getByRole('button', { name: 'Delete message 2' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete 1 message?' });
    expect(dialog.textContent).toMatch(/1 message of “Train trip to Lisbon” will be removed/);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Messages of this session' })).getAllByRole('listitem')).toHaveLength(5));
    expect(mock.requestsOn('sessions:forget')).toEqual([{ sessionIds: ['trip-lisbon'], messageIds: [second.msgId] }]);
    expect(screen.queryByText(second.content)).toBeNull();
  });
});
