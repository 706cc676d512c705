// Layering rules: folders say which runtime a file may use (see README, "Layout").
import tseslint from 'typescript-eslint';

// Outside the engine, its code is reached through its facade (engine.ts), errors.ts, or a folder's
// index.ts; inside it, modules import one another by path (never through an index: no cycles).
const engineInternals = {
  group: ['**/engine/*/**', '!**/engine/*/index.js', '**/engine/context.js'],
  message: 'Import engine code through electron/engine/engine.js, errors.js or a folder\'s index.js.',
};
// The same for the importers: outside them, their root modules or a family folder's index.ts
// (electron/importers/index.ts is the way in); inside them, modules import one another by path.
const importerInternals = {
  group: ['**/importers/*/**', '!**/importers/*/index.js'],
  message: 'Import importer code through electron/importers/index.js (or a family folder\'s index.js).',
};
const noElectron = { group: ['electron', 'electron/*'], message: 'Only electron/main and electron/preload may import Electron; the engine runs in plain Node.' };
const noUi = { group: ['react', 'react-dom', 'react-dom/*', '../renderer/*', '../../renderer/*'], message: 'The engine must not import the UI.' };

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'worker_threads', 'crypto', 'stream', 'url', 'util', 'zlib', 'events', 'net', 'http', 'https'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'dist-cli/**', 'dist-electron/**', 'dist-renderer/**', 'release/**', '.cache/**', '.scratch/**', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // shared/ is plain TypeScript used by every side: no Electron, no Node, no DOM.
    files: ['shared/**/*.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['electron', 'electron/*'], message: 'shared/ must not import Electron.' },
          { group: nodeBuiltins, message: 'shared/ must not import Node built-ins.' },
          { group: ['react', 'react-dom', 'react-dom/*'], message: 'shared/ must not import DOM libraries.' },
          { group: ['../electron/*', '../renderer/*', '../../electron/*', '../../renderer/*'], message: 'shared/ must not depend on a side.' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'window', message: 'shared/ must not use the DOM.' },
        { name: 'document', message: 'shared/ must not use the DOM.' },
        { name: 'process', message: 'shared/ must not use Node.' },
        { name: 'Buffer', message: 'shared/ must not use Node.' },
      ],
    },
  },
  {
    // The UI runs in a sandboxed renderer (or a browser): no Electron, no Node, no engine code.
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['electron', 'electron/*'], message: 'The renderer talks to the host only through the preload bridge (shared/ipc.ts).' },
          { group: nodeBuiltins, message: 'The renderer must not import Node built-ins.' },
          { group: ['../electron/*', '../../electron/*', '../../../electron/*'], message: 'The renderer must not import engine code; use the IPC contract in shared/.' },
        ],
      }],
    },
  },
  {
    // The engine, embedder, importers and CLI run in plain Node (tests, CLI, web mode): no Electron.
    files: ['electron/**/*.ts'],
    ignores: ['electron/main/**', 'electron/preload/**', 'electron/engine/**', 'electron/importers/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noElectron, noUi, engineInternals, importerInternals] }] },
  },
  {
    files: ['electron/importers/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          noElectron,
          noUi,
          engineInternals,
          { group: ['**/index.js', './index.js', 'index.js'], message: 'Inside the importers, import the module itself, not a folder\'s index.js.' },
        ],
      }],
    },
  },
  {
    files: ['electron/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          noElectron,
          noUi,
          { group: ['**/index.js', './index.js', 'index.js'], message: 'Inside the engine, import the module itself, not a folder\'s index.js.' },
        ],
      }],
    },
  },
  {
    files: ['electron/main/**/*.ts', 'electron/preload/**/*.ts', 'scripts/**/*.ts', 'scripts/**/*.mjs'],
    rules: { 'no-restricted-imports': ['error', { patterns: [engineInternals, importerInternals] }] },
  },
);
