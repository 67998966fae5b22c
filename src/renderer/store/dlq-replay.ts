import { create } from 'zustand';
import { api, ApiProblem, query } from '../api/client.ts';
import type { DlqReplayJob, Page } from '../../shared/api-types.ts';
import { useApp } from './app.ts';
import { useDlqList } from './list.ts';
import type { ListFilters } from './list-merge.ts';

interface DlqReplayStore {
  /** The job shown above the DLQ: running, or the last one that finished while this tab watched. */
  job: DlqReplayJob | null;
  start(filters: ListFilters): Promise<void>;
  /** Replay by filter (issue 31): picked rows (`ids`) or everything a list filter names, any status. */
  startFiltered(filter: ReplayRequest): Promise<void>;
  cancel(): Promise<void>;
  /** Picks up a replay that is already running (started in another tab, by the CLI or the API). */
  resume(): Promise<void>;
  dismiss(): void;
  clear(): void;
}

/** What POST /webhooks/deliveries/replay takes from the inspector. */
export interface ReplayRequest {
  statuses: ('pending' | 'failed' | 'succeeded' | 'dead')[];
  topic?: string;
  endpointId?: string;
  ids?: string[];
}

const pollMs = 500;

const summary = (job: DlqReplayJob) =>
  `${job.succeeded.toLocaleString()} succeeded, ${job.failed.toLocaleString()} failed${job.skipped ? `, ${job.skipped.toLocaleString()} skipped` : ''}`;

/** The one-line outcome of a finished replay, for its toast. */
export function replayOutcome(job: DlqReplayJob): string {
  if (job.state === 'cancelled')
    return `Replay cancelled after ${job.done.toLocaleString()} of ${job.total.toLocaleString()}: ${summary(job)}.`;
  if (job.state === 'interrupted')
    return `Replay interrupted (the engine stopped) after ${job.done.toLocaleString()} of ${job.total.toLocaleString()}: ${summary(job)}. What was not replayed is still dead.`;
  return `Replayed ${job.total.toLocaleString()}: ${summary(job)}.`;
}

/**
 * Replay-all of the DLQ as a server-side job (POST answers at once): polls its progress while
 * it runs, lets it be cancelled, and reports the outcome when it ends.
 */
export const useDlqReplay = create<DlqReplayStore>()((set, get) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let watching: string | null = null;

  const watch = (job: DlqReplayJob) => {
    set({ job });
    if (job.state !== 'running') return finished(job);
    watching = job.id;
    clearTimeout(timer);
    timer = setTimeout(async () => {
      if (watching !== job.id) return;
      try {
        const next = await api.get<DlqReplayJob>(`/api/v1/webhooks/dlq-replays/${job.id}`);
        if (watching === job.id) watch(next);
      } catch {
        if (watching === job.id) watch(job); // try again; the stream banner says when the engine is gone
      }
    }, pollMs);
  };
  const finished = (job: DlqReplayJob) => {
    if (watching !== job.id) return;
    watching = null;
    useApp.getState().toast(job.state === 'completed' && job.failed === 0 ? 'success' : 'error', replayOutcome(job));
    // Cannot reject: load() catches: the error shows in the list.
    void useDlqList.getState().load();
  };

  return {
    job: null,

    async start(filters) {
      const job = await api.post<DlqReplayJob>('/api/v1/webhooks/dlq/replay', {
        topic: filters.topic,
        endpointId: filters.endpointId,
      });
      watching = job.id;
      watch(job);
    },

    async startFiltered(filter) {
      const job = await api.post<DlqReplayJob>('/api/v1/webhooks/deliveries/replay', filter);
      watching = job.id;
      watch(job);
    },

    async cancel() {
      const { job } = get();
      if (!job) return;
      try {
        watch(await api.post<DlqReplayJob>(`/api/v1/webhooks/dlq-replays/${job.id}/cancel`));
      } catch (err) {
        useApp.getState().toast('error', (err as ApiProblem).message);
      }
    },

    async resume() {
      if (get().job?.state === 'running') return;
      try {
        const page = await api.get<Page<DlqReplayJob>>(`/api/v1/webhooks/dlq-replays${query({ limit: 1 })}`);
        const [latest] = page.data;
        if (latest?.state === 'running') {
          watching = latest.id;
          watch(latest);
        }
      } catch {
        // nothing to resume; the DLQ list reports its own errors
      }
    },

    dismiss() {
      if (get().job?.state !== 'running') set({ job: null });
    },

    clear() {
      watching = null;
      clearTimeout(timer);
      set({ job: null });
    },
  };
});
