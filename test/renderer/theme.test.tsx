// @vitest-environment jsdom
import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createMockMemory } from './mockApi.js';
import { renderApp } from './render.js';

describe('theme', () => {
  it('switches between light and dark from the sidebar and the settings, and saves the choice', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/settings');
    await screen.findByRole('heading', { level: 1, name: 'Settings' });
    expect(document.documentElement.dataset.theme).toBe('light');

    fireEvent.click(screen.getByRole('button', { name: 'Switch to Dark theme' }));
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(await screen.findByRole('button', { name: 'Switch to Light theme' })).toBeTruthy();
    expect(mock.requestsOn('settings:set')).toContainEqual({ theme: 'dark' });

    fireEvent.click(screen.getByRole('radio', { name: 'Light' }));
    expect(document.documentElement.dataset.theme).toBe('light');
    expect(mock.host.settings.theme).toBe('light');
  });

  it('moves between the session tabs with the arrow keys', async () => {
    renderApp(createMockMemory(), '#/sessions/garden-log');
    const messages = await screen.findByRole('tab', { name: /Messages/ });
    fireEvent.keyDown(messages, { key: 'ArrowRight' });
    expect(await screen.findByRole('list', { name: 'Chunks of this session' })).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: /Chunks/ }));
  });
});
