import os from 'node:os';
import path from 'node:path';

/** The desktop app's name: Electron derives its per-user folder from it. */
export const PRODUCT_NAME = 'Session Memory';

/**
 * Where the desktop app keeps its memory: `<OS app-data>/Session Memory/memory`, the same path
 * Electron's `app.getPath('userData')` leads to, so the app and the CLI share one store.
 */
export function appDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return env.APPDATA ?? path.join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME ?? path.join(home, '.config');
}

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.SESSION_MEMORY_HOME) return path.resolve(env.SESSION_MEMORY_HOME);
  return path.join(appDataDir(env, platform), PRODUCT_NAME, 'memory');
}
