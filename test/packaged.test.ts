/**
 * What a packaged build does differently: test switches are ignored whatever the environment says,
 * and the offline model is copied from the ready-built one the package ships instead of being built.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { packagedBundle } from '../scripts/bundleOptions.mjs';
import { ensureUseLiteEn } from '../electron/embedding/useLiteEn.js';
import { REPO, runCli } from './helpers/cli.js';
import { tempDir } from './helpers/engine.js';
import { testModelDir } from './helpers/model.js';

/** Bundles a snippet that prints the crash switch as the code under test reads it, and runs it with the switch set. */
async function switchSeenBy(options: BuildOptions, env: Record<string, string> = {}): Promise<string> {
  const out = await build({
    ...options,
    stdin: { contents: "import { testSwitch } from './electron/engine/files/testSwitches.ts'; console.log(JSON.stringify(testSwitch('SESSION_MEMORY_TEST_CRASH') ?? null));", resolveDir: REPO, loader: 'ts' },
    sourcemap: false,
    write: false,
    format: 'cjs',
  });
  const run = spawnSync(process.execPath, ['-e', out.outputFiles[0]!.text], { env: { ...process.env, SESSION_MEMORY_TEST_CRASH: 'save:1', ...env }, encoding: 'utf8' });
  return run.stdout.trim();
}

describe('packaged builds', () => {
  it('ignore test switches, which development bundles honour', async () => {
    expect(await switchSeenBy(packagedBundle)).toBe('null');
    const { define: _packagedOnly, ...development } = packagedBundle;
    expect(await switchSeenBy(development)).toBe('"save:1"');
  });

  it("a source checkout's CLI (which MCP setups run) honours them only in a test run", async () => {
    const { dir, cleanup } = tempDir('sm-switches-');
    try {
      const file = path.join(dir, 'chat.json');
      await fs.writeFile(file, JSON.stringify({ session_id: 'switches', messages: [{ msg_id: 'm1', role: 'user', content: 'Does a stray crash switch stop this save?' }] }));
      const { define: _packagedOnly, ...development } = packagedBundle;
      expect(await switchSeenBy(development, { SESSION_MEMORY_TEST_RUN: '' })).toBe('null');
      // A person who has the crash switch in their environment, outside the test suite: the save runs.
      const outside = await runCli(['--data', path.join(dir, 'outside'), 'save', file], { SESSION_MEMORY_TEST_CRASH: 'save:1', SESSION_MEMORY_TEST_RUN: '' });
      expect(outside.signal).toBeNull();
      expect(outside.status).toBe(0);
      const inside = await runCli(['--data', path.join(dir, 'inside'), 'save', file], { SESSION_MEMORY_TEST_CRASH: 'save:1' });
      expect(inside.signal).toBe('SIGKILL');
    } finally {
      cleanup();
    }
  });

  it('copy the shipped ready-built offline model instead of building it', async () => {
    const { dir, cleanup } = tempDir('sm-bundled-');
    const previous = process.env.SESSION_MEMORY_BUNDLED_MODELS;
    try {
      // A shipped copy, marked so that a copy can be told from a build.
      const shipped = path.join(dir, 'resources', 'models', 'use-lite-en');
      await fs.cp(await testModelDir(), shipped, { recursive: true });
      await fs.writeFile(path.join(shipped, 'shipped.txt'), 'ready-built');
      process.env.SESSION_MEMORY_BUNDLED_MODELS = path.join(dir, 'resources', 'models');

      const made = await ensureUseLiteEn(path.join(dir, 'user-models'));
      expect(made).toBe(path.join(dir, 'user-models', 'use-lite-en'));
      expect(await fs.readFile(path.join(made, 'shipped.txt'), 'utf8')).toBe('ready-built');
      expect((await fs.stat(path.join(made, 'onnx', 'model.onnx'))).size).toBe((await fs.stat(path.join(shipped, 'onnx', 'model.onnx'))).size);
      expect((await fs.readdir(path.join(dir, 'user-models'))).sort()).toEqual(['use-lite-en']);
    } finally {
      if (previous === undefined) delete process.env.SESSION_MEMORY_BUNDLED_MODELS;
      else process.env.SESSION_MEMORY_BUNDLED_MODELS = previous;
      cleanup();
    }
  });
});
