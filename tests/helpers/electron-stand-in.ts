// A stand-in for the `electron` module, injected where main-process logic takes Electron as
// a parameter: it records what the code asks of Electron and lets tests fire its events.
import type { BrowserWindowConstructorOptions } from 'electron';
import type { DesktopElectron, IpcEvent, NavigationEvent } from '../../src/main/electron-api.ts';

type Listener = (...args: any[]) => void;

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): void {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
  }
  once(event: string, listener: Listener): void {
    this.on(event, listener);
  }
  emit(event: string, ...args: unknown[]): void {
    for (const l of this.listeners.get(event) ?? []) l(...args);
  }
}

export class StandInContents extends Emitter {
  openHandler?: (details: { url: string }) => { action: 'deny' };
  permissionHandler?: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void;
  readonly session = {
    setPermissionRequestHandler: (h: NonNullable<StandInContents['permissionHandler']>) =>
      void (this.permissionHandler = h),
  };
  setWindowOpenHandler(handler: NonNullable<StandInContents['openHandler']>): void {
    this.openHandler = handler;
  }
  /** Fires a navigation; returns whether the code let it happen. */
  navigate(url: string, event: 'will-navigate' | 'will-redirect' = 'will-navigate'): boolean {
    let allowed = true;
    const e: NavigationEvent = { url, preventDefault: () => void (allowed = false) };
    this.emit(event, e);
    return allowed;
  }
}

export class StandInWindow extends Emitter {
  static created: StandInWindow[] = [];
  readonly webContents = new StandInContents();
  readonly loaded: string[] = [];
  minimized = false;
  focused = 0;
  shown = false;
  constructor(readonly options: BrowserWindowConstructorOptions) {
    super();
    StandInWindow.created.push(this);
  }
  async loadURL(url: string): Promise<void> {
    this.loaded.push(url);
  }
  show(): void {
    this.shown = true;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  restore(): void {
    this.minimized = false;
  }
  focus(): void {
    this.focused++;
  }
}

/** A fresh stand-in; `hasLock` says whether this is the first instance. */
export function standInElectron(hasLock = true) {
  StandInWindow.created = [];
  const app = new (class extends Emitter {
    quitCalls = 0;
    exited: number | undefined;
    quitCompleted = false;
    ready!: () => void;
    readonly whenReadyPromise = new Promise<void>((r) => (this.ready = r));
    requestSingleInstanceLock = () => hasLock;
    whenReady = () => this.whenReadyPromise;
    quit = () => {
      this.quitCalls++;
      let prevented = false;
      this.emit('before-quit', { preventDefault: () => void (prevented = true) });
      if (!prevented) this.quitCompleted = true;
    };
    exit = (code = 0) => void (this.exited = code);
  })();
  const opened: string[] = [];
  const errors: [string, string][] = [];
  const ipc = new Emitter();
  const electron = {
    app,
    BrowserWindow: StandInWindow,
    shell: { openExternal: async (url: string) => void opened.push(url) },
    dialog: { showErrorBox: (title: string, content: string) => void errors.push([title, content]) },
    ipcMain: ipc,
  } satisfies DesktopElectron;
  /** Sends the preload's synchronous request from a page at `url`; returns the reply. */
  const ipcRequest = (channel: string, url: string | null) => {
    const event: IpcEvent = { senderFrame: url === null ? null : { url }, returnValue: undefined };
    ipc.emit(channel, event);
    return event.returnValue;
  };
  return { electron, app, opened, errors, ipcRequest };
}
