// @vitest-environment jsdom
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { highlightTerms, splitHighlights } from '../../renderer/src/highlight.js';
import { createMockMemory } from './mockApi.js';
import { renderApp } from './render.js';

const marksIn = (element: HTMLElement): string[] => [...element.querySelectorAll('mark')].map((mark) => mark.textContent ?? '');

describe('search', () => {
  it('finds chunks across memory, highlights the query words and links to each chunk', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/search');
    fireEvent.change(await screen.findByRole('searchbox', { name: 'Search all memory' }), { target: { value: 'LISBON hotel' } });
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    expect(window.location.hash).toBe('#/search?q=LISBON+hotel');
    const results = await screen.findByRole('list', { name: 'Search results' });
    const first = within(results).getAllByRole('listitem')[0] as HTMLElement;
    expect(within(first).getByRole('link', { name: 'Train trip to Lisbon' })).toBeTruthy();
    expect(new Set(marksIn(first).map((mark) => mark.toLowerCase()))).toEqual(new Set(['lisbon', 'hotel']));
    const hits = await mock.api['search:query']({ query: 'LISBON hotel', limit: 50 });
    expect(within(first).getByRole('link', { name: `Open chunk ${hits[0]?.chunkId}` }).getAttribute('href')).toBe(`#/chunks/${hits[0]?.chunkId}`);
  });

  it('highlights Chinese query substrings', async () => {
    renderApp(createMockMemory(), `#/search?q=${encodeURIComponent('对话记忆')}`);
    const results = await screen.findByRole('list', { name: 'Search results' });
    const first = within(results).getAllByRole('listitem')[0] as HTMLElement;
    expect(within(first).getByRole('link', { name: '长期记忆的去重设计' })).toBeTruthy();
    expect(marksIn(first)).toContain('对话记忆');
  });

  it('says when nothing is found', async () => {
    renderApp(createMockMemory(), '#/search?q=zzzz');
    expect(await screen.findByRole('heading', { name: 'Nothing found for “zzzz”.' })).toBeTruthy();
  });
});

describe('highlight terms', () => {
  it('marks words case-insensitively, longest first, and ignores single letters in a longer query', () => {
    expect(highlightTerms('a Train  trip')).toEqual(['Train', 'trip']);
    expect(splitHighlights('The train TRIP', ['Train', 'trip'])).toEqual([
      { text: 'The ', match: false },
      { text: 'train', match: true },
      { text: ' ', match: false },
      { text: 'TRIP', match: true },
    ]);
  });

  it('marks Chinese runs and their two-character pieces, and treats regex characters literally', () => {
    expect(highlightTerms('长期记忆')).toEqual(['长期记忆', '长期', '期记', '记忆']);
    const parts = splitHighlights('关于记忆的讨论', highlightTerms('长期记忆'));
    expect(parts.filter((part) => part.match).map((part) => part.text)).toEqual(['记忆']);
    expect(splitHighlights('c++ (x)', highlightTerms('c++'))).toEqual([{ text: 'c', match: true }, { text: '++ (x)', match: false }]);
  });
});
