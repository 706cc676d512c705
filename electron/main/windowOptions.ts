/**
 * Security settings of the one window, in one pure function a unit test reads
 * (Electron's security checklist). No Electron import: the options are plain data.
 */
export interface SecureWindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  show: boolean;
  title: string;
  backgroundColor: string;
  webPreferences: {
    preload: string;
    contextIsolation: true;
    sandbox: true;
    nodeIntegration: false;
    nodeIntegrationInWorker: false;
    nodeIntegrationInSubFrames: false;
    webviewTag: false;
    webSecurity: true;
    allowRunningInsecureContent: false;
    experimentalFeatures: false;
    navigateOnDragDrop: false;
    spellcheck: boolean;
  };
}

export function secureWindowOptions(preloadPath: string, dark: boolean): SecureWindowOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 880,
    minHeight: 560,
    show: false,
    title: 'Session Memory',
    backgroundColor: dark ? '#15171c' : '#f7f7f9',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      // A file dropped on the window is imported, never opened as a page.
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

export const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:";

/** The app's own pages: the bundled UI (file://) or, in development, the Vite dev server. */
export function isAppUrl(url: string, appUrl: string): boolean {
  try {
    const target = new URL(url);
    const app = new URL(appUrl);
    if (app.protocol === 'file:') return target.protocol === 'file:' && target.pathname === app.pathname;
    return target.origin === app.origin;
  } catch {
    return false;
  }
}

/** Links the user may open in the system browser: parsed http(s) URLs only. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    return false;
  }
}
