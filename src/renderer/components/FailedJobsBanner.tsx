import { useEffect } from 'react';
import { useApp } from '../store/app.ts';
import { useFailedJobs } from '../store/failed-jobs.ts';
import { ClockTime } from './ClockTime.tsx';

/**
 * Above every view of a sandbox with jobs set aside as failed (SPEC §12): which job, on which object, why, and a
 * Retry for when the row has been repaired.
 */
export function FailedJobsBanner() {
  const sandboxId = useApp((s) => s.sandboxId);
  const jobs = useFailedJobs((s) => s.jobs);
  // Loaded with the sandbox; the live stream's `job.failed` loads it again (src/renderer/store/live.ts).
  // Cannot reject: load() catches.
  useEffect(() => void useFailedJobs.getState().load(), [sandboxId]);
  if (jobs.length === 0) return null;
  return (
    <div className="callout warn failed-jobs" role="alert" data-testid="failed-jobs">
      <strong>
        {jobs.length === 1 ? 'A job' : `${jobs.length} jobs`} on the sandbox clock failed and{' '}
        {jobs.length === 1 ? 'is' : 'are'} set aside
      </strong>{' '}
      (its row could not be processed; everything else goes on):
      <ul>
        {jobs.map((job) => (
          <li key={job.id} data-testid="failed-job">
            <code>{job.kind}</code> for <code>{job.objectId}</code>
            {job.dueAt && (
              <>
                , due <ClockTime at={job.dueAt} clock="sandbox" withDate />
              </>
            )}
            : <span className="failed-job-reason">{job.reason}</span>{' '}
            <button type="button" className="small" onClick={() => void useFailedJobs.getState().retry(job)}>
              Retry
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
