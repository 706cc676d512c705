/**
 * Where tools keep their conversations by default, as pure functions of the platform, the home
 * folder and the environment, so that the places for Linux, macOS and Windows can be listed (and
 * tested) on any of them. Nothing here touches the disk: whoever lists sources checks what exists.
 */
import path from 'node:path';

export interface LocationContext {
  platform: NodeJS.Platform;
  /** The person's home folder. */
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

export interface ToolLocation {
  /** The tool, as `SessionInput.source` names it (`cline`, `roo-code`, `kilo-code`, `aider`, `opencode`). */
  tool: string;
  /** A folder to import as a whole, or one file. */
  path: string;
  kind: 'folder' | 'file';
  /** Set when the place comes from the tool's own environment variable. */
  fromVariable?: string;
}

export function currentLocationContext(): LocationContext {
  return { platform: process.platform, home: process.env.HOME ?? process.env.USERPROFILE ?? '', env: process.env };
}

/** Paths joined with the separator of the platform they are for, not of the one we run on. */
export function joinFor(platform: NodeJS.Platform, ...parts: string[]): string {
  return platform === 'win32' ? path.win32.join(...parts) : path.posix.join(...parts);
}

/** The editors built on VS Code, by the folder name each uses for its user data. */
export const VS_CODE_EDITORS = ['Code', 'Code - Insiders', 'Cursor', 'VSCodium', 'Windsurf'] as const;

/**
 * `<user data>/User/globalStorage` of each VS Code-family editor: `~/.config/<Editor>` on Linux
 * (`XDG_CONFIG_HOME`), `~/Library/Application Support/<Editor>` on macOS, `%APPDATA%\<Editor>` on Windows.
 */
export function vsCodeGlobalStorageFolders(context: LocationContext): Array<{ editor: string; folder: string }> {
  const { platform, home, env } = context;
  const appData =
    platform === 'win32'
      ? (env.APPDATA ?? joinFor(platform, home, 'AppData', 'Roaming'))
      : platform === 'darwin'
        ? joinFor(platform, home, 'Library', 'Application Support')
        : (env.XDG_CONFIG_HOME ?? joinFor(platform, home, '.config'));
  return VS_CODE_EDITORS.map((editor) => ({ editor, folder: joinFor(platform, appData, editor, 'User', 'globalStorage') }));
}
