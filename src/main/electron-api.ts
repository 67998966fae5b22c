import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The slice of Electron's API the main process uses. Main-process logic takes it as a
 * parameter (index.ts passes the real module), so unit tests run it against a stand-in
 * without an Electron binary.
 */

export interface NavigationEvent {
  url: string;
  preventDefault(): void;
}

export interface WebContentsApi {
  on(event: 'will-navigate' | 'will-redirect', listener: (event: NavigationEvent) => void): void;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  session: {
    setPermissionRequestHandler(
      handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void,
    ): void;
  };
}

export interface WindowApi {
  webContents: WebContentsApi;
  loadURL(url: string): Promise<void>;
  once(event: 'ready-to-show', listener: () => void): void;
  on(event: 'closed', listener: () => void): void;
  show(): void;
  isMinimized(): boolean;
  restore(): void;
  focus(): void;
}

export interface IpcEvent {
  senderFrame: { url: string } | null;
  returnValue: unknown;
}

interface QuitEvent {
  preventDefault(): void;
}

export interface DesktopElectron {
  app: {
    requestSingleInstanceLock(): boolean;
    whenReady(): Promise<void>;
    on(event: 'second-instance' | 'window-all-closed', listener: () => void): void;
    on(event: 'before-quit', listener: (event: QuitEvent) => void): void;
    quit(): void;
    exit(code?: number): void;
  };
  BrowserWindow: new (options: BrowserWindowConstructorOptions) => WindowApi;
  shell: { openExternal(url: string): Promise<void> };
  dialog: { showErrorBox(title: string, content: string): void };
  ipcMain: { on(channel: string, listener: (event: IpcEvent) => void): void };
}
