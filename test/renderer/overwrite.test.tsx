// @vitest-environment jsdom
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createMockMemory, GARDEN, TRIP, transcriptFile } from './mockApi.js';
import { dropFiles, renderApp } from './render.js';

const SHORTER_TRIP = { ...TRIP, messages: [TRIP.messages[0], { ...TRIP.messages[1], content: 'Take the night bus instead.' }, { msgId: 'q9', role: 'user', content: 'Thanks!' }] };

async function openDialog(): Promise<HTMLElement> {
  fireEvent.click(await screen.findByRole('button', { name: 'Overwrite from file…' }));
  return screen.getByRole('dialog', { name: 'Overwrite “Train trip to Lisbon” from a file' });
}

describe('overwrite from file', () => {
  it('says what will be replaced, and replaces it only after confirmation', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/sessions/trip-lisbon');
    const dialog = await openDialog();
    expect(within(dialog).getByText('Choose or drop the file that holds this conversation. Nothing changes until you confirm.')).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('File to overwrite from'), { target: { files: [transcriptFile('trip.json', SHORTER_TRIP)] } });

    expect(await within(dialog).findByText('6 messages in 1 chunk')).toBeTruthy();
    expect(within(dialog).getByText('In trip.json')).toBeTruthy();
    expect(within(dialog).getByText('3 messages: 1 new, 1 changed, 1 unchanged')).toBeTruthy();
    expect(
      within(dialog).getByText(
        'Overwriting deletes all archived messages of this session (6) and its chunks (1) and replaces them with the 3 messages in the file. Anything that is only in the archive will be lost.',
      ),
    ).toBeTruthy();
    expect(mock.requestsOn('import:run')).toHaveLength(0);

    fireEvent.click(within(dialog).getByRole('button', { name: 'Overwrite session' }));
    expect(await within(dialog).findByText('The session was overwritten.')).toBeTruthy();
    expect(mock.requestsOn('import:run')).toEqual([{ fileIds: ['file-1'], mode: 'overwrite', sessionIds: ['trip-lisbon'] }]);
    const report = within(dialog).getByRole('table', { name: 'What the save did' });
    expect(within(report).getAllByRole('cell').slice(0, 5).map((cell) => cell.textContent)).toEqual(['3', '1', '1', '1', '4']);

    fireEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    const list = await screen.findByRole('list', { name: 'Messages of this session' });
    expect(await within(list).findByText('Take the night bus instead.')).toBeTruthy();
    expect(within(list).getAllByRole('listitem')).toHaveLength(3);
  });

  it('takes a file dropped on the window while open, and says when the file lacks this session', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/sessions/trip-lisbon');
    const dialog = await openDialog();
    dropFiles([transcriptFile('garden.json', GARDEN)]);
    expect(await within(dialog).findByText('garden.json does not contain this session. It holds: Garden log.')).toBeTruthy();
    expect(window.location.hash).toBe('#/sessions/trip-lisbon');
    expect(within(dialog).queryByRole('button', { name: 'Overwrite session' })).toBeNull();
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(mock.requestsOn('import:run')).toHaveLength(0);
  });
});
