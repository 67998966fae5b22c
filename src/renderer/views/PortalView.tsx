import { useEffect, useState } from 'react';
import { api } from '../api/client.ts';
import type { MintedToken, OAuthClientView, PortalSecrets, Sandbox, SandboxSummary } from '../../shared/api-types.ts';
import { CopyButton, Copyable } from '../components/Copy.tsx';
import { Field } from '../components/Field.tsx';
import { useAction } from '../components/hooks.ts';
import { EmptyState, InlineError, Link } from '../components/Misc.tsx';
import { Secret } from '../components/Secret.tsx';
import { pathOf } from '../router.ts';
import { useApp } from '../store/app.ts';
import { maskSecret } from '../../shared/mask-secret.ts';
import { countsText } from '../util/format.ts';
import { rememberToken, rememberedToken } from '../store/tokens.ts';
import { useCan, useSignIn } from '../store/signin.ts';
import { TestCardsPanel } from './TestCardsPanel.tsx';
import { ClockTime } from '../components/ClockTime.tsx';

const orderBody =
  '{"customerId":"cus_0001","items":[{"variantId":"var_0001","quantity":1}],"shippingAddress":{"city":"İstanbul","district":"Kadıköy"}}';
const curlExample = (base: string, token: string) =>
  `curl -s ${base}/api/v1/orders \\\n  -H 'Authorization: Bearer ${token}' \\\n  -H 'Content-Type: application/json' \\\n  -d '${orderBody}'`;

/** The client secret: shown in full only just after creation or rotation (it is stored hashed), else its hint. */
function ClientSecret({
  secrets,
  fresh,
  onRotate,
  rotating,
}: {
  secrets: PortalSecrets | null;
  fresh: string | null;
  onRotate: () => void;
  rotating: boolean;
}) {
  if (!secrets) return <>…</>;
  return (
    <span className="row">
      {fresh ? (
        <Secret value={fresh} label="client secret" />
      ) : (
        <code data-testid="client-secret-hint">{secrets.clientSecretHint}</code>
      )}
      <span className="faint">{fresh ? 'shown this once: keep it now' : 'shown once, when it was made'}</span>
      <button type="button" className="small" onClick={onRotate} disabled={rotating}>
        {rotating ? 'Rotating…' : 'Rotate secret'}
      </button>
    </span>
  );
}

function Credentials({ sandbox, createdSecret }: { sandbox: SandboxSummary; createdSecret: string | null }) {
  const [secrets, setSecrets] = useState<PortalSecrets | null>(null);
  const [fresh, setFresh] = useState<string | null>(createdSecret);
  const [counts, setCounts] = useState<Record<string, number> | null>(null);
  const [token, setToken] = useState(() => rememberedToken(sandbox.id));
  const load = useAction(async () => {
    const [s, sb] = await Promise.all([
      api.get<PortalSecrets>('/api/v1/sandbox/credentials'),
      api.get<Sandbox>('/api/v1/sandbox'),
    ]);
    setSecrets(s);
    setCounts(sb.counts);
  });
  const mint = useAction(async () => {
    const res = await api.post<MintedToken>('/api/v1/sandbox/tokens', {});
    rememberToken(sandbox.id, res.accessToken, res.expiresIn);
    setToken(res.accessToken);
  });
  const rotate = useAction(async () => {
    if (
      !window.confirm(
        'Rotate the client secret? The current one stops working at once (tokens already issued stay valid).',
      )
    )
      return;
    const rotated = await api.post<OAuthClientView>(
      `/api/v1/sandbox/oauth-clients/${encodeURIComponent(secrets!.clientId)}/rotate-secret`,
      {},
    );
    setFresh(rotated.clientSecret ?? null);
    setSecrets({ ...secrets!, clientSecretHint: rotated.clientSecretHint ?? secrets!.clientSecretHint });
  });
  useEffect(() => {
    setSecrets(null);
    setFresh(createdSecret);
    setToken(rememberedToken(sandbox.id));
    // Cannot reject: useAction's run() catches: the error shows inline.
    void load.run();
  }, [sandbox.id, createdSecret]);
  // The address users and receivers see (--public-url), which may differ from the one this page came by.
  const base = useSignIn((s) => s.publicUrl) || window.location.origin;
  return (
    <section className="panel" aria-labelledby="creds-title">
      <div className="panel-head">
        <h2 id="creds-title">{sandbox.name}</h2>
        <span className="mono faint">{sandbox.id}</span>
        <span className="spacer" />
        <Link className="button small" to={pathOf('deliveries', sandbox.id)}>
          Open deliveries
        </Link>
      </div>
      <div className="panel-body stack">
        {counts && <p className="muted">Seeded with {countsText(counts)}.</p>}
        <InlineError error={load.error} />
        <dl className="facts credentials">
          <dt>Base URL</dt>
          <dd>
            <Copyable value={`${base}/api/v1`} label="base URL" />
          </dd>
          <dt>Access token</dt>
          <dd>
            {token ? (
              <Secret value={token} label="access token" />
            ) : (
              <span className="row">
                <span className="faint">Tokens are shown once;</span>
                <button
                  type="button"
                  className="small"
                  onClick={() => void mint.run()}
                  disabled={!secrets || mint.busy}
                >
                  Generate a token
                </button>
                <span className="faint">(valid 1 h)</span>
              </span>
            )}
            <InlineError error={mint.error} />
          </dd>
          <dt>Client ID</dt>
          <dd>{secrets ? <Copyable value={secrets.clientId} label="client ID" /> : '…'}</dd>
          <dt>Client secret</dt>
          <dd>
            <ClientSecret secrets={secrets} fresh={fresh} onRotate={() => void rotate.run()} rotating={rotate.busy} />
            <InlineError error={rotate.error} />
          </dd>
          <dt>Webhook test secret</dt>
          <dd>
            {secrets ? <Secret value={secrets.webhookTestSecret} label="webhook test secret" /> : '…'}{' '}
            <span className="faint">signs test webhooks sent to a URL with no registered endpoint</span>
          </dd>
        </dl>
        <div className="stack tight">
          <div className="row">
            <h3>Try it</h3>
            <span className="faint">places an order, which emits order.placed</span>
            <span className="spacer" />
            {token && <CopyButton value={curlExample(base, token)} label="curl example" />}
          </div>
          <pre className="code" data-testid="curl-example">
            {curlExample(base, token ? maskSecret(token) : '$TOKEN')}
          </pre>
          {!token && (
            <p className="field-hint">
              Generate a token above and the copy button gives you the command with it filled in.
            </p>
          )}
        </div>
      </div>
    </section>
  );
}

/**
 * The developer portal (/portal/sandbox): create a sandbox in one click, its credentials, switch
 * sandboxes. On a shared server there is no list to switch in: a new sandbox signs the browser in to it.
 */
export function PortalView() {
  const { sandboxes, sandboxId, sandboxesLoaded } = useApp();
  const shared = useSignIn((s) => s.shared);
  const openCreation = useSignIn((s) => s.openSandboxCreation);
  const canSeeCredentials = useCan('sandbox:write');
  const [name, setName] = useState('');
  // The new sandbox's client secret, shown in its credentials this once (it is stored hashed).
  const created = useApp((s) => s.createdSecret);
  const create = useAction(async () => {
    const created = await useApp.getState().createSandbox(name.trim() || undefined);
    if (shared)
      await useSignIn
        .getState()
        .signIn({ clientId: created.credentials.clientId, clientSecret: created.credentials.clientSecret });
    else useApp.getState().selectSandbox(created.sandbox.id);
    setName('');
    useApp
      .getState()
      .toast(
        'success',
        `${created.sandbox.name} created and seeded.${shared ? ' You are signed in to it; keep its client ID and secret to sign in again.' : ''}`,
      );
  });
  const current = sandboxes.find((s) => s.id === sandboxId);
  return (
    <div className="page stack">
      <div className="pane-head">
        <h1>Developer portal</h1>
        <span className="muted">Sandboxes are free, seeded and disposable.</span>
      </div>
      {openCreation && (
        <form
          className="form-row"
          onSubmit={(e) => {
            e.preventDefault();
            // Cannot reject: useAction's run() catches: the error shows inline.
            void create.run();
          }}
        >
          <Field label="Name (optional)" error={create.error?.message}>
            <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="My shop" />
          </Field>
          <button type="submit" className="primary align-end" disabled={create.busy}>
            {create.busy ? 'Creating…' : shared ? 'Create a new sandbox' : 'Create sandbox'}
          </button>
        </form>
      )}
      {sandboxesLoaded && sandboxes.length === 0 && (
        <EmptyState title="No sandbox yet">
          Create one: it comes seeded with 100 products, 50 customers, 200 orders and 3 vendors, plus an OAuth client
          and a token.
        </EmptyState>
      )}
      {current && canSeeCredentials && (
        <Credentials
          sandbox={current}
          createdSecret={created?.sandboxId === current.id ? created.clientSecret : null}
        />
      )}
      {current && <TestCardsPanel sandboxId={current.id} />}
      {sandboxes.length > 0 && !shared && (
        <section className="panel" aria-labelledby="sandboxes-title">
          <div className="panel-head">
            <h2 id="sandboxes-title">Your sandboxes</h2>
          </div>
          <table className="data">
            <thead>
              <tr>
                <th>Name</th>
                <th>ID</th>
                <th>Created</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sandboxes.map((s) => (
                <tr key={s.id} aria-current={s.id === sandboxId ? 'true' : undefined}>
                  <td>{s.name}</td>
                  <td className="mono">{s.id}</td>
                  <td>
                    <ClockTime at={s.createdAt} clock="real" withDate />
                  </td>
                  <td>
                    {s.id === sandboxId ? (
                      <span className="tag">current</span>
                    ) : (
                      <button
                        type="button"
                        className="small"
                        onClick={() => useApp.getState().selectSandbox(s.id)}
                        aria-label={`Switch to ${s.name}`}
                      >
                        Switch
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}
