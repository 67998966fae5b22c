import { create } from 'zustand';
import { api } from '../api/client.ts';
import type { CheckCaseInfo, Page, StreamMessage } from '../../shared/api-types.ts';
import type { CheckRun } from '../../shared/check-report.ts';

interface ChecksState {
  /** The battery's cases (what each sends), loaded once per wording: Sandbay's, or a Standard Webhooks scheme's. */
  cases: Record<string, CheckCaseInfo[]>;
  /** Each endpoint's stored runs, newest first. */
  runs: Record<string, CheckRun[]>;
  load(endpointId: string, wording: string): Promise<void>;
  start(endpointId: string, effectsUrl?: string): Promise<CheckRun>;
  applyLive(messages: StreamMessage[]): void;
  clear(): void;
}

const base = (endpointId: string) => `/api/v1/webhooks/endpoints/${encodeURIComponent(endpointId)}/checks`;

/** Receiver checks per endpoint: started here, followed live over the stream (check.updated). */
export const useChecks = create<ChecksState>()((set, get) => {
  const put = (run: CheckRun) => {
    if (!run.endpointId) return;
    const list = get().runs[run.endpointId] ?? [];
    const next = list.some((r) => r.id === run.id) ? list.map((r) => (r.id === run.id ? run : r)) : [run, ...list];
    set({ runs: { ...get().runs, [run.endpointId]: next } });
  };
  return {
    cases: {},
    runs: {},

    async load(endpointId, wording) {
      const known = get().cases[wording];
      const [page, cases] = await Promise.all([
        api.get<Page<CheckRun>>(`${base(endpointId)}?limit=10`),
        known
          ? Promise.resolve({ data: known })
          : api.get<{ data: CheckCaseInfo[] }>(`/api/v1/webhooks/check-cases?signature=${encodeURIComponent(wording)}`),
      ]);
      set({ runs: { ...get().runs, [endpointId]: page.data }, cases: { ...get().cases, [wording]: cases.data } });
    },

    async start(endpointId, effectsUrl) {
      const run = await api.post<CheckRun>(base(endpointId), effectsUrl ? { effectsUrl } : {});
      put(run);
      return run;
    },

    applyLive(messages) {
      for (const m of messages) {
        if (m.event !== 'check.updated' || !m.data.id || !m.data.endpointId) continue;
        // Runs we show are refreshed from the API: the message only says which one moved.
        void api.get<CheckRun>(`${base(m.data.endpointId)}/${encodeURIComponent(m.data.id)}`).then(put, () => {});
      }
    },

    clear() {
      set({ runs: {} });
    },
  };
});
