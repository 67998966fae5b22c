import { useState } from 'react';
import { keyAccepted, signInWithKey } from '../api/session.ts';
import { Field } from '../components/Field.tsx';
import { useApp } from '../store/app.ts';

const notAccepted =
  'Key not accepted: it is not the admin key of this Sandbay (each install has its own; it is in the URL Sandbay printed when it started).';

/** Shown when the page has no valid admin key: how to get in, instead of a broken page. */
export function SignIn() {
  // The page came with a key (in its URL or this tab's storage) and the server refused it.
  const refused = useApp((s) => s.session.adminKey !== null);
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(refused ? notAccepted : null);
  const [checking, setChecking] = useState(false);
  return (
    <main className="signin">
      <h1>Sandbay needs its admin key</h1>
      <p className="muted">
        Open the URL Sandbay printed when it started (
        <code data-testid="ready-url">Sandbay ready: {window.location.origin}/?key=…</code>), or paste the key here.{' '}
        <code>sandbay serve</code> and <code>npm start -- --headless</code> print it.
      </p>
      <form
        className="form-row"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (!/^sbk_\w+$/.test(key.trim())) return setError('The admin key starts with sbk_ and has no spaces.');
          setChecking(true);
          try {
            if (!(await keyAccepted(key))) return setError(notAccepted);
            signInWithKey(key);
          } catch {
            setError('Sandbay did not answer. Is it still running?');
          } finally {
            setChecking(false);
          }
        }}
      >
        <Field label="Admin key" error={error} className="grow">
          <input
            className="mono"
            type="password"
            value={key}
            onChange={(e) => setKey(e.target.value)}
            autoComplete="off"
            autoFocus
          />
        </Field>
        <button type="submit" className="primary align-end" disabled={checking}>
          Open the inspector
        </button>
      </form>
    </main>
  );
}
