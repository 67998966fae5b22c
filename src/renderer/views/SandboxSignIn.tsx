import { useState } from 'react';
import { ApiProblem } from '../api/client.ts';
import { Field } from '../components/Field.tsx';
import { useAction } from '../components/hooks.ts';
import { InlineError } from '../components/Misc.tsx';
import { navigate } from '../router.ts';
import { useApp } from '../store/app.ts';
import { useSignIn, type SignInCredentials } from '../store/signin.ts';

type Method = 'client' | 'token';

/** The form's problem on the field it names, or on the whole form. */
const fieldError = (error: Error | null, pointer: string) =>
  error instanceof ApiProblem ? error.fieldError(pointer) : undefined;

/**
 * A shared server's front door (SPEC §9): sign in with one sandbox's own credentials — its
 * client id and secret, or an access token — and see only that sandbox. Or, where the operator
 * lets anyone, create a sandbox, which signs the browser straight in to it.
 */
export function SandboxSignIn({ expired }: { expired: boolean }) {
  const lastClientId = useSignIn((s) => s.lastClientId);
  const openCreation = useSignIn((s) => s.openSandboxCreation);
  const [method, setMethod] = useState<Method>('client');
  const [clientId, setClientId] = useState(lastClientId);
  const [clientSecret, setClientSecret] = useState('');
  const [accessToken, setAccessToken] = useState('');
  const signIn = useAction(async () => {
    const credentials: SignInCredentials =
      method === 'client'
        ? { clientId: clientId.trim(), clientSecret: clientSecret.trim() }
        : { accessToken: accessToken.trim() };
    await useSignIn.getState().signIn(credentials);
  });
  const create = useAction(async () => {
    const created = await useApp.getState().createSandbox();
    await useSignIn
      .getState()
      .signIn({ clientId: created.credentials.clientId, clientSecret: created.credentials.clientSecret });
    navigate('/portal/sandbox');
    useApp
      .getState()
      .toast(
        'success',
        `${created.sandbox.name} created. Keep its client ID and secret (the portal shows the secret this once): they sign you in next time.`,
      );
  });
  const formError =
    signIn.error &&
    !fieldError(signIn.error, '/clientId') &&
    !fieldError(signIn.error, '/clientSecret') &&
    !fieldError(signIn.error, '/accessToken')
      ? signIn.error
      : null;
  return (
    <main className="signin">
      <h1>Sign in to your sandbox</h1>
      {expired && (
        <div className="callout" role="alert">
          Your session expired (access tokens live 1 hour on the real clock). Sign in again.
        </div>
      )}
      <p className="muted">
        This Sandbay is shared: each person sees only their own sandbox. Sign in with its client ID and secret (shown
        once, when it was created), or with one of its access tokens.
      </p>
      <div className="row" role="radiogroup" aria-label="Sign in with">
        <label className="row nowrap">
          <input type="radio" name="method" checked={method === 'client'} onChange={() => setMethod('client')} /> With
          client ID and secret
        </label>
        <label className="row nowrap">
          <input type="radio" name="method" checked={method === 'token'} onChange={() => setMethod('token')} /> With an
          access token
        </label>
      </div>
      <form
        className="stack"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          // Cannot reject: useAction's run() catches: the error shows inline.
          void signIn.run();
        }}
      >
        {method === 'client' ? (
          <>
            <Field label="Client ID" error={fieldError(signIn.error, '/clientId')}>
              <input
                className="mono"
                value={clientId}
                onChange={(e) => setClientId(e.target.value)}
                autoComplete="username"
                autoFocus={!lastClientId}
              />
            </Field>
            <Field label="Client secret" error={fieldError(signIn.error, '/clientSecret')}>
              <input
                className="mono"
                type="password"
                value={clientSecret}
                onChange={(e) => setClientSecret(e.target.value)}
                autoComplete="current-password"
                autoFocus={Boolean(lastClientId)}
              />
            </Field>
          </>
        ) : (
          <Field label="Access token" error={fieldError(signIn.error, '/accessToken')}>
            <input
              className="mono"
              type="password"
              value={accessToken}
              onChange={(e) => setAccessToken(e.target.value)}
              autoComplete="off"
              autoFocus
            />
          </Field>
        )}
        <InlineError error={formError} />
        <div className="row">
          <button type="submit" className="primary" disabled={signIn.busy}>
            {signIn.busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
      {openCreation ? (
        <>
          <p className="muted">
            No sandbox yet?{' '}
            <button type="button" className="small" onClick={() => void create.run()} disabled={create.busy}>
              {create.busy ? 'Creating…' : 'Create a sandbox'}
            </button>{' '}
            — seeded, yours, and signed in at once.
          </p>
          <InlineError error={create.error} />
        </>
      ) : (
        <p className="muted" data-testid="ask-operator">
          No sandbox yet? Ask the operator of this server: they create sandboxes (
          <code>sandbay token --new --json</code> with the admin key) and give you the client ID and secret.
        </p>
      )}
    </main>
  );
}
