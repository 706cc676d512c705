// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { SessionInput } from '../../shared/domain.js';
import { createMockMemory, TRIP, transcriptFile } from './mockApi.js';
import { dropFiles, renderApp } from './render.js';

const NEW_SESSION: SessionInput = {
  sessionId: 'risotto',
  title: 'Risotto without stirring',
  source: 'open-webui',
  messages: [
    { msgId: 'r1', role: 'user', content: 'Do I have to stir risotto all the time?' },
    { msgId: 'r2', role: 'assistant', content: 'No: stir at the start and the end, and add warm stock a ladle at a time.' },
  ],
};
const GROWN_TRIP = { ...TRIP, messages: [...TRIP.messages, { msgId: 'q4', role: 'user', content: 'And the luggage rules?' }] };
const exportFile = (): File => transcriptFile('export.json', [NEW_SESSION, GROWN_TRIP]);

async function previewRows(): Promise<HTMLElement[]> {
  const table = await screen.findByRole('table', { name: 'What importing would do, per file and session' });
  return within(table).getAllByRole('row').filter((row) => within(row).queryByRole('checkbox'));
}

const countsOf = (row: HTMLElement): string[] => within(row).getAllByRole('cell').slice(1).map((cell) => cell.textContent ?? '');

describe('import', () => {
  it('goes from a drop anywhere to a preview, a confirmed run with progress, and the reports', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/sessions');
    await screen.findByRole('table', { name: 'Archived sessions' });
    dropFiles([exportFile()]);
    await waitFor(() => expect(window.location.hash).toBe('#/import'));
    expect(await screen.findByText('export.json', { selector: '.file-row__name' })).toBeTruthy();

    const rows = await previewRows();
    expect(rows.map((row) => within(row).getByRole('rowheader').textContent)).toEqual(['Risotto without stirring', 'Train trip to Lisbon']);
    // messages, new, updated, skipped, deleted, (bar), chunks written, embeddings
    expect(countsOf(rows[0] as HTMLElement).slice(0, 5)).toEqual(['2', '2', '0', '0', '0']);
    expect(countsOf(rows[1] as HTMLElement).slice(0, 5)).toEqual(['7', '1', '0', '6', '0']);
    expect(screen.getByText(/2 sessions selected: 3 new, 0 updated, 6 skipped messages/)).toBeTruthy();
    expect(mock.host.sessionIds()).not.toContain('risotto');

    mock.gate.close();
    fireEvent.click(screen.getByRole('button', { name: 'Import 2 sessions' }));
    const progress = await screen.findByRole('progressbar', { name: 'Import progress' });
    await waitFor(() => expect(progress.getAttribute('aria-valuetext')).toMatch(/Reading|Chunking|Embedding/));
    expect(screen.getByRole('button', { name: 'Cancel import' })).toBeTruthy();
    mock.gate.open();

    expect(await screen.findByRole('heading', { name: 'Import finished' })).toBeTruthy();
    expect(screen.getByText('2 sessions saved: 3 new, 0 updated, 6 skipped, 0 deleted messages.')).toBeTruthy();
    const reports = screen.getByRole('table', { name: 'What was saved, per file and session' });
    expect(within(reports).getByRole('link', { name: 'Risotto without stirring' }).getAttribute('href')).toBe('#/sessions/risotto');
    expect(mock.host.sessionIds()).toContain('risotto');
    expect(mock.requestsOn('import:run')).toEqual([{ fileIds: ['file-1'], mode: 'incremental' }]);
  });

  it('shows everything skipped when the same file is dropped again', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/import');
    dropFiles([exportFile()]);
    await previewRows();
    fireEvent.click(screen.getByRole('button', { name: 'Import 2 sessions' }));
    await screen.findByRole('heading', { name: 'Import finished' });

    dropFiles([exportFile()]);
    const rows = await previewRows();
    for (const row of rows) expect(within(row).getByText('Already archived: nothing to do')).toBeTruthy();
    expect(screen.getByText('Everything selected is already archived: importing would skip it all.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Import 2 sessions' }));
    expect(await screen.findByText('2 sessions saved: 0 new, 0 updated, 9 skipped, 0 deleted messages.')).toBeTruthy();
  });

  it('leaves a forgotten conversation out, says so, and saves it again only when the person ticks it', async () => {
    const mock = createMockMemory();
    mock.host.save(NEW_SESSION);
    await mock.host.api['sessions:forget']({ sessionIds: ['risotto'] });
    renderApp(mock, '#/import');
    dropFiles([exportFile()]);
    const rows = await previewRows();
    const risotto = rows[0] as HTMLElement;
    expect(within(risotto).getByText('Forgotten')).toBeTruthy();
    // It starts unticked, with what saving it again would do.
    expect((within(risotto).getByRole('checkbox') as HTMLInputElement).checked).toBe(false);
    expect(countsOf(risotto).slice(0, 2)).toEqual(['2', '2']);
    expect(screen.getByRole('button', { name: 'Import 1 session' })).toBeTruthy();

    fireEvent.click(within(risotto).getByRole('checkbox'));
    fireEvent.click(screen.getByRole('button', { name: 'Import 2 sessions' }));
    await screen.findByRole('heading', { name: 'Import finished' });
    expect(mock.requestsOn('import:run')).toEqual([{ fileIds: ['file-1'], mode: 'incremental', unforget: ['risotto'] }]);
    expect(mock.host.sessionIds()).toContain('risotto');
  });

  it('shows a file that cannot be read in one line and still imports the others', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/import');
    dropFiles([transcriptFile('broken.json', '{"sessionId": '), transcriptFile('notes.pdf', 'x'), transcriptFile('good.json', NEW_SESSION)]);
    const table = await screen.findByRole('table', { name: 'What importing would do, per file and session' });
    const broken = within(table).getByText(/broken\.json: not valid JSON/);
    expect(broken.closest('[role="note"]')?.textContent).toMatch(/^Invalid input broken\.json: not valid JSON/);
    expect(within(table).getByText(/notes\.pdf: this file type is not recognised/).closest('[role="note"]')?.textContent).toMatch(/^Unknown format/);
    fireEvent.click(screen.getByRole('button', { name: 'Import 1 session' }));
    await screen.findByRole('heading', { name: 'Import finished' });
    expect(mock.requestsOn('import:run')).toEqual([{ fileIds: ['file-3'], mode: 'incremental' }]);
  });

  it('lists the damaged parts of a file that are left out, before and after the import', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/import');
    dropFiles([transcriptFile('export.json', [NEW_SESSION, { sessionId: 'lost', title: 'Lost' }, GROWN_TRIP])]);
    const rows = await previewRows();
    expect(rows.map((row) => within(row).getByRole('rowheader').textContent)).toEqual(['Risotto without stirring', 'Train trip to Lisbon']);
    const preview = screen.getByRole('table', { name: 'What importing would do, per file and session' });
    expect(within(preview).getByText('1 damaged part skipped; the rest of the file is imported')).toBeTruthy();
    expect(within(preview).getByText('Conversation lost:').parentElement?.textContent).toBe('Conversation lost: transcript 2 has no sessionId or messages');

    fireEvent.click(screen.getByRole('button', { name: 'Import 2 sessions' }));
    await screen.findByRole('heading', { name: 'Import finished' });
    const reports = screen.getByRole('table', { name: 'What was saved, per file and session' });
    expect(within(reports).getByText('Conversation lost:')).toBeTruthy();
    expect(mock.host.sessionIds()).toEqual(expect.arrayContaining(['risotto', 'trip-lisbon']));
    expect(mock.host.sessionIds()).not.toContain('lost');
  });

  it('imports only the ticked sessions', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/import');
    dropFiles([exportFile()]);
    await previewRows();
    fireEvent.click(screen.getByRole('checkbox', { name: 'Include Train trip to Lisbon' }));
    fireEvent.click(screen.getByRole('button', { name: 'Import 1 session' }));
    await screen.findByRole('heading', { name: 'Import finished' });
    expect(mock.requestsOn('import:run')).toEqual([{ fileIds: ['file-1'], mode: 'incremental', sessionIds: ['risotto'] }]);
    const trip = await mock.api['sessions:show']({ sessionId: 'trip-lisbon' });
    expect(trip.messages).toHaveLength(6);
  });

  it('cancels a running import', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/import');
    dropFiles([exportFile()]);
    await previewRows();
    mock.gate.close();
    fireEvent.click(screen.getByRole('button', { name: 'Import 2 sessions' }));
    await screen.findByRole('progressbar', { name: 'Import progress' });
    fireEvent.click(screen.getByRole('button', { name: 'Cancel import' }));
    expect(await screen.findByRole('button', { name: 'Cancelling…' })).toHaveProperty('disabled', true);
    await waitFor(() => expect(mock.requestsOn('import:cancel')).toHaveLength(1));
    mock.gate.open();
    expect(await screen.findByText('Import cancelled. Sessions that finished before are saved; the others were not touched.')).toBeTruthy();
    expect(mock.host.sessionIds()).not.toContain('risotto');
  });
});
