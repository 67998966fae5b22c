import { useEffect, useState } from 'react';
import type { Catcher, CatcherMode, CaughtRequest } from '../../../shared/api-types.ts';
import { Copyable } from '../../components/Copy.tsx';
import { ConfirmButton } from '../../components/Dialog.tsx';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../components/hooks.ts';
import { InlineError, Link } from '../../components/Misc.tsx';
import { pathOf } from '../../router.ts';
import { useCatchers } from '../../store/catchers.ts';
import { useEndpoints } from '../../store/endpoints.ts';
import { useCan } from '../../store/signin.ts';
import { ClockTime } from '../../components/ClockTime.tsx';

const answers = [
  { key: '200', label: '200 OK' },
  { key: '204', label: '204 No Content' },
  { key: '400', label: '400 Bad Request' },
  { key: '401', label: '401 Unauthorized' },
  { key: '404', label: '404 Not Found' },
  { key: '410', label: '410 Gone' },
  { key: '429', label: '429 Too Many Requests' },
  { key: '500', label: '500 Internal Server Error' },
  { key: '502', label: '502 Bad Gateway' },
  { key: '503', label: '503 Service Unavailable' },
  { key: 'timeout', label: 'Timeout (never answers)' },
  { key: 'redirect', label: 'Redirect (302)' },
];
const answerKey = (c: Catcher) => (c.mode === 'status' ? String(c.status) : c.mode);
const behaviourOf = (key: string): { mode: CatcherMode; status?: number } =>
  key === 'timeout' || key === 'redirect' ? { mode: key } : { mode: 'status', status: Number(key) };
const reasonText: Record<CaughtRequest['verification']['reason'], string> = {
  ok: 'signature verified',
  no_header: 'no signature header',
  malformed_header: 'malformed signature header',
  no_matching_signature: 'signature does not match',
  timestamp_outside_tolerance: 'timestamp outside tolerance',
  unknown_delivery: 'not a delivery of this sandbox',
};
const namePattern = /^[a-z0-9][a-z0-9-]{0,62}$/;
// A shared empty list: a selector returning a fresh [] each time would re-render forever.
const noRequests: CaughtRequest[] = [];

function CatcherCard({ catcher, sandboxId }: { catcher: Catcher; sandboxId: string }) {
  const requests = useCatchers((s) => s.requests[catcher.name] ?? noRequests);
  const registered = useEndpoints((s) => s.endpoints.some((e) => e.url === catcher.url));
  const [delay, setDelay] = useState(String(catcher.delayMs));
  const save = useAction((b: { mode?: CatcherMode; status?: number; delayMs?: number }) =>
    useCatchers.getState().put(catcher.name, b),
  );
  const register = useAction(() =>
    useEndpoints
      .getState()
      .create({ url: catcher.url, topics: ['*'], description: `Built-in catcher ${catcher.name}` }),
  );
  const canWrite = useCan('webhooks:write');
  const delayMs = Number(delay);
  const delayError =
    delay.trim() === '' || !Number.isInteger(delayMs) || delayMs < 0 || delayMs > 30_000
      ? 'Whole milliseconds, 0 to 30000.'
      : null;
  const options = answers.some((a) => a.key === answerKey(catcher))
    ? answers
    : [...answers, { key: answerKey(catcher), label: answerKey(catcher) }];
  return (
    <li className="panel catcher" data-catcher={catcher.name} aria-label={`Catcher ${catcher.name}`}>
      <div className="panel-head">
        <strong>{catcher.name}</strong>
        <Copyable value={catcher.url} label={`URL of catcher ${catcher.name}`} />
        <span className="spacer" />
        {registered ? (
          <span className="tag ok">endpoint registered</span>
        ) : (
          canWrite && (
            <button
              type="button"
              className="small primary"
              disabled={register.busy}
              onClick={() => void register.run()}
            >
              Register as endpoint
            </button>
          )
        )}
        {canWrite && (
          <ConfirmButton
            label="Delete"
            className="small danger"
            danger
            title={`Delete catcher ${catcher.name}?`}
            confirmLabel="Delete catcher"
            onConfirm={() => useCatchers.getState().remove(catcher.name)}
            message={
              <p>
                <code>{catcher.url}</code> will answer 404, so deliveries to it fail and retry.
              </p>
            }
          />
        )}
      </div>
      <div className="panel-body stack tight">
        <form
          className="form-row"
          onSubmit={(e) => {
            e.preventDefault();
            // Cannot reject: useAction's run() catches: the error shows inline.
            if (!delayError) void save.run({ delayMs });
          }}
        >
          <Field label="Answer with">
            <select
              value={answerKey(catcher)}
              disabled={!canWrite}
              onChange={(e) => void save.run(behaviourOf(e.target.value))}
            >
              {options.map((a) => (
                <option key={a.key} value={a.key}>
                  {a.label}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Delay (ms)" error={delayError}>
            <input
              type="number"
              min={0}
              max={30000}
              step={100}
              value={delay}
              disabled={!canWrite}
              onChange={(e) => setDelay(e.target.value)}
              onBlur={() => {
                // Cannot reject: useAction's run() catches: the error shows inline.
                if (!delayError && delayMs !== catcher.delayMs) void save.run({ delayMs });
              }}
            />
          </Field>
        </form>
        <InlineError error={save.error ?? register.error} />
        {requests.length === 0 ? (
          <p className="faint">
            No requests yet.{' '}
            {registered ? 'Send a test webhook to it.' : 'Register it as an endpoint, then send a test webhook.'}
          </p>
        ) : (
          <table className="data caught">
            <thead>
              <tr>
                <th>Received</th>
                <th>Delivery</th>
                <th>Verification</th>
                <th>Answered</th>
              </tr>
            </thead>
            <tbody>
              {requests.slice(0, 8).map((r) => (
                <tr key={r.id}>
                  <td className="mono">
                    <ClockTime at={r.receivedAt} clock="real" />
                  </td>
                  <td className="mono">
                    {r.verification.deliveryId ? (
                      <Link to={pathOf('deliveries', sandboxId, r.verification.deliveryId)}>
                        {r.verification.deliveryId}
                      </Link>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td className={r.verification.verified ? 'ok' : 'bad'}>
                    {r.verification.verified ? '✓' : '✕'} {reasonText[r.verification.reason]}
                  </td>
                  <td className="mono">
                    {r.responseStatus ?? 'timed out'}
                    {r.delayMs ? ` after ${r.delayMs} ms` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </li>
  );
}

/** Built-in catchers: receivers hosted by Sandbay whose answer you choose, for demos without code. */
export function Catchers({ sandboxId }: { sandboxId: string }) {
  const { catchers, loaded } = useCatchers();
  // Names are the sandbox's own (its id is part of the URL), so every sandbox can have a demo.
  const [name, setName] = useState('demo');
  const [touched, setTouched] = useState(false);
  const create = useAction(() => useCatchers.getState().put(name.trim(), {}));
  const canWrite = useCan('webhooks:write');
  useEffect(() => {
    if (!useCatchers.getState().loaded)
      void useCatchers
        .getState()
        .load()
        .catch(() => {});
  }, [sandboxId]);
  const nameError =
    touched && !namePattern.test(name.trim())
      ? 'Lowercase letters, digits and dashes (up to 63), starting with a letter or digit.'
      : null;
  return (
    <section className="stack" aria-labelledby="catchers-title">
      <div className="row">
        <h2 id="catchers-title">Built-in catchers</h2>
        <span className="faint">
          Receivers Sandbay hosts for this sandbox at <code>/catch/{sandboxId}/&lt;name&gt;</code>: they record and
          verify what they get and answer as you choose — show retries and the DLQ with no code.
        </span>
      </div>
      {canWrite && (
        <form
          className="form-row"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            setTouched(true);
            // Cannot reject: useAction's run() catches: the error shows inline.
            if (namePattern.test(name.trim())) void create.run();
          }}
        >
          <Field label="Catcher name" error={nameError ?? create.error?.message}>
            <input className="mono" value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          <button type="submit" className="align-end" disabled={create.busy}>
            Create catcher
          </button>
        </form>
      )}
      {loaded && catchers.length > 0 && (
        <ul className="cards">
          {catchers.map((c) => (
            <CatcherCard key={c.name} catcher={c} sandboxId={sandboxId} />
          ))}
        </ul>
      )}
    </section>
  );
}
