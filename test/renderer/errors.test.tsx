// @vitest-environment jsdom
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createMockMemory } from './mockApi.js';
import { renderApp } from './render.js';

describe('errors from the host', () => {
  it('shows a failed request in the alert region, with a retry that works', async () => {
    const mock = createMockMemory();
    mock.failNext('sessions:list', 'store_damaged', 'The archive record does not match the chunk table.');
    renderApp(mock, '#/sessions');
    const alert = screen.getByRole('alert');
    expect(await within(alert).findByText('The archive record does not match the chunk table.', { exact: false })).toBeTruthy();
    expect(within(alert).getByText('Store damaged')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table', { name: 'Archived sessions' })).toBeTruthy();
    fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss this message' }));
    expect(alert.textContent).toBe('');
  });

  it('shows the reason the host refused a settings change, where it was made and in the alert', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/settings');
    fireEvent.click(await screen.findByRole('radio', { name: /English, built in/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Use this model' }));
    const message = /This store was embedded with Xenova\/multilingual-e5-small/;
    const alert = screen.getByRole('alert');
    expect(await within(alert).findByText(message)).toBeTruthy();
    expect(within(alert).getByText('Model mismatch')).toBeTruthy();
    const model = screen.getByRole('region', { name: 'Embedding model' });
    expect(within(model).getByText(message)).toBeTruthy();
    expect(within(model).getAllByText('Xenova/multilingual-e5-small').length).toBeGreaterThan(0);
  });

  it('shows a model download from onModelDownload events', async () => {
    const mock = createMockMemory({ sample: false });
    mock.gate.close();
    renderApp(mock, '#/settings');
    fireEvent.click(await screen.findByRole('radio', { name: /English, built in/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Use this model' }));
    expect(await screen.findByText('Saved.')).toBeTruthy();
    expect(mock.host.settings.model).toBe('use-lite-en');
    fireEvent.click(screen.getByRole('radio', { name: /Multilingual/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Use this model' }));
    const bar = await screen.findByRole('progressbar', { name: 'Model download' });
    expect(screen.getByText(/Downloading Xenova\/multilingual-e5-small\/config\.json/)).toBeTruthy();
    expect(bar.getAttribute('aria-valuenow')).toBe('0');
    mock.gate.open();
    expect(await screen.findByText('Model ready.')).toBeTruthy();
  });

  it('rejects a relative data directory with the host’s message', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/settings');
    fireEvent.change(await screen.findByRole('textbox', { name: 'Move to another folder or store' }), { target: { value: 'relative/dir' } });
    fireEvent.click(screen.getByRole('button', { name: 'Move here' }));
    expect(await within(screen.getByRole('region', { name: 'Storage' })).findByText(/must be an absolute path/)).toBeTruthy();
    expect(mock.host.settings.dataDir).toBe('/home/demo/.session-memory');
  });
});
