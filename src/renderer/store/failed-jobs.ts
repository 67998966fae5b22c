import { create } from 'zustand';
import { api } from '../api/client.ts';
import type { FailedJob, Page } from '../../shared/api-types.ts';
import { useApp } from './app.ts';

interface FailedJobsStore {
  /** The selected sandbox's jobs set aside as failed (docs/decisions/failed-jobs.md), newest first. */
  jobs: FailedJob[];
  load(): Promise<void>;
  retry(job: FailedJob): Promise<void>;
  clear(): void;
}

// The banner shows this many; a sandbox with more has a deeper problem the API lists in full.
const shown = 20;

/** The failed jobs banner's data: loaded with the sandbox, after a reset, and when the live stream says one failed. */
export const useFailedJobs = create<FailedJobsStore>()((set, get) => ({
  jobs: [],
  async load() {
    const sandboxId = useApp.getState().sandboxId;
    if (!sandboxId) return set({ jobs: [] });
    try {
      const page = await api.get<Page<FailedJob>>(`/api/v1/sandbox/jobs/failed?limit=${shown}`);
      if (useApp.getState().sandboxId === sandboxId) set({ jobs: page.data });
    } catch {
      // A banner that cannot load keeps what it showed: the outage banner or the views say why.
    }
  },
  async retry(job) {
    try {
      await api.post(`/api/v1/sandbox/jobs/failed/${job.id}/retry`);
      useApp.getState().toast('info', `Running the ${job.kind} job for ${job.objectId} again.`);
    } catch (err) {
      useApp.getState().toast('error', `Cannot retry the job: ${(err as Error).message}`);
    }
    await get().load();
  },
  clear() {
    set({ jobs: [] });
  },
}));
