// Builds the UI (renderer/) into dist-renderer/. `base: './'` keeps asset URLs relative so the same
// bundle loads from file:// in Electron and from the web-mode server.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('./renderer', import.meta.url));
const outDir = fileURLToPath(new URL('./dist-renderer', import.meta.url));

export default defineConfig({
  root,
  base: './',
  plugins: [react()],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // A desktop app loads its bundle from disk: one ~850 kB file (React, Recharts, the request schemas) is fine.
    chunkSizeWarningLimit: 1200,
  },
});
