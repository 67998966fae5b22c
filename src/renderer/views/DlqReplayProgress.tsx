import { useEffect } from 'react';
import { replayOutcome, useDlqReplay } from '../store/dlq-replay.ts';

/** Above the DLQ: the progress of a replay-all job, with Cancel while it runs. */
export function DlqReplayProgress() {
  const job = useDlqReplay((s) => s.job);
  useEffect(() => void useDlqReplay.getState().resume(), []);
  if (!job) return null;
  const running = job.state === 'running';
  return (
    <div
      className={`callout replay-progress ${running ? '' : job.state === 'completed' && job.failed === 0 ? 'ok' : 'warn'}`}
      role="status"
      aria-live="polite"
      data-testid="dlq-replay"
    >
      <div className="replay-line">
        <strong>
          {running ? `Replaying ${job.done.toLocaleString()} of ${job.total.toLocaleString()}` : replayOutcome(job)}
        </strong>
        {running && (
          <span className="muted">
            {' '}
            {job.succeeded.toLocaleString()} succeeded · {job.failed.toLocaleString()} failed
            {job.skipped ? ` · ${job.skipped.toLocaleString()} skipped` : ''}
          </span>
        )}
        <span className="spacer" />
        {running ? (
          <button type="button" className="small" onClick={() => void useDlqReplay.getState().cancel()}>
            Cancel replay
          </button>
        ) : (
          <button
            type="button"
            className="small ghost"
            aria-label="Dismiss"
            onClick={() => useDlqReplay.getState().dismiss()}
          >
            ×
          </button>
        )}
      </div>
      {running && <progress max={Math.max(job.total, 1)} value={job.done} aria-label="Replay progress" />}
    </div>
  );
}
