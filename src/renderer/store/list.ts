import { create, type StoreApi, type UseBoundStore } from 'zustand';
import { api, ApiProblem, query } from '../api/client.ts';
import type { DeliverySummary, Page, StreamMessage } from '../../shared/api-types.ts';
import { sandboxNow } from './app.ts';
import { applyMessages, capRows, liveRowCap, mergeHead, type ListFilters } from './list-merge.ts';

export type { ListFilters };

interface ListState {
  rows: DeliverySummary[];
  filters: ListFilters;
  nextCursor: string | null;
  loaded: boolean;
  loading: boolean;
  loadingMore: boolean;
  error: string | null;
  load(): Promise<void>;
  loadMore(): Promise<void>;
  setFilters(filters: ListFilters): void;
  applyLive(messages: StreamMessage[]): void;
  clear(): void;
}

export type ListStore = UseBoundStore<StoreApi<ListState>>;

const pageSize = 100;
const headRefreshMs = 250;

/**
 * A live, newest-first list of deliveries: the Deliveries view (all, filtered) and the
 * DLQ (dead only) each have one. Pages load on demand; stream messages patch rows in
 * place, and new deliveries show at once and are completed by a throttled head refresh.
 */
export function createListStore(kind: 'deliveries' | 'dlq'): ListStore {
  let generation = 0;
  let headTimer: ReturnType<typeof setTimeout> | undefined;
  let headRunning = false;
  // Where fetched pages ended (row id → the cursor for what is older), so a capped list can resume.
  const boundaries = new Map<string, string | null>();
  // Rows the user loaded by scrolling: live inserts do not cut below that.
  let scrolledTo = 0;
  const checksParam = (f: ListFilters) => (f.includeChecks && kind === 'deliveries' ? 'true' : undefined);
  const path = kind === 'dlq' ? '/api/v1/webhooks/dlq' : '/api/v1/webhooks/deliveries';
  const fetchPage = async (filters: ListFilters, cursor?: string | null) => {
    const gen = generation;
    const page = await api.get<Page<DeliverySummary>>(
      `${path}${query({ ...filters, status: kind === 'dlq' ? undefined : filters.status, includeChecks: checksParam(filters), limit: pageSize, cursor })}`,
    );
    const last = page.data.at(-1);
    if (last && gen === generation) boundaries.set(last.id, page.nextCursor);
    return page;
  };

  const store: ListStore = create<ListState>()((set, get) => {
    const refreshHead = async () => {
      headTimer = undefined;
      if (headRunning) return scheduleHead();
      headRunning = true;
      const gen = generation;
      try {
        const merged = await mergeHead(get().rows, get().nextCursor, (cursor) => fetchPage(get().filters, cursor));
        if (gen === generation) set(capped(merged.rows, merged.nextCursor));
      } catch {
        // the next message or a reload tries again
      } finally {
        headRunning = false;
      }
    };
    const scheduleHead = () => {
      headTimer ??= setTimeout(() => void refreshHead(), headRefreshMs);
    };
    /** Keeps a list that live rows grew within its cap (memory stays flat however long the tab stays open). */
    const capped = (rows: DeliverySummary[], nextCursor: string | null) => {
      const cut = capRows(rows, nextCursor, boundaries, Math.max(liveRowCap, scrolledTo));
      if (cut.rows !== rows) {
        const kept = new Set(cut.rows.map((r) => r.id));
        for (const id of boundaries.keys()) if (!kept.has(id)) boundaries.delete(id);
      }
      return cut;
    };

    return {
      rows: [],
      filters: kind === 'dlq' ? { status: 'dead' } : {},
      nextCursor: null,
      loaded: false,
      loading: false,
      loadingMore: false,
      error: null,

      async load() {
        const gen = ++generation;
        boundaries.clear();
        scrolledTo = 0;
        set({ loading: true, error: null });
        try {
          const page = await fetchPage(get().filters);
          if (gen === generation) set({ rows: page.data, nextCursor: page.nextCursor, loaded: true });
        } catch (err) {
          if (gen === generation) set({ error: (err as ApiProblem).message, rows: [], nextCursor: null, loaded: true });
        } finally {
          if (gen === generation) set({ loading: false });
        }
      },

      async loadMore() {
        const { nextCursor, loadingMore, loading } = get();
        if (!nextCursor || loadingMore || loading) return;
        const gen = generation;
        set({ loadingMore: true });
        try {
          const page = await fetchPage(get().filters, nextCursor);
          if (gen !== generation) return;
          const known = new Set(get().rows.map((r) => r.id));
          set({ rows: [...get().rows, ...page.data.filter((r) => !known.has(r.id))], nextCursor: page.nextCursor });
          scrolledTo = get().rows.length;
        } catch (err) {
          if (gen === generation) set({ error: (err as ApiProblem).message });
        } finally {
          if (gen === generation) set({ loadingMore: false });
        }
      },

      setFilters(filters) {
        set({ filters: kind === 'dlq' ? { ...filters, status: 'dead' } : filters });
        // Cannot reject: load() catches: the error shows in the list.
        void get().load();
      },

      applyLive(messages) {
        const { rows, needsHead } = applyMessages(
          get().rows,
          messages,
          kind,
          get().filters,
          new Date(sandboxNow()).toISOString(),
        );
        if (rows !== get().rows) set(rows.length > get().rows.length ? capped(rows, get().nextCursor) : { rows });
        if (needsHead) scheduleHead();
      },

      clear() {
        generation++;
        clearTimeout(headTimer);
        headTimer = undefined;
        boundaries.clear();
        scrolledTo = 0;
        set({ rows: [], nextCursor: null, loaded: false, error: null });
      },
    };
  });
  return store;
}

export const useDeliveryList = createListStore('deliveries');
export const useDlqList = createListStore('dlq');
