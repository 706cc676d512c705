/**
 * Hash routes (`#/sessions/<id>`), so the UI works from file:// in Electron and from the web-mode server alike.
 */
import { useEffect, useState } from 'react';

export type SessionTab = 'messages' | 'chunks';

export type Route =
  | { name: 'sessions' }
  | { name: 'session'; sessionId: string; tab: SessionTab }
  | { name: 'chunk'; chunkId: string }
  | { name: 'search'; query: string }
  | { name: 'import' }
  | { name: 'duplicates' }
  | { name: 'sources' }
  | { name: 'settings' }
  | { name: 'notFound'; path: string };

function decode(part: string | undefined): string | null {
  if (part === undefined || part === '') return null;
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [pathPart = '', queryPart = ''] = raw.split('?', 2);
  const parts = pathPart.split('/').filter(Boolean);
  const query = new URLSearchParams(queryPart);
  const [head, second, third] = parts;
  if (!head || head === 'sessions') {
    if (second === undefined) return { name: 'sessions' };
    const sessionId = decode(second);
    if (sessionId !== null && parts.length <= 3 && (third === undefined || third === 'messages' || third === 'chunks')) {
      return { name: 'session', sessionId, tab: third ?? 'messages' };
    }
  }
  if (head === 'chunks' && parts.length === 2) {
    const chunkId = decode(second);
    if (chunkId !== null) return { name: 'chunk', chunkId };
  }
  if (head === 'search' && parts.length === 1) return { name: 'search', query: query.get('q') ?? '' };
  if (head === 'import' && parts.length === 1) return { name: 'import' };
  if (head === 'settings' && parts.length === 1) return { name: 'settings' };
  if (head === 'duplicates' && parts.length === 1) return { name: 'duplicates' };
  if (head === 'sources' && parts.length === 1) return { name: 'sources' };
  return { name: 'notFound', path: raw };
}

export function hrefFor(route: Route): string {
  switch (route.name) {
    case 'sessions':
      return '#/sessions';
    case 'session':
      return `#/sessions/${encodeURIComponent(route.sessionId)}${route.tab === 'chunks' ? '/chunks' : ''}`;
    case 'chunk':
      return `#/chunks/${encodeURIComponent(route.chunkId)}`;
    case 'search':
      return route.query ? `#/search?${new URLSearchParams({ q: route.query }).toString()}` : '#/search';
    case 'import':
      return '#/import';
    case 'duplicates':
      return '#/duplicates';
    case 'sources':
      return '#/sources';
    case 'settings':
      return '#/settings';
    case 'notFound':
      return `#/${route.path}`;
  }
}

export const sessionHref = (sessionId: string, tab: SessionTab = 'messages'): string => hrefFor({ name: 'session', sessionId, tab });
export const chunkHref = (chunkId: string): string => hrefFor({ name: 'chunk', chunkId });

export function navigate(route: Route, options: { replace?: boolean } = {}): void {
  const href = hrefFor(route);
  if (window.location.hash === href) return;
  if (options.replace) {
    window.history.replaceState(null, '', href);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    window.location.hash = href;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const update = (): void => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', update);
    update();
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
