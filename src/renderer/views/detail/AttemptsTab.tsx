import type { Delivery } from '../../../shared/api-types.ts';
import { CopyButton } from '../../components/Copy.tsx';
import { EmptyState } from '../../components/Misc.tsx';
import { ClockTime } from '../../components/ClockTime.tsx';

/** Every attempt: when, how long, what the receiver answered (status, headers, body excerpt) or the error. */
export function AttemptsTab({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) {
    return (
      <EmptyState title="No attempts yet">
        The first attempt is on its way{delivery.endpointId ? ' (or waits for its endpoint to be enabled)' : ''}.
      </EmptyState>
    );
  }
  return (
    <table className="data attempts">
      <thead>
        <tr>
          <th>#</th>
          <th>Trigger</th>
          <th>Started (sandbox)</th>
          <th>Duration</th>
          <th>Response</th>
        </tr>
      </thead>
      <tbody>
        {[...delivery.attempts].reverse().map((a) => {
          const good = a.responseStatus !== null && a.responseStatus < 300 && !a.error;
          return (
            <tr key={a.number} data-testid={`attempt-${a.number}`}>
              <td className="mono">{a.number}</td>
              <td>
                <span className="tag">{a.trigger === 'duplicate' ? 'duplicate · chaos' : a.trigger}</span>
                {a.trigger === 'duplicate' && (
                  <div className="faint small-text">
                    Chaos sent this delivery again after a 2xx, as real senders do.
                  </div>
                )}
                {a.chaos && a.chaos.heldMs > 0 && (
                  <div className="faint small-text" data-testid="chaos-held">
                    Held {a.chaos.heldMs} ms by chaos (delay {a.chaos.delayMs} + reorder {a.chaos.reorderMs}).
                  </div>
                )}
              </td>
              <td className="mono">
                <ClockTime at={a.startedAt} clock="sandbox" withDate />
              </td>
              <td className="mono">{a.durationMs} ms</td>
              <td>
                <span className={good ? 'ok' : 'bad'}>{a.responseStatus ?? 'no response'}</span>
                {a.error && <div className="bad">{a.error}</div>}
                {(a.responseBody || Object.keys(a.responseHeaders).length > 0) && (
                  <details>
                    <summary>Response {a.responseBody ? `body (${a.responseBody.length} chars)` : 'headers'}</summary>
                    <pre className="code small">
                      {Object.entries(a.responseHeaders)
                        .map(([k, v]) => `${k}: ${v}`)
                        .join('\n')}
                    </pre>
                    {a.responseBody && <pre className="code small">{a.responseBody}</pre>}
                  </details>
                )}
                <div className="faint mono small-text" title="Where this attempt went">
                  {a.url}
                </div>
                {a.traceparent && (
                  <div
                    className="faint small-text"
                    data-testid="traceparent"
                    title={`traceparent: ${a.traceparent} (the delivery's trace id, then this attempt's span id). A receiver instrumented with OpenTelemetry makes this span the parent of its own.`}
                  >
                    span <code>{a.traceparent.split('-')[2]}</code>{' '}
                    <CopyButton value={a.traceparent} label={`attempt ${a.number}'s traceparent`} />
                  </div>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
