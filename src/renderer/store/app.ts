import { create } from 'zustand';
import { api, ApiProblem, configureApi, query } from '../api/client.ts';
import { forgetKey, type Session } from '../api/session.ts';
import type { StreamStatus } from '../api/stream.ts';
import type { AdvancedClock, Clock, CreatedSandbox, Page, SandboxSummary } from '../../shared/api-types.ts';
import { rememberToken } from './tokens.ts';

interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
  link?: { href: string; label: string };
  /** Toasts of one group collapse into one (the newest text, and how many it stands for). */
  group: string;
  count: number;
  /** Fading out; removed a moment later. */
  leaving?: boolean;
}

/** At most this many toasts show at once: more would climb over the page (the detail panel). */
const maxToasts = 2;

interface AppState {
  session: Session;
  /** The key is missing or wrong: show the sign-in screen instead of a broken page. */
  authNeeded: boolean;
  sandboxes: SandboxSummary[];
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
  /** A sandbox just created (or imported): its access token remembered, and it heads the list. */
  addSandbox(created: CreatedSandbox): void;
  /** The last sandbox created in this tab and its client secret, which the portal shows this once (memory only). */
  createdSecret: { sandboxId: string; clientSecret: string } | null;
  refreshClock(): Promise<void>;
  /** The clock moved elsewhere (a `clock.advanced` message): the header and every countdown follow. */
  setClockOffset(offsetMs: number): void;
  advanceClock(seconds: number): Promise<AdvancedClock>;
  setConnection(status: StreamStatus): void;
  /** Shows a toast; one of the same `group` (default: the same text) still showing is replaced and counted instead. */
  toast(kind: Toast['kind'], text: string, link?: Toast['link'], group?: string): void;
  dismiss(id: number): void;
  /** Hovering the toasts holds them; leaving lets their time run on. */
  holdToasts(held: boolean): void;
}

const lastSandboxKey = 'sandbay.lastSandbox';
let toastIds = 0;

/** How long a toast shows: errors stay longer, to be read and acted on. */
const toastMs = { info: 5000, success: 5000, error: 10_000 } as const;
/** The fade-out (the CSS transition of .toast.leaving). */
const toastFadeMs = 300;

// Each toast's remaining time; paused while the pointer is over the toasts.
const toastTimers = new Map<
  number,
  { timer?: ReturnType<typeof setTimeout>; remaining: number; since: number; expire: () => void }
>();
let toastsHeld = false;

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
      const page = await api.get<Page<SandboxSummary>>(`/api/v1/sandboxes${query({ limit: 100 })}`, { sandbox: false });
      set({ sandboxes: page.data, sandboxesLoaded: true, authNeeded: false });
    } catch (err) {
      if (err instanceof ApiProblem && (err.status === 401 || err.status === 403)) {
        forgetKey();
        set({ authNeeded: true });
      } else get().toast('error', `Cannot list sandboxes: ${(err as Error).message}`);
      set({ sandboxesLoaded: true });
    }
  },

  selectSandbox(id) {
    if (id === get().sandboxId && id !== null) return;
    configureApi({ sandboxId: id });
    if (id) localStorage.setItem(lastSandboxKey, id);
    set({ sandboxId: id, clockOffsetMs: 0 });
    // Cannot reject: refreshClock() catches: the header keeps its last offset.
    if (id) void get().refreshClock();
  },

  createdSecret: null,

  async createSandbox(name) {
    const created = await api.post<CreatedSandbox>('/api/v1/sandboxes', name ? { name } : {}, { sandbox: false });
    get().addSandbox(created);
    set({ createdSecret: { sandboxId: created.sandbox.id, clientSecret: created.credentials.clientSecret } });
    return created;
  },

  addSandbox(created) {
    rememberToken(created.sandbox.id, created.credentials.accessToken, created.credentials.expiresIn);
    set({ sandboxes: [created.sandbox, ...get().sandboxes] });
  },

  setClockOffset(offsetMs) {
    set({ clockOffsetMs: offsetMs });
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
    const clock = await api.post<AdvancedClock>('/api/v1/sandbox/clock/advance', { seconds });
    set({ clockOffsetMs: clock.offsetSeconds * 1000 });
    return clock;
  },

  setConnection(connection) {
    set({ connection });
  },

  toast(kind, text, link, group = `${kind}:${text}`) {
    const id = ++toastIds;
    const same = get().toasts.find((t) => t.group === group && !t.leaving);
    const others = get().toasts.filter((t) => t !== same);
    const kept = others.slice(-(maxToasts - 1));
    for (const gone of [...others.filter((t) => !kept.includes(t)), ...(same ? [same] : [])]) {
      clearTimeout(toastTimers.get(gone.id)?.timer);
      toastTimers.delete(gone.id);
    }
    set({ toasts: [...kept, { id, kind, text, link, group, count: (same?.count ?? 0) + 1 }] });
    const expire = () => {
      toastTimers.delete(id);
      set({ toasts: get().toasts.map((t) => (t.id === id ? { ...t, leaving: true } : t)) });
      setTimeout(() => get().dismiss(id), toastFadeMs);
    };
    const entry = {
      remaining: toastMs[kind],
      since: Date.now(),
      timer: undefined as ReturnType<typeof setTimeout> | undefined,
      expire,
    };
    toastTimers.set(id, entry);
    if (!toastsHeld) entry.timer = setTimeout(expire, entry.remaining);
  },

  dismiss(id) {
    clearTimeout(toastTimers.get(id)?.timer);
    toastTimers.delete(id);
    set({ toasts: get().toasts.filter((t) => t.id !== id) });
  },

  holdToasts(held) {
    if (held === toastsHeld) return;
    toastsHeld = held;
    const now = Date.now();
    for (const entry of toastTimers.values()) {
      if (held) {
        clearTimeout(entry.timer);
        entry.remaining = Math.max(0, entry.remaining - (now - entry.since));
      } else {
        entry.since = now;
        // A toast that was nearly gone gets a moment to be read after the pointer leaves.
        entry.timer = setTimeout(entry.expire, Math.max(entry.remaining, 1500));
      }
    }
  },
}));

/** The sandbox this browser looked at last (for / and the portal). */
export const lastSandboxId = () => localStorage.getItem(lastSandboxKey);

/** Sandbox "now" in epoch ms. */
export const sandboxNow = () => Date.now() + useApp.getState().clockOffsetMs;
