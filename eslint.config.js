// Layering rules: folders say which runtime a file may use (see docs/architecture.md, "Layout").
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

// The layers of electron/, lowest first: a folder may import from its own layer and those below,
// never from a higher one (the engine records a forget; the sources, above it, react to it).
// shared/ is below them all (its own rules, further down).
const LAYERS = [
  ['embedding', 'importers'],
  ['engine'],
  ['sources'],
  ['mcp', 'host'],
  ['cli', 'main', 'preload'],
];

/** The import patterns a file of `folder` may not use: every folder of a higher layer, by any relative path. */
function higherLayers(folder) {
  const rank = LAYERS.findIndex((layer) => layer.includes(folder));
  const higher = LAYERS.slice(rank + 1).flat();
  return {
    group: higher.flatMap((name) => [`../${name}/*`, `../../${name}/*`, `../../../${name}/*`, `../../../../${name}/*`]),
    message: `electron/${folder} must not import from a higher layer (${higher.join(', ')}): the layers run embedding and importers, engine, sources, mcp and host, cli and main; a lower layer hands what it knows up through options or the store.`,
  };
}

/** The same for `import()` expressions, which no-restricted-imports does not see. */
function higherLayersDynamic(folder) {
  const rank = LAYERS.findIndex((layer) => layer.includes(folder));
  const higher = LAYERS.slice(rank + 1).flat();
  return {
    selector: `ImportExpression > Literal[value=/^(\\.\\.\\/)+(${higher.join('|')})\\//]`,
    message: `electron/${folder} must not import from a higher layer (${higher.join(', ')}).`,
  };
}

/** A block per folder of electron/: its layer's rule beside the patterns every file of it keeps. */
function layered(folders, patterns) {
  return folders.map((folder) => {
    const top = LAYERS.at(-1).includes(folder);
    return {
      files: [`electron/${folder}/**/*.ts`],
      rules: {
        'no-restricted-imports': ['error', { patterns: top ? patterns : [...patterns, higherLayers(folder)] }],
        ...(top ? {} : { 'no-restricted-syntax': ['error', higherLayersDynamic(folder)] }),
      },
    };
  });
}

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
  // The engine, embedder, importers and CLI run in plain Node (tests, CLI, web mode): no Electron.
  ...layered(['embedding', 'sources', 'mcp', 'host', 'cli'], [noElectron, noUi, engineInternals, importerInternals]),
  ...layered(['importers'], [
    noElectron,
    noUi,
    engineInternals,
    { group: ['**/index.js', './index.js', 'index.js'], message: 'Inside the importers, import the module itself, not a folder\'s index.js.' },
  ]),
  ...layered(['engine'], [
    noElectron,
    noUi,
    { group: ['**/index.js', './index.js', 'index.js'], message: 'Inside the engine, import the module itself, not a folder\'s index.js.' },
  ]),
  ...layered(['main', 'preload'], [engineInternals, importerInternals]),
  {
    files: ['scripts/**/*.ts', 'scripts/**/*.mjs'],
    rules: { 'no-restricted-imports': ['error', { patterns: [engineInternals, importerInternals] }] },
  },
);
