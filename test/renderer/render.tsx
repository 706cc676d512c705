/** Renders the whole app over a mock host, starting at a route; cleans up after each test. */
import { cleanup, configure, fireEvent, render, type RenderResult } from '@testing-library/react';
import { afterEach } from 'vitest';

// The suite runs beside heavy tests (embedding, LanceDB) on two cores: give findBy/waitFor room.
configure({ asyncUtilTimeout: 10_000 });
import { App } from '../../renderer/src/App.js';
import type { MockMemory } from './mockApi.js';

afterEach(() => {
  cleanup();
  window.location.hash = '';
  window.localStorage.clear();
  delete document.documentElement.dataset.theme;
});

export function renderApp(mock: MockMemory, hash = '#/sessions'): RenderResult {
  window.location.hash = hash;
  return render(<App api={mock.api} />);
}

/** Drops files on the window, as a person dragging them from the file manager would. */
export function dropFiles(files: File[]): void {
  const dataTransfer = { files, types: ['Files'], dropEffect: 'none' };
  fireEvent.dragEnter(window, { dataTransfer });
  fireEvent.dragOver(window, { dataTransfer });
  fireEvent.drop(window, { dataTransfer });
}
