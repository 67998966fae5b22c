// Sandboxed preload (built as CommonJS): hands the page the engine's address and admin key,
// and nothing else; all data then flows over HTTP + SSE like in any browser.
import { contextBridge, ipcRenderer } from 'electron';
import { configChannel } from './channel.ts';

const config = (ipcRenderer.sendSync(configChannel) ?? {}) as { apiBase?: string; adminKey?: string };

contextBridge.exposeInMainWorld(
  'sandbay',
  Object.freeze({ apiBase: config.apiBase ?? '', adminKey: config.adminKey ?? '' }),
);
