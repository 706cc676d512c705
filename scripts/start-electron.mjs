// `npm start`: builds the app and opens it in Electron. Electron is an optional dependency (its
// install script downloads the binary, which some networks block), so say plainly when it is missing.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The Electron binary's path, or null when the package or its downloaded binary is missing. */
function electronBinary() {
  try {
    const binary = require('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const binary = electronBinary();
if (!binary) {
  console.error(
    'Session Memory: the Electron binary is not installed (its download from GitHub failed or was skipped). ' +
      'Download it with `npm run electron:download` (needs access to GitHub, or a mirror: `ELECTRON_MIRROR=<url> npm run electron:download`); ' +
      'meanwhile `npm run web` serves the same app in your browser.',
  );
  process.exit(1);
}

const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
if (build.status !== 0) process.exit(build.status ?? 1);
const app = spawn(binary, ['.', ...process.argv.slice(2)], { stdio: 'inherit' });
app.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
