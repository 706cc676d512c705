import type { MenuItemConstructorOptions } from 'electron';

/** The application menu: the platform's standard roles plus the app's own entries. */
export function appMenuTemplate(platform: NodeJS.Platform, actions: { openDataFolder: () => void }): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  return [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [{ label: 'Open Data Folder', click: actions.openDataFolder }, { type: 'separator' }, mac ? { role: 'close' } : { role: 'quit' }],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [{ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' }, { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' }, { role: 'togglefullscreen' }],
    },
    { role: 'windowMenu' },
  ];
}
