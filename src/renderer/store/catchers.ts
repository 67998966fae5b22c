import { create } from 'zustand';
import { api } from '../api/client.ts';
import type { Catcher, CatcherMode, CaughtRequest, Page } from '../../shared/api-types.ts';

interface CatchersState {
  catchers: Catcher[];
  loaded: boolean;
  requests: Record<string, CaughtRequest[]>;
  load(): Promise<void>;
  put(name: string, behaviour: { mode?: CatcherMode; status?: number; delayMs?: number }): Promise<Catcher>;
  remove(name: string): Promise<void>;
  loadRequests(name: string): Promise<void>;
  /** Re-reads every catcher's log (after attempts finish, which is when catchers get requests). */
  refreshLogs(): void;
  clear(): void;
}

const refreshDelayMs = 150;

/** The sandbox's built-in catchers and what they received. */
export const useCatchers = create<CatchersState>()((set, get) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    catchers: [],
    loaded: false,
    requests: {},

    async load() {
      const page = await api.get<Page<Catcher>>('/api/v1/catchers?limit=100');
      set({ catchers: page.data, loaded: true });
      await Promise.all(page.data.map((c) => get().loadRequests(c.name)));
    },

    async put(name, behaviour) {
      const catcher = await api.put<Catcher>(`/api/v1/catchers/${encodeURIComponent(name)}`, behaviour);
      const exists = get().catchers.some((c) => c.name === name);
      set({
        catchers: exists ? get().catchers.map((c) => (c.name === name ? catcher : c)) : [...get().catchers, catcher],
      });
      return catcher;
    },

    async remove(name) {
      await api.delete(`/api/v1/catchers/${encodeURIComponent(name)}`);
      const { [name]: _gone, ...requests } = get().requests;
      set({ catchers: get().catchers.filter((c) => c.name !== name), requests });
    },

    async loadRequests(name) {
      try {
        const page = await api.get<{ data: CaughtRequest[] }>(`/api/v1/catchers/${encodeURIComponent(name)}/requests`);
        set({ requests: { ...get().requests, [name]: page.data } });
      } catch {
        // a deleted catcher: its card goes with the next load
      }
    },

    refreshLogs() {
      if (!get().loaded || get().catchers.length === 0) return;
      clearTimeout(timer);
      timer = setTimeout(() => void Promise.all(get().catchers.map((c) => get().loadRequests(c.name))), refreshDelayMs);
    },

    clear() {
      set({ catchers: [], loaded: false, requests: {} });
    },
  };
});
