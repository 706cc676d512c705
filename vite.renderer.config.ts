// Builds the UI (renderer/) into dist-renderer/. `base: './'` keeps asset URLs relative so the same
// bundle loads from file:// in Electron and from the web-mode server.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('./renderer', import.meta.url));
const outDir = fileURLToPath(new URL('./dist-renderer', import.meta.url));

/**
 * Development only: React Fast Refresh needs an inline preamble script and a websocket, which the page's CSP
 * forbids. The dev server serves a CSP that allows them; built files keep index.html's strict one.
 */
function devServerCsp(): Plugin {
  return {
    name: 'session-memory:dev-csp',
    apply: 'serve',
    transformIndexHtml: (html) => html.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace("connect-src 'self'", "connect-src 'self' ws: wss:"),
  };
}

export default defineConfig({
  root,
  base: './',
  plugins: [react(), devServerCsp()],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // A desktop app loads its bundle from disk: one ~850 kB file (React, Recharts, the request schemas) is fine.
    chunkSizeWarningLimit: 1200,
  },
});
