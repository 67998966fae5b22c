import { ConfirmButton } from '../components/Dialog.tsx';
import { useApp } from '../store/app.ts';
import { useDlqReplay, type ReplayRequest } from '../store/dlq-replay.ts';
import type { ListFilters } from '../store/list.ts';

const anyStatus: ReplayRequest['statuses'] = ['pending', 'succeeded', 'dead'];

/** What the list's filters name, as a replay filter (a search is an exact lookup the replay cannot take). */
const filterOf = (f: ListFilters): ReplayRequest => ({
  statuses: f.status ? [f.status] : anyStatus,
  topic: f.topic,
  endpointId: f.endpointId,
});

/**
 * Above the delivery list (issue 31): replay the picked rows, or every delivery the filters name, as one
 * job on the server whose progress shows below (the DLQ replay job, generalised).
 */
export function ReplayPickBar({
  picked,
  filters,
  onClear,
}: {
  picked: ReadonlySet<string>;
  filters: ListFilters;
  onClear: () => void;
}) {
  const running = useDlqReplay((s) => s.job?.state === 'running');
  const start = async (filter: ReplayRequest) => {
    try {
      await useDlqReplay.getState().startFiltered(filter);
      onClear();
    } catch (err) {
      useApp.getState().toast('error', (err as Error).message);
    }
  };
  const filtered = Boolean(filters.status || filters.topic || filters.endpointId);
  return (
    <div className="pick-bar" data-testid="pick-bar">
      <span className="muted">{picked.size ? `${picked.size} picked` : 'Pick rows to replay them'}</span>
      <button
        type="button"
        className="small primary"
        disabled={picked.size === 0 || running}
        onClick={() => void start({ statuses: anyStatus, ids: [...picked] })}
      >
        Replay picked
      </button>
      {picked.size > 0 && (
        <button type="button" className="small ghost" onClick={onClear}>
          Clear
        </button>
      )}
      <span className="spacer" />
      <ConfirmButton
        label={filtered ? 'Replay all matching…' : 'Replay all…'}
        className="small"
        disabled={running || Boolean(filters.search)}
        title="Replay every delivery that matches?"
        message={
          <p>
            Every delivery{filtered ? ' matching the status, topic and endpoint filters' : ' of this sandbox'} gets one
            more attempt now, signed afresh, ten at a time (a pending one its next attempt); receiver-check requests are
            left out. Progress shows here and you can cancel.
          </p>
        }
        confirmLabel="Replay all"
        onConfirm={() => start(filterOf(filters))}
      />
    </div>
  );
}
