/** Entry point: pick the transport (desktop bridge or web server), then render the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { resolveMemoryApi } from './api.js';
import { App } from './App.js';
import './styles.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
const root = createRoot(container);

resolveMemoryApi().then(
  (api) =>
    root.render(
      <StrictMode>
        <App api={api} />
      </StrictMode>,
    ),
  (error: unknown) => {
    // Only a failure to load the demo module can land here; the real transports never reject.
    container.textContent = `Session Memory could not start: ${error instanceof Error ? error.message : String(error)}`;
  },
);
