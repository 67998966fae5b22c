import { create } from 'zustand';
import { api, ApiProblem, configureApi, query } from '../api/client.ts';
import type { Session } from '../api/session.ts';
import type { StreamStatus } from '../api/stream.ts';
import type { Clock, CreatedSandbox, Page, Sandbox } from '../../shared/api-types.ts';
import { rememberToken } from './tokens.ts';

export interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
  link?: { href: string; label: string };
}

interface AppState {
  session: Session;
  /** The key is missing or wrong: show the sign-in screen instead of a broken page. */
  authNeeded: boolean;
  sandboxes: Sandbox[];
  sandboxesLoaded: boolean;
  sandboxId: string | null;
  /** Sandbox now = real now + offset (SPEC §5.5). */
  clockOffsetMs: number;
  connection: StreamStatus;
  toasts: Toast[];
  init(session: Session): void;
  loadSandboxes(): Promise<void>;
  selectSandbox(id: string | null): void;
  createSandbox(name?: string): Promise<CreatedSandbox>;
  refreshClock(): Promise<void>;
  advanceClock(seconds: number): Promise<Clock>;
  setConnection(status: StreamStatus): void;
  toast(kind: Toast['kind'], text: string, link?: Toast['link']): void;
  dismiss(id: number): void;
}

const lastSandboxKey = 'sandbay.lastSandbox';
let toastIds = 0;

export const useApp = create<AppState>()((set, get) => ({
  session: { apiBase: '', adminKey: null, cookieFresh: false },
  authNeeded: false,
  sandboxes: [],
  sandboxesLoaded: false,
  sandboxId: null,
  clockOffsetMs: 0,
  connection: 'idle',
  toasts: [],

  init(session) {
    configureApi({ apiBase: session.apiBase, adminKey: session.adminKey });
    set({ session });
  },

  async loadSandboxes() {
    try {
      const page = await api.get<Page<Sandbox>>(`/api/v1/sandboxes${query({ limit: 100 })}`, { sandbox: false });
      set({ sandboxes: page.data, sandboxesLoaded: true, authNeeded: false });
    } catch (err) {
      if (err instanceof ApiProblem && (err.status === 401 || err.status === 403)) set({ authNeeded: true });
      else get().toast('error', `Cannot list sandboxes: ${(err as Error).message}`);
      set({ sandboxesLoaded: true });
    }
  },

  selectSandbox(id) {
    if (id === get().sandboxId && id !== null) return;
    configureApi({ sandboxId: id });
    if (id) localStorage.setItem(lastSandboxKey, id);
    set({ sandboxId: id, clockOffsetMs: 0 });
    if (id) void get().refreshClock();
  },

  async createSandbox(name) {
    const created = await api.post<CreatedSandbox>('/api/v1/sandboxes', name ? { name } : {}, { sandbox: false });
    rememberToken(created.sandbox.id, created.credentials.accessToken, created.credentials.expiresIn);
    set({ sandboxes: [created.sandbox, ...get().sandboxes] });
    return created;
  },

  async refreshClock() {
    try {
      const clock = await api.get<Clock>('/api/v1/sandbox/clock');
      set({ clockOffsetMs: clock.offsetSeconds * 1000 });
    } catch {
      // the header clock keeps its last offset; views that act on the clock report their own errors
    }
  },

  async advanceClock(seconds) {
    const clock = await api.post<Clock>('/api/v1/sandbox/clock/advance', { seconds });
    set({ clockOffsetMs: clock.offsetSeconds * 1000 });
    return clock;
  },

  setConnection(connection) {
    set({ connection });
  },

  toast(kind, text, link) {
    const id = ++toastIds;
    set({ toasts: [...get().toasts.slice(-2), { id, kind, text, link }] });
    setTimeout(() => get().dismiss(id), kind === 'error' ? 9000 : 5000);
  },

  dismiss(id) {
    set({ toasts: get().toasts.filter((t) => t.id !== id) });
  },
}));

/** The sandbox this browser looked at last (for / and the portal). */
export const lastSandboxId = () => localStorage.getItem(lastSandboxKey);

/** Sandbox "now" in epoch ms. */
export const sandboxNow = () => Date.now() + useApp.getState().clockOffsetMs;
