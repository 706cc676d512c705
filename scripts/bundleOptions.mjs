// esbuild options shared by the bundles of the packaged app (scripts/build-electron.mjs). Packaged
// builds define __SESSION_MEMORY_PACKAGED__, so test switches (electron/engine/files/testSwitches.ts) and the
// development renderer URL are ignored there.
export const packagedBundle = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // The embedder's default worker URL uses import.meta; the packaged main passes its own worker URL instead.
  logOverride: { 'empty-import-meta': 'silent' },
  define: { __SESSION_MEMORY_PACKAGED__: 'true' },
};
