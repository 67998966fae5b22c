import { useEffect, useState } from 'react';
import type { Delivery, DeliveryComparison } from '../../../shared/api-types.ts';
import { api, query } from '../../api/client.ts';
import { useAction } from '../../components/hooks.ts';
import { EmptyState } from '../../components/Misc.tsx';

const shown = (v: unknown) => (v === undefined ? '—' : JSON.stringify(v));

/**
 * Two attempts of this delivery, or this delivery against another, side by side (issue 31): what changed in
 * the envelope (by JSON Pointer), the request headers, what was signed, and the receiver's answers.
 */
export function CompareTab({ delivery }: { delivery: Delivery }) {
  const numbers = delivery.attempts.map((a) => a.number);
  const [from, setFrom] = useState(numbers.at(-2) ?? numbers.at(-1));
  const [to, setTo] = useState(numbers.at(-1));
  const [other, setOther] = useState('');
  const [result, setResult] = useState<DeliveryComparison>();
  const compare = useAction(async () => {
    const otherId = other.trim();
    const params = { to: otherId || undefined, attempt: from, toAttempt: otherId ? undefined : to };
    setResult(await api.get<DeliveryComparison>(`/api/v1/webhooks/deliveries/${delivery.id}/compare${query(params)}`));
  });
  // Opened on a delivery with two attempts or more: the previous attempt against the latest, at once (again
  // only when another delivery is opened, not on every attempt the live view adds).
  useEffect(() => {
    if (numbers.length >= 2) void compare.run(); // Cannot reject: useAction keeps the error for the view.
  }, [delivery.id]);

  if (numbers.length === 0)
    return <EmptyState title="Nothing to compare yet">Compare works on attempts: the first is on its way.</EmptyState>;
  const attemptSelect = (label: string, value: number | undefined, set: (n: number) => void) => (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => set(Number(e.target.value))} aria-label={label}>
        {numbers.map((n) => (
          <option key={n} value={n}>
            attempt {n}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="stack compare">
      <form
        className="row wrap"
        onSubmit={(e) => {
          e.preventDefault();
          void compare.run(); // Cannot reject: useAction keeps the error for the view.
        }}
      >
        {attemptSelect('Compare', from, setFrom)}
        {!other.trim() && attemptSelect('with', to, setTo)}
        <label>
          or with delivery{' '}
          <input
            className="mono"
            placeholder="dlv_…"
            value={other}
            onChange={(e) => setOther(e.target.value)}
            aria-label="Another delivery to compare with"
          />
        </label>
        <button type="submit" disabled={compare.busy}>
          Compare
        </button>
      </form>
      {compare.error && <div className="bad">{compare.error.message}</div>}
      {result && <Comparison c={result} />}
    </div>
  );
}

function Comparison({ c }: { c: DeliveryComparison }) {
  const side = (s: DeliveryComparison['from']) => `${s.deliveryId}${s.attempt === null ? '' : ` #${s.attempt}`}`;
  const r = c.response;
  return (
    <div className="stack" data-testid="comparison">
      <div className="faint">
        <span className="mono">{side(c.from)}</span> → <span className="mono">{side(c.to)}</span>
      </div>
      <h4>Envelope {c.bodyIdentical ? '(the same bytes)' : `(${c.envelope.length} changes)`}</h4>
      {c.envelope.length > 0 && (
        <Changes
          testid="envelope-changes"
          rows={c.envelope.map((e) => [e.path, e.op, shown(e.from), shown(e.to)])}
          head={['Path', 'Change', 'Before', 'After']}
        />
      )}
      <h4>Request headers {c.requestHeaders.length === 0 && '(the same)'}</h4>
      {c.requestHeaders.length > 0 && (
        <Changes
          testid="header-changes"
          rows={c.requestHeaders.map((h) => [h.name, '', h.from ?? '—', h.to ?? '—'])}
          head={['Header', '', 'Before', 'After']}
        />
      )}
      <h4>Signature inputs {c.signatureInputs.length === 0 && '(the same)'}</h4>
      {c.signatureInputs.length > 0 && (
        <Changes
          testid="signature-changes"
          rows={c.signatureInputs.map((s) => [s.name, '', shown(s.from), shown(s.to)])}
          head={['Input', '', 'Before', 'After']}
        />
      )}
      <h4>Receiver&apos;s answers</h4>
      {!r ? (
        <div className="faint">One side has no attempt yet.</div>
      ) : (
        <Changes
          testid="answer-changes"
          head={['', '', 'Before', 'After']}
          rows={[
            ['status', '', String(r.status.from ?? 'no response'), String(r.status.to ?? 'no response')],
            ['time', '', `${shown(r.durationMs.from)} ms`, `${shown(r.durationMs.to)} ms`],
            ...(r.error.from !== r.error.to ? [['error', '', shown(r.error.from), shown(r.error.to)]] : []),
            ...r.headers.map((h) => [h.name, '', h.from ?? '—', h.to ?? '—']),
            ['body', r.body.same ? 'same' : '', r.body.from, r.body.to],
          ]}
        />
      )}
    </div>
  );
}

function Changes({ head, rows, testid }: { head: string[]; rows: string[][]; testid: string }) {
  return (
    <table className="data diff-table" data-testid={testid}>
      <thead>
        <tr>
          {head.map((h, i) => (
            <th key={i}>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            {row.map((cell, j) => (
              <td key={j} className={j === 0 || j >= 2 ? 'mono' : undefined}>
                {cell}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
