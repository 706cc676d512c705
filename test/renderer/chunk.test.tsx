// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createMockMemory } from './mockApi.js';
import { renderApp } from './render.js';

describe('chunk inspector', () => {
  it('shows the text, message range and ids, model, the embedding and the most similar chunks elsewhere', async () => {
    const mock = createMockMemory();
    const [chunk] = (await mock.api['sessions:show']({ sessionId: 'garden-log' })).chunks;
    if (!chunk) throw new Error('the sample garden log has chunks');
    renderApp(mock, `#/chunks/${encodeURIComponent(chunk.chunkId)}`);

    expect(await screen.findByRole('heading', { level: 1, name: `Chunk ${chunk.chunkId}` })).toBeTruthy();
    const text = screen.getByRole('region', { name: 'Text' });
    expect(text.textContent).toContain('user: What should I do in the garden on day 0?');

    const details = screen.getByRole('region', { name: 'Chunk details' });
    expect(within(details).getByRole('link', { name: 'Garden log' }).getAttribute('href')).toBe('#/sessions/garden-log');
    expect(within(details).getByText('Xenova/multilingual-e5-small')).toBeTruthy();
    expect(within(details).getByText(`${chunk.msgIds[0]} → ${chunk.msgIds.at(-1)} (${chunk.msgIds.length} messages)`)).toBeTruthy();
    for (const msgId of chunk.msgIds) expect(within(details).getByText(msgId)).toBeTruthy();

    const picture = screen.getByRole('img', { name: /^Embedding with 512 dimensions, values from -?0\.\d{3} to 0\.\d{3}, norm 1\.000$/ });
    expect(picture.querySelectorAll('rect')).toHaveLength(512);

    const similar = screen.getByRole('region', { name: 'Most similar chunks elsewhere' });
    const items = within(similar).getAllByRole('listitem');
    expect(items.length).toBe(3);
    const inspected = await mock.api['chunks:inspect']({ chunkId: chunk.chunkId, similar: 8 });
    const nearest = inspected.similar[0];
    expect(within(items[0] as HTMLElement).getByRole('link', { name: `Inspect chunk ${nearest?.chunkId}` }).getAttribute('href')).toBe(`#/chunks/${nearest?.chunkId}`);
    expect(within(items[0] as HTMLElement).getByLabelText(/^Similarity \d+%$/)).toBeTruthy();
  });

  it('reports a chunk that does not exist', async () => {
    renderApp(createMockMemory(), '#/chunks/c-missing');
    expect(await within(screen.getByRole('alert')).findByText('No chunk "c-missing".')).toBeTruthy();
    expect(within(screen.getByRole('alert')).getByText('Not found')).toBeTruthy();
  });
});
