import { configChannel } from '../preload/channel.ts';
import type { SandboxOptions } from '../server/start.ts';
import type { DesktopElectron, WindowApi } from './electron-api.ts';
import type { DesktopOptions } from './flags.ts';
import { isAppUrl, openWindow } from './window.ts';

/** What the desktop shell needs of the engine (startSandbox's result). */
export interface Engine {
  url: string;
  readyUrl: string;
  adminKey?: string;
  close(): Promise<void>;
}

export interface DesktopDeps {
  startEngine: (options: SandboxOptions) => Promise<Engine>;
  options: DesktopOptions;
  preloadPath: string;
  /** The window icon (set on Linux only: see windowIcon). */
  icon?: string;
  log?: (message: string) => void;
}

async function startEngine(deps: DesktopDeps): Promise<Engine> {
  const { port, ...options } = deps.options;
  const start = (p: number) => deps.startEngine({ port: p, ...options, logRequests: false });
  try {
    return await start(port);
  } catch (err) {
    // Another program on the default port should not stop the desktop app: any free port will do.
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && port !== 0) return start(0);
    throw err;
  }
}

/**
 * The desktop app's lifecycle: one instance (a second launch focuses the first), the engine
 * on the shared data dir, one window on its ready URL, and a shutdown that closes the engine
 * before the process exits so pending deliveries stay queued in the database.
 */
export async function runDesktop(electron: DesktopElectron, deps: DesktopDeps): Promise<void> {
  const { app } = electron;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  let engine: Engine | undefined;
  let window: WindowApi | undefined;
  let closing: Promise<void> | undefined;
  let closed = false;

  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  // Sandbay is its window: closing it stops the engine on every platform.
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', (event) => {
    if (!engine || closed) return;
    event.preventDefault();
    closing ??= engine
      .close()
      .catch((err) => deps.log?.(`closing the engine failed: ${(err as Error)?.message ?? err}`))
      .finally(() => {
        closed = true;
        app.quit();
      });
  });

  await app.whenReady();
  try {
    engine = await startEngine(deps);
  } catch (err) {
    electron.dialog.showErrorBox('Sandbay cannot start', (err as Error)?.message ?? String(err));
    app.exit(1);
    return;
  }
  const running = engine;
  electron.ipcMain.on(configChannel, (event) => {
    // Only the app's own pages get the key; anything else that managed to load gets nothing.
    event.returnValue = isAppUrl(event.senderFrame?.url, new URL(running.url).origin)
      ? { apiBase: running.url, adminKey: running.adminKey }
      : null;
  });
  window = openWindow(electron, deps.preloadPath, running, deps.icon, deps.log);
  window.on('closed', () => {
    window = undefined;
  });
}
