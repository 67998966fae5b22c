import { useState } from 'react';
import { useNow } from '../../components/hooks.ts';
import { Copyable } from '../../components/Copy.tsx';
import { EmptyState, Link, StatusBadge } from '../../components/Misc.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { pathOf } from '../../router.ts';
import { useApp } from '../../store/app.ts';
import { useDetail } from '../../store/detail.ts';
import { useEndpoints } from '../../store/endpoints.ts';
import { formatCountdown } from '../../util/format.ts';
import { DeliveryActions } from './Actions.tsx';
import { AttemptsTab } from './AttemptsTab.tsx';
import { CompareTab } from './CompareTab.tsx';
import { DoctorTab } from './DoctorTab.tsx';
import { PausedNote } from './PausedNote.tsx';
import { RequestTab } from './RequestTab.tsx';
import { ResendLinks } from './ResendLinks.tsx';
import { RetryTimeline } from './RetryTimeline.tsx';
import { SignatureTab } from './SignatureTab.tsx';
import { ClockTime } from '../../components/ClockTime.tsx';

type Tab = 'attempts' | 'request' | 'signature' | 'doctor' | 'compare';
const tabs: { id: Tab; label: string }[] = [
  { id: 'attempts', label: 'Attempts' },
  { id: 'request', label: 'Request' },
  { id: 'signature', label: 'Signature' },
  { id: 'doctor', label: 'Receiver doctor' },
  { id: 'compare', label: 'Compare' },
];

/** One delivery: facts, retry timeline and actions on top; attempts, request, signature and doctor below. */
export function DeliveryDetail({ sandboxId, mode }: { sandboxId: string; mode: 'deliveries' | 'dlq' }) {
  const { delivery, error, id } = useDetail();
  const [tab, setTab] = useState<Tab>('attempts');
  const endpoint = useEndpoints((s) => s.endpoints.find((e) => e.id === delivery?.endpointId));
  const now = useNow();
  const offset = useApp((s) => s.clockOffsetMs);
  const close = (
    <Link to={pathOf(mode, sandboxId)} className="button ghost small" aria-label="Close delivery">
      ✕
    </Link>
  );
  if (error) {
    return (
      <div className="detail">
        <div className="pane-head">
          <span className="spacer" />
          {close}
        </div>
        {error.status === 404 ? (
          <EmptyState title="No such delivery here">
            {id} is not a delivery of this sandbox (it may have been pruned or reset). Pick one from the list.
          </EmptyState>
        ) : (
          <div className="callout bad" role="alert">
            {error.message}{' '}
            <button type="button" className="small" onClick={() => void useDetail.getState().refresh()}>
              Retry
            </button>
          </div>
        )}
      </div>
    );
  }
  if (!delivery)
    return (
      <div className="detail">
        <p className="muted" aria-live="polite">
          Loading {id}…
        </p>
      </div>
    );
  return (
    <article className="detail" aria-labelledby="detail-title">
      <div className="pane-head">
        <StatusBadge status={delivery.status} />
        <h1 id="detail-title" className="mono">
          {delivery.id}
        </h1>
        <span className="tag">{delivery.topic}</span>
        {delivery.test && !delivery.check && <span className="tag">test</span>}
        {delivery.check && (
          <span className="tag" title={`Receiver check ${delivery.check.id}`}>
            check · {delivery.check.case}
          </span>
        )}
        <span className="spacer" />
        {close}
      </div>
      <div className="detail-body">
        <dl className="facts">
          <dt>Endpoint</dt>
          <dd>
            {delivery.url ? <Copyable value={delivery.url} label="endpoint URL" /> : '—'}
            {endpoint && !endpoint.enabled && <span className="tag warn"> disabled</span>}
            {!delivery.endpointId && (
              <span className="faint">
                {delivery.check
                  ? " (a receiver check of a URL, signed with the check's secret)"
                  : delivery.signedAs
                    ? ` (a replay to another URL, signed with the secret of ${delivery.signedAs})`
                    : ' (test webhook to a URL, signed with the webhook test secret)'}
              </span>
            )}
          </dd>
          <dt>Event</dt>
          <dd className="mono">{delivery.eventId}</dd>
          <dt title="The W3C trace this delivery's attempts are spans of: find it in your tracing tool">Trace</dt>
          <dd data-testid="detail-trace">
            <Copyable value={delivery.traceId} label="trace id" />
          </dd>
          <ResendLinks delivery={delivery} sandboxId={sandboxId} />
          <dt>Occurred</dt>
          <dd>
            <ClockTime
              at={delivery.envelope.occurredAt ?? delivery.envelope.timestamp ?? delivery.createdAt}
              clock="sandbox"
              withDate
            />{' '}
            <span className="faint">(sandbox clock)</span>
          </dd>
          <dt>Attempts</dt>
          <dd>
            {delivery.attemptCount}
            {delivery.lastError && <span className="bad"> · {delivery.lastError}</span>}
          </dd>
          {delivery.status === 'pending' && delivery.nextAttemptAt && !delivery.paused && (
            <>
              <dt>Next attempt</dt>
              <dd data-testid="detail-next">
                {formatCountdown(Date.parse(delivery.nextAttemptAt), now + offset)}{' '}
                <span className="faint">
                  at <ClockTime at={delivery.nextAttemptAt} clock="sandbox" withDate /> (sandbox clock)
                </span>
              </dd>
            </>
          )}
        </dl>
        <PausedNote delivery={delivery} />
        <RetryTimeline delivery={delivery} />
        <DeliveryActions delivery={delivery} />
      </div>
      <Tabs tabs={tabs} value={tab} onChange={setTab} label="Delivery details" />
      <div className="tab-panel" role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'attempts' && <AttemptsTab delivery={delivery} />}
        {tab === 'request' && <RequestTab delivery={delivery} />}
        {tab === 'signature' && <SignatureTab delivery={delivery} />}
        {tab === 'doctor' && <DoctorTab delivery={delivery} />}
        {tab === 'compare' && <CompareTab delivery={delivery} />}
      </div>
    </article>
  );
}
