// Downloads Electron's binary (run by `npm ci` through the prepare script, and by
// `npm run electron:download`). package.json's allowScripts keeps npm from running Electron's own
// install script, whose failure would fail the whole install on networks that block the download;
// here a failure is one line, the rest of the project works (CLI, tests, `npm run web`), and
// `npm start` says what is missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

function electronDir() {
  try {
    return path.dirname(require.resolve('electron/package.json'));
  } catch {
    return null;
  }
}

function hasBinary() {
  try {
    const binary = require('electron');
    return typeof binary === 'string' && existsSync(binary);
  } catch {
    return false;
  }
}

const dir = electronDir();
if (dir && !hasBinary()) {
  const run = spawnSync(process.execPath, [path.join(dir, 'install.js')], { encoding: 'utf8' });
  if (run.status !== 0) {
    const reason = (run.stderr || run.stdout).split('\n').find((line) => line.trim()) ?? `exit code ${run.status}`;
    console.warn(`Electron's binary was not downloaded (${reason.trim()}): \`npm start\` needs it; \`npm run web\` serves the same app without it.`);
  }
}
