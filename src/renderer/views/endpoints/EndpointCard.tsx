import { useState } from 'react';
import { api } from '../../api/client.ts';
import type { Endpoint, LiveSecret } from '../../../shared/api-types.ts';
import { Copyable } from '../../components/Copy.tsx';
import { ConfirmButton } from '../../components/Dialog.tsx';
import { useAction } from '../../components/hooks.ts';
import { InlineError } from '../../components/Misc.tsx';
import { useDetail } from '../../store/detail.ts';
import { useEndpoints } from '../../store/endpoints.ts';
import { useCan } from '../../store/signin.ts';
import { ChaosEditor } from './ChaosEditor.tsx';
import { SchemePicker } from './SchemePicker.tsx';
import { ReceiverCheck } from './ReceiverCheck.tsx';
import { sendTestWebhook, TopicSelect } from './TestWebhook.tsx';
import { ClockTime } from '../../components/ClockTime.tsx';

/** The endpoint's live secrets, fetched only when the user asks to see them. */
function Secrets({ endpoint }: { endpoint: Endpoint }) {
  const [secrets, setSecrets] = useState<LiveSecret[] | null>(null);
  const reveal = useAction(async () =>
    setSecrets((await api.get<{ data: LiveSecret[] }>(`/api/v1/webhooks/endpoints/${endpoint.id}/secrets`)).data),
  );
  const rotate = async () => {
    await useEndpoints.getState().rotate(endpoint.id);
    useDetail.getState().forgetSecrets(endpoint.id);
    if (secrets) await reveal.run();
  };
  return (
    <div className="secrets">
      <div className="row">
        <span className="label">Signing secret</span>
        {secrets ? (
          <button
            type="button"
            className="small"
            onClick={() => setSecrets(null)}
            aria-label={`Hide secrets of ${endpoint.url}`}
          >
            Hide
          </button>
        ) : (
          <>
            <code data-secret="masked">{endpoint.secret}</code>
            <button
              type="button"
              className="small"
              onClick={() => void reveal.run()}
              disabled={reveal.busy}
              aria-label={`Reveal secret of ${endpoint.url}`}
            >
              Reveal
            </button>
          </>
        )}
        <ConfirmButton
          label="Rotate"
          className="small"
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          onConfirm={rotate}
          message={
            <p>
              A new secret signs from now on. The current one keeps signing alongside it for 24 hours of sandbox time,
              so receivers can switch over.
            </p>
          }
        />
      </div>
      {secrets && (
        <ul className="secret-list">
          {secrets.map((s) => (
            <li key={s.secret}>
              <Copyable value={s.secret} label={`secret of ${endpoint.url}`} />
              {s.publicKey && <Copyable value={s.publicKey} label={`public key of ${endpoint.url}`} />}
              <span className="faint">
                {s.expiresAt ? (
                  <>
                    rotated out; signs until <ClockTime at={s.expiresAt} clock="sandbox" withDate /> (sandbox clock)
                  </>
                ) : (
                  'current'
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
      <InlineError error={reveal.error} />
    </div>
  );
}

/** One registered endpoint: URL, topics, enable switch, secret, test sender, delete. */
export function EndpointCard({ endpoint, sandboxId }: { endpoint: Endpoint; sandboxId: string }) {
  const [topic, setTopic] = useState('order.placed');
  const toggle = useAction((enabled: boolean) => useEndpoints.getState().update(endpoint.id, { enabled }));
  const scheme = useAction((signature: Endpoint['signature']) =>
    useEndpoints.getState().update(endpoint.id, { signature }),
  );
  const test = useAction(() => sendTestWebhook(sandboxId, topic, endpoint.id));
  // Every change (and revealing secrets) needs webhooks:write; a read-only session sees the card only.
  const canWrite = useCan('webhooks:write');
  return (
    <li className="panel endpoint" data-endpoint-id={endpoint.id} aria-label={`Endpoint ${endpoint.url}`}>
      <div className="panel-head">
        <Copyable value={endpoint.url} label="endpoint URL" />
        <span className="spacer" />
        <label className="row nowrap switch">
          <input
            type="checkbox"
            role="switch"
            checked={endpoint.enabled}
            disabled={toggle.busy || !canWrite}
            onChange={(e) => void toggle.run(e.target.checked)}
          />
          {endpoint.enabled ? 'Enabled' : 'Disabled'}
        </label>
        {canWrite && (
          <ConfirmButton
            label="Delete"
            danger
            className="small danger"
            title="Delete this endpoint?"
            confirmLabel="Delete endpoint"
            onConfirm={() => useEndpoints.getState().remove(endpoint.id)}
            message={
              <p>
                Deliveries still pending for <code>{endpoint.url}</code> become dead (error{' '}
                <code>endpoint_deleted</code>). This cannot be undone.
              </p>
            }
          />
        )}
      </div>
      <div className="panel-body stack tight">
        <div className="row">
          <span className="mono faint">{endpoint.id}</span>
          {endpoint.description && <span>{endpoint.description}</span>}
          <span className="faint">
            created <ClockTime at={endpoint.createdAt} clock="sandbox" withDate />
          </span>
        </div>
        <div className="row topics">
          {endpoint.topics.map((t) => (
            <span key={t} className="tag mono">
              {t === '*' ? '* (all topics)' : t}
            </span>
          ))}
        </div>
        {endpoint.disabled && (
          <div className="callout warn row" role="status" data-testid="endpoint-disabled">
            <span>
              {endpoint.disabled.message}{' '}
              <span className="faint">
                Since <ClockTime at={endpoint.disabled.at} clock="sandbox" withDate /> (sandbox clock).
              </span>
            </span>
            {canWrite && (
              <button type="button" className="small" disabled={toggle.busy} onClick={() => void toggle.run(true)}>
                Enable
              </button>
            )}
          </div>
        )}
        <SchemePicker
          value={endpoint.signature}
          onChange={(next) => void scheme.run(next)}
          disabled={scheme.busy || !canWrite}
        />
        {endpoint.publicKey && (
          <div className="row" data-testid="public-key">
            <span className="label">Public key</span>
            <Copyable value={endpoint.publicKey} label={`public key of ${endpoint.url}`} />
            <span className="faint">receivers verify v1a with it; the private key stays in Sandbay</span>
          </div>
        )}
        {canWrite ? (
          <Secrets endpoint={endpoint} />
        ) : (
          <div className="row">
            <span className="label">Signing secret</span>
            <code data-secret="masked">{endpoint.secret}</code>
          </div>
        )}
        {canWrite && (
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              // Cannot reject: useAction's run() catches: the error shows inline.
              void test.run();
            }}
          >
            <TopicSelect value={topic} onChange={setTopic} label="Test topic" />
            <button
              type="submit"
              className="align-end"
              disabled={test.busy}
              aria-label={`Send test webhook to ${endpoint.url}`}
            >
              Send test
            </button>
          </form>
        )}
        <InlineError error={toggle.error ?? scheme.error ?? test.error} />
        <ReceiverCheck endpoint={endpoint} sandboxId={sandboxId} canRun={canWrite} />
        <ChaosEditor endpoint={endpoint} canEdit={canWrite} />
        {!endpoint.enabled && !endpoint.disabled && (
          <p className="field-hint">Deliveries wait while the endpoint is disabled and go out when you enable it.</p>
        )}
      </div>
    </li>
  );
}
