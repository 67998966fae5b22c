import { useState } from 'react';
import { signInWithKey } from '../api/session.ts';
import { Field } from '../components/Field.tsx';

/** Shown when the page has no valid admin key: how to get in, instead of a broken page. */
export function SignIn() {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <main className="signin">
      <h1>Sandbay needs its admin key</h1>
      <p className="muted">Open the URL Sandbay printed when it started (<code>Sandbay ready: http://127.0.0.1:4400/?key=…</code>), or paste the key here. <code>sandbay serve</code> and <code>npm start -- --headless</code> print it.</p>
      <form className="form-row" noValidate onSubmit={(e) => {
        e.preventDefault();
        if (!/^sbk_\w+$/.test(key.trim())) return setError('The admin key starts with sbk_ and has no spaces.');
        signInWithKey(key);
      }}>
        <Field label="Admin key" error={error} className="grow">
          <input className="mono" type="password" value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" autoFocus />
        </Field>
        <button type="submit" className="primary align-end">Open the inspector</button>
      </form>
    </main>
  );
}
