import { useCallback, useEffect, useState } from 'react';
import { api, ApiProblem, fileRequest, query, saveDownload } from '../api/client.ts';
import type { Delivery } from '../../shared/api-types.ts';
import { ConfirmButton } from '../components/Dialog.tsx';
import { EmptyState, Link } from '../components/Misc.tsx';
import { navigate, pathOf } from '../router.ts';
import { useApp } from '../store/app.ts';
import { useDetail } from '../store/detail.ts';
import { useCan } from '../store/signin.ts';
import { useEndpoints } from '../store/endpoints.ts';
import { useDlqReplay } from '../store/dlq-replay.ts';
import { useDeliveryList, useDlqList, type ListFilters } from '../store/list.ts';
import { DeliveryDetail } from './detail/DeliveryDetail.tsx';
import { DeliveryGrid } from './DeliveryGrid.tsx';
import { DlqReplayProgress } from './DlqReplayProgress.tsx';
import { FilterBar } from './FilterBar.tsx';
import { ReplayPickBar } from './ReplayPickBar.tsx';

const hasFilters = (f: ListFilters, mode: 'deliveries' | 'dlq') =>
  Boolean(f.topic || f.endpointId || f.search || (mode === 'deliveries' && f.status));

function ListEmpty({
  mode,
  sandboxId,
  filtered,
  onClear,
}: {
  mode: 'deliveries' | 'dlq';
  sandboxId: string;
  filtered: boolean;
  onClear: () => void;
}) {
  if (filtered) {
    return (
      <EmptyState
        title="Nothing matches these filters"
        action={
          <button type="button" onClick={onClear}>
            Clear filters
          </button>
        }
      >
        Deliveries matching them will appear here live.
      </EmptyState>
    );
  }
  if (mode === 'dlq') {
    return (
      <EmptyState title="The dead-letter queue is empty">
        A delivery lands here after its fifth failed attempt (1 h 12 min 30 s after the first). Fix your receiver, then
        replay from here.
      </EmptyState>
    );
  }
  return (
    <EmptyState
      title="No deliveries yet"
      action={
        <Link className="button primary" to={pathOf('endpoints', sandboxId)}>
          Register an endpoint
        </Link>
      }
    >
      Register an endpoint (a built-in catcher works with no code), then send a test webhook or place an order through
      the API. New deliveries appear here live.
    </EmptyState>
  );
}

/** Deliveries and the DLQ: a live list with filters, and the selected delivery beside it. */
export function DeliveriesView({
  mode,
  sandboxId,
  deliveryId,
}: {
  mode: 'deliveries' | 'dlq';
  sandboxId: string;
  deliveryId?: string;
}) {
  const list = mode === 'dlq' ? useDlqList : useDeliveryList;
  const { rows, filters, loaded, loading, error, loadingMore, nextCursor } = list();
  const endpointsLoaded = useEndpoints((s) => s.loaded);

  useEffect(() => {
    // Cannot reject: load() catches: the errors show in the stores.
    if (!list.getState().loaded) void list.getState().load();
    if (!useEndpoints.getState().loaded) void useEndpoints.getState().load();
  }, [sandboxId, list, endpointsLoaded]);
  useEffect(() => useDetail.getState().open(deliveryId ?? null), [deliveryId]);

  const open = useCallback((id: string) => navigate(pathOf(mode, sandboxId, id)), [mode, sandboxId]);
  const nearEnd = useCallback(() => void list.getState().loadMore(), [list]);
  const replayOne = useCallback(async (id: string) => {
    try {
      // The DLQ's own route: it refuses a delivery that is no longer dead (409 delivery_not_dead).
      const d = await api.post<Delivery>(`/api/v1/webhooks/dlq/${id}/replay`);
      useApp.getState().toast(d.status === 'succeeded' ? 'success' : 'error', `Replay of ${id}: ${d.status}.`);
    } catch (err) {
      useApp.getState().toast('error', (err as ApiProblem).message);
    }
  }, []);

  const exportHar = useCallback(async () => {
    try {
      const { topic, status, endpointId, search } = filters;
      const includeChecks = filters.includeChecks ? 'true' : undefined;
      await saveDownload(
        await fileRequest(
          'GET',
          `/api/v1/webhooks/deliveries/export${query({ format: 'har', topic, status, endpointId, search, includeChecks })}`,
        ),
        'deliveries.har',
      );
    } catch (err) {
      useApp.getState().toast('error', `HAR export failed: ${(err as ApiProblem).message}`);
    }
  }, [filters]);

  const filtered = hasFilters(filters, mode);
  const replayRunning = useDlqReplay((s) => s.job?.state === 'running');
  const canReplay = useCan('webhooks:write');
  // Rows picked for a replay (the deliveries view only; the DLQ replays per row or all).
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => setPicked(new Set()), [sandboxId, mode]);
  const togglePick = useCallback(
    (id: string) =>
      setPicked((before) => {
        const next = new Set(before);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  const picking = mode === 'deliveries' && canReplay;
  return (
    <div className={`split${deliveryId ? ' with-detail' : ''}`}>
      <section className="list-pane" aria-labelledby="list-title">
        <div className="pane-head">
          <h1 id="list-title">{mode === 'dlq' ? 'Dead-letter queue' : 'Deliveries'}</h1>
          <span className="muted" data-testid="row-count">
            {rows.length.toLocaleString()}
            {nextCursor ? '+' : ''} shown
          </span>
          <span className="spacer" />
          <button
            type="button"
            className="small"
            disabled={rows.length === 0}
            onClick={() => void exportHar()}
            title={`Every attempt of the deliveries ${filtered ? 'matching the filters' : 'shown'} as HAR 1.2, for Chrome DevTools or any HAR viewer`}
          >
            Export HAR
          </button>
          {mode === 'dlq' && canReplay && (
            <ConfirmButton
              label={`Replay all${filtered ? ' matching' : ''}`}
              className="primary"
              disabled={rows.length === 0 || replayRunning}
              title="Replay dead deliveries?"
              message={
                <p>
                  Each dead delivery{filtered ? ' matching the topic and endpoint filters' : ''} gets one attempt,
                  signed afresh, ten at a time; progress shows here and you can cancel. Successes leave the DLQ;
                  failures stay in it.
                </p>
              }
              confirmLabel="Replay all"
              onConfirm={() => useDlqReplay.getState().start(filters)}
            />
          )}
        </div>
        {picking && <ReplayPickBar picked={picked} filters={filters} onClear={() => setPicked(new Set())} />}
        {(mode === 'dlq' || picking) && <DlqReplayProgress />}
        <FilterBar
          filters={filters}
          onChange={(f) => list.getState().setFilters(f)}
          showStatus={mode === 'deliveries'}
        />
        {error && (
          <div className="callout bad" role="alert">
            {error}{' '}
            <button type="button" className="small" onClick={() => void list.getState().load()}>
              Retry
            </button>
          </div>
        )}
        {loaded && rows.length === 0 && !loading && !error ? (
          <ListEmpty
            mode={mode}
            sandboxId={sandboxId}
            filtered={filtered}
            onClear={() => list.getState().setFilters({})}
          />
        ) : (
          <DeliveryGrid
            rows={rows}
            selectedId={deliveryId}
            compact={Boolean(deliveryId)}
            onOpen={open}
            onNearEnd={nearEnd}
            rowAction={mode === 'dlq' && canReplay ? { label: 'Replay', run: (id) => void replayOne(id) } : undefined}
            picking={picking ? { picked, toggle: togglePick } : undefined}
            label={mode === 'dlq' ? 'Dead deliveries' : 'Deliveries, newest first'}
          />
        )}
        {(loading || loadingMore) && (
          <div className="list-status muted" aria-live="polite">
            Loading…
          </div>
        )}
      </section>
      {deliveryId && (
        <section className="detail-pane" aria-label="Delivery detail">
          <DeliveryDetail sandboxId={sandboxId} mode={mode} />
        </section>
      )}
    </div>
  );
}
