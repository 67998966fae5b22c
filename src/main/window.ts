import type { BrowserWindowConstructorOptions } from 'electron';
import type { DesktopElectron, WebContentsApi, WindowApi } from './electron-api.ts';

/** The Linux window icon, relative to the bundled main process (out/main/index.js). */
export const linuxWindowIcon = '../../resources/icons/512x512.png';

/**
 * The window icon to set: Linux desktops show the window's own icon (the .desktop entry of a
 * package may not be installed, and `npm start` has none), while macOS and Windows take it
 * from the app bundle or executable and ignore this one.
 */
export const windowIcon = (platform: NodeJS.Platform, iconPath: string): string | undefined =>
  platform === 'linux' ? iconPath : undefined;

/** The window: the renderer is a plain web page of the engine, so it gets no Node and no IPC beyond its preload. */
export function windowOptions(preloadPath: string, icon?: string): BrowserWindowConstructorOptions {
  return {
    ...(icon ? { icon } : {}),
    width: 1360,
    height: 860,
    minWidth: 880,
    minHeight: 560,
    title: 'Sandbay',
    show: false,
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

const externalProtocols = new Set(['http:', 'https:', 'mailto:']);

const parse = (url: string) => {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
};

/** Whether `url` belongs to the app's own origin (the engine's http://127.0.0.1:<port>). */
export const isAppUrl = (url: string | undefined, appOrigin: string) => parse(url ?? '')?.origin === appOrigin;

/**
 * Pins the window to the app's origin: navigations elsewhere are stopped and, when they
 * are ordinary links, handed to the system browser; pop-ups never open inside the app.
 */
export function pinNavigation(
  contents: WebContentsApi,
  appOrigin: string,
  openExternal: (url: string) => Promise<void>,
): void {
  const toBrowser = (url: string) => {
    const parsed = parse(url);
    if (parsed && externalProtocols.has(parsed.protocol)) void openExternal(parsed.href).catch(() => {});
  };
  const guard = (event: { url: string; preventDefault(): void }) => {
    if (isAppUrl(event.url, appOrigin)) return;
    event.preventDefault();
    toBrowser(event.url);
  };
  contents.on('will-navigate', guard);
  contents.on('will-redirect', guard);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    toBrowser(url);
    return { action: 'deny' };
  });
  // Only writing to the clipboard (the copy buttons) is ever granted.
  contents.session.setPermissionRequestHandler((_contents, permission, callback) =>
    callback(permission === 'clipboard-sanitized-write'),
  );
}

/** Opens the inspector window on the engine's ready URL (which sets the admin cookie for SSE and deep links). */
export function openWindow(
  electron: Pick<DesktopElectron, 'BrowserWindow' | 'shell'>,
  preloadPath: string,
  engine: { url: string; readyUrl: string },
  icon?: string,
  log?: (message: string) => void,
): WindowApi {
  const window = new electron.BrowserWindow(windowOptions(preloadPath, icon));
  pinNavigation(window.webContents, new URL(engine.url).origin, (url) => electron.shell.openExternal(url));
  window.once('ready-to-show', () => window.show());
  window
    .loadURL(engine.readyUrl)
    .catch((err) => log?.(`loading the inspector failed: ${(err as Error)?.message ?? err}`));
  return window;
}
