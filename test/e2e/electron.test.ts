/**
 * The real desktop window through Playwright's Electron driver. It runs where an Electron binary
 * is installed (a developer's machine after `npm ci`); on machines that cannot download Electron's
 * binary (it is an optional dependency, so `npm ci` goes on without it), there is no binary to
 * launch, and the skip says so.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron } from 'playwright';
import { REPO } from '../helpers/cli.js';

function electronBinary(): string | null {
  try {
    const binary = createRequire(import.meta.url)('electron') as unknown as string;
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null; // electron's index throws when its binary was never downloaded
  }
}

const binary = electronBinary();
const hasDisplay = Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY || process.platform !== 'linux');
const reason = !binary ? 'no Electron binary installed (its download was blocked, so npm ci went on without the optional package)' : !hasDisplay ? 'no display (run under xvfb-run)' : '';
if (reason) console.log(`desktop window test skipped: ${reason}`);

describe.skipIf(Boolean(reason))(`the desktop window${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('opens one secure window that shows the sessions view', async () => {
    execFileSync('npm', ['run', 'build'], { cwd: REPO, stdio: 'inherit' });
    const home = mkdtempSync(path.join(os.tmpdir(), 'sm-electron-'));
    const app = await electron.launch({ executablePath: binary!, args: [REPO], env: { ...process.env, SESSION_MEMORY_HOME: path.join(home, 'memory'), SESSION_MEMORY_MODEL: 'use-lite-en' } });
    try {
      const window = await app.firstWindow();
      await window.getByRole('heading', { name: 'No memories yet' }).waitFor();
      const isolated = await window.evaluate(() => typeof (globalThis as { require?: unknown }).require === 'undefined' && typeof (globalThis as { process?: unknown }).process === 'undefined');
      expect(isolated).toBe(true);
      expect(await window.evaluate(() => Object.keys((globalThis as unknown as { memory: object }).memory).sort())).toContain('sessions:list');
    } finally {
      await app.close();
    }
  });
});
