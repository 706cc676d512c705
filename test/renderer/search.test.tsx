// @vitest-environment jsdom
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { highlightTerms, splitHighlights } from '../../renderer/src/highlight.js';
import { createMockMemory, TRIP } from './mockApi.js';
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
    expect(new Set(marksIn(first).map((mark) => mark.toLowerCase()))).toEqual(new Set(['lisbon', 'hotel', 'hotels']));
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

  it('shows a memory held by several sessions once, naming the others', async () => {
    const mock = createMockMemory();
    mock.host.save({ ...TRIP, sessionId: 'trip-copy', title: 'Lisbon trip (copy)' });
    renderApp(mock, '#/search?q=Lisbon+hotel');
    const results = await screen.findByRole('list', { name: 'Search results' });
    const items = within(results).getAllByRole('listitem');
    const texts = items.map((item) => item.querySelector('.result__text')?.textContent);
    expect(new Set(texts).size).toBe(texts.length);
    const first = items[0] as HTMLElement;
    expect(within(first).getByText(/Also in 1 other session/)).toBeTruthy();
    const sessionLinks = within(first).getAllByRole('link', { name: /Lisbon trip \(copy\)|Train trip to Lisbon/ });
    expect(new Set(sessionLinks.map((link) => link.getAttribute('href')))).toEqual(new Set(['#/sessions/trip-lisbon', '#/sessions/trip-copy']));
  });

  it('says when nothing is found', async () => {
    renderApp(createMockMemory(), '#/search?q=zzzz');
    expect(await screen.findByRole('heading', { name: 'Nothing found for “zzzz”.' })).toBeTruthy();
  });
});

describe('highlight terms', () => {
  const marked = (text: string, query: string): string[] => splitHighlights(text, highlightTerms(query)).filter((part) => part.match).map((part) => part.text);

  it('marks whole words case-insensitively, never the inside of a longer word', () => {
    expect(splitHighlights('The train TRIP', highlightTerms('a Train  trip'))).toEqual([
      { text: 'The ', match: false },
      { text: 'train', match: true },
      { text: ' ', match: false },
      { text: 'TRIP', match: true },
    ]);
    expect(marked('The assistant is one of a kind', 'what is on assistant')).toEqual(['assistant']);
    expect(marked('Constraint: rain on the plain', 'rain')).toEqual(['rain']);
  });

  it('marks other forms of a query word by its stem, and possessives', () => {
    expect(marked('She trains daily; the training paid off at Lisbon’s station', 'train lisbon')).toEqual(['trains', 'training', 'Lisbon’s']);
    expect(marked('Indexes were rebuilt after indexing', 'index')).toEqual(['Indexes', 'indexing']);
  });

  it('leaves stop words unmarked unless the query holds nothing else', () => {
    expect(marked('This is the plan for the deploy', 'what is the plan')).toEqual(['plan']);
    expect(marked('This is it', 'is')).toEqual(['is']);
  });

  it('marks Chinese runs and their two-character pieces inside unspaced text, and treats regex characters literally', () => {
    expect(highlightTerms('长期记忆').pieces).toEqual(['长期记忆', '长期', '期记', '记忆']);
    expect(marked('关于记忆的讨论', '长期记忆')).toEqual(['记忆']);
    expect(marked('我们讨论了长期记忆和 memory', '长期记忆 memory')).toEqual(['长期记忆', 'memory']);
    expect(splitHighlights('c++ (x)', highlightTerms('c++'))).toEqual([{ text: 'c', match: true }, { text: '++ (x)', match: false }]);
  });
});
