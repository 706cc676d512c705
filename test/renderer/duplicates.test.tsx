// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { SessionInput } from '../../shared/domain.js';
import { createMockMemory, TRIP, transcriptFile } from './mockApi.js';
import { dropFiles, renderApp } from './render.js';

/** TRIP's advice pasted into another conversation: not a branch (it starts elsewhere), but the same passages. */
const PASTED: SessionInput = {
  sessionId: 'packing-notes',
  title: 'Packing notes',
  messages: [
    // Long enough to fill a chunk of its own, so that the pasted part is chunked as in the original.
    { msgId: 'p0', role: 'user', content: `Keep my rail notes from the spring here, I will need them again. ${'Seat reservations, connections and the station names matter most. '.repeat(9)}` },
    ...TRIP.messages.map((m) => ({ ...m, msgId: `p-${m.msgId}` })),
  ],
};

async function clusterCards(): Promise<HTMLElement[]> {
  const list = await screen.findByRole('list', { name: 'Duplicate clusters' });
  return within(list).queryAllByRole('listitem').filter((item) => item.classList.contains('duplicate'));
}

describe('duplicates', () => {
  it('lists what two sessions both hold, with links to each copy, and a dismissed cluster stays away', async () => {
    const mock = createMockMemory();
    mock.host.save(PASTED);
    renderApp(mock, '#/duplicates');
    const cards = await clusterCards();
    expect(cards.length).toBeGreaterThan(0);
    const first = cards[0]!;
    expect(within(first).getByRole('link', { name: 'Train trip to Lisbon' }).getAttribute('href')).toBe('#/sessions/trip-lisbon');
    expect(within(first).getByRole('link', { name: 'Packing notes' }).getAttribute('href')).toBe('#/sessions/packing-notes');
    expect(within(first).getByRole('heading').textContent).toMatch(/Identical text|similar/);
    expect(screen.getByRole('link', { name: 'Duplicates' }).getAttribute('aria-current')).toBe('page');

    const before = cards.length;
    fireEvent.click(within(first).getByRole('button', { name: 'Dismiss' }));
    await waitFor(async () => expect((await clusterCards()).length).toBe(before - 1));
    expect(screen.getByText(/1 dismissed/)).toBeTruthy();
    expect(mock.requestsOn('duplicates:dismiss')).toEqual([{ clusterId: expect.stringMatching(/^[0-9a-f]{16}$/), threshold: 0.95 }]);
    // Shown again, marked, when asked for.
    fireEvent.click(screen.getByRole('checkbox', { name: 'Show dismissed' }));
    await waitFor(async () => expect((await clusterCards()).length).toBe(before));
    expect(screen.getAllByText('Dismissed', { selector: '.badge' })).toHaveLength(1);
  });

  it('deletes a session that holds a copy, after the usual confirmation, and the list empties', async () => {
    const mock = createMockMemory();
    mock.host.save(PASTED);
    renderApp(mock, '#/duplicates');
    const [first] = await clusterCards();
    const copy = within(first!).getAllByRole('listitem').find((item) => within(item).queryByRole('link', { name: 'Packing notes' }))!;
    fireEvent.click(within(copy).getByRole('button', { name: 'Delete this session…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete “Packing notes”?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('No duplicates.')).toBeTruthy();
    expect(mock.requestsOn('sessions:forget')).toEqual([{ sessionIds: ['packing-notes'] }]);
  });

  it('an import that brought in copies says how many and links to the review', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/import');
    dropFiles([transcriptFile('notes.json', [PASTED])]);
    fireEvent.click(await screen.findByRole('button', { name: 'Import 1 session' }));
    expect(await screen.findByRole('heading', { name: 'Import finished' })).toBeTruthy();
    expect(screen.getByText(/^Already kept by other sessions: \d+ chunks? from this import\./)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Review duplicates' }).getAttribute('href')).toBe('#/duplicates');
  });
});
