/**
 * A newcomer's install: `npm start` without Electron's binary says what is missing and what to do,
 * and running the CLI through npm prints no npm warning about the project's configuration.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './helpers/cli.js';

describe('install and start', () => {
  it('npm start without the Electron binary prints one line: what is missing, how to get it, and the web mode', () => {
    // A copy of the start script in a folder whose node_modules has no electron package, as after an
    // `npm ci` whose Electron download failed.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sm-start-'));
    mkdirSync(path.join(dir, 'scripts'));
    mkdirSync(path.join(dir, 'node_modules'));
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
    copyFileSync(path.join(REPO, 'scripts', 'start-electron.mjs'), path.join(dir, 'scripts', 'start-electron.mjs'));
    const run = spawnSync(process.execPath, ['scripts/start-electron.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Electron binary is not installed/);
    expect(lines[0]).toMatch(/ELECTRON_MIRROR/);
    expect(lines[0]).toMatch(/npm run web/);
  });

  it('electron is optional and electron-builder is told its version, so npm ci succeeds without the download', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      optionalDependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
      dependencies?: Record<string, string>;
    };
    const version = pkg.optionalDependencies?.electron;
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.devDependencies?.electron).toBeUndefined();
    expect(pkg.dependencies?.electron).toBeUndefined();
    const builderConfig = readFileSync(path.join(REPO, 'electron-builder.yml'), 'utf8');
    expect(builderConfig).toContain(`electronVersion: ${version}`);
  });

  it('npx session-memory prints no npm warning', () => {
    const run = spawnSync('npx', ['--no-install', 'session-memory', '--help'], { cwd: REPO, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr).not.toMatch(/npm warn/i);
    expect(run.stdout).toMatch(/^Usage: session-memory/);
  });
});
