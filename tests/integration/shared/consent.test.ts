import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { rawRequest } from '../../helpers/http.ts';
import { consentFields, oauthError, pkcePair, tokenRequest } from '../../helpers/oauth.ts';
import { operatorKey, signIn } from '../../helpers/session.ts';

// On a shared server a client id is public knowledge (it rides in /oauth/authorize URLs): the
// consent page must approve only for someone signed in to that client's sandbox.
const engine = useEngine({ publicUrl: 'https://sandbay.example.com', adminKey: operatorKey });
const redirectUri = 'http://127.0.0.1:53682/callback';

const authorizeParams = (sb: TestSandbox, challenge: string, scope = 'orders:read') => ({
  response_type: 'code',
  client_id: sb.clientId,
  redirect_uri: redirectUri,
  scope,
  state: 's1',
  code_challenge: challenge,
  code_challenge_method: 'S256',
});

/** Presses a consent page button as the browser would: a same-origin form post, with the session cookie if any. */
function decide(params: Record<string, string>, decision: 'approve' | 'deny', cookie?: string) {
  return rawRequest(engine.url, '/oauth/authorize', {
    method: 'POST',
    body: new URLSearchParams({ ...params, decision }).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: new URL(engine.url).origin,
      ...(cookie ? { cookie } : {}),
    },
  });
}

async function codesOf(sb: TestSandbox): Promise<number> {
  const [row] = await engine.running.services.db.query<{ n: number }>(
    'select count(*)::int as n from oauth_codes where client_id = $1',
    [sb.clientId],
  );
  return row.n;
}

test("approving with only the victim's client id, signed in to nothing or to another sandbox, is refused with a page: no code", async () => {
  const victim = await createSandbox(engine.url, 'victim', operatorKey);
  const attacker = await createSandbox(engine.url, 'attacker', operatorKey);
  const { challenge } = pkcePair();
  const params = authorizeParams(victim, challenge);
  const { cookie: attackersSession } = await signIn(engine.url, {
    clientId: attacker.clientId,
    clientSecret: attacker.clientSecret,
  });
  for (const cookie of [undefined, attackersSession]) {
    const res = await decide(params, 'approve', cookie);
    assert.equal(res.status, 403);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.headers.location, undefined, 'no redirect, so no code');
    assert.match(res.body, /Sign in to the sandbox <strong>victim<\/strong> to approve/);
  }
  assert.equal(await codesOf(victim), 0);
  const denied = await decide(params, 'deny');
  assert.equal(denied.status, 303, 'deny needs no session');
  assert.equal(new URL(denied.headers.location!).searchParams.get('error'), 'access_denied');
});

test('signed in to the sandbox, its user approves, for scopes the session has; the code then needs the client secret', async () => {
  const sb = await createSandbox(engine.url, 'mine', operatorKey);
  const { verifier, challenge } = pkcePair();
  const page = await rawRequest(engine.url, `/oauth/authorize?${new URLSearchParams(authorizeParams(sb, challenge))}`);
  assert.equal(page.status, 200);
  assert.match(page.body, /only a browser signed in to <strong>mine<\/strong>/);
  const { cookie } = await signIn(engine.url, { clientId: sb.clientId, clientSecret: sb.clientSecret });
  const approved = await decide(consentFields(page.body), 'approve', cookie);
  assert.equal(approved.status, 303, approved.body);
  const code = new URL(approved.headers.location!).searchParams.get('code')!;
  assert.match(code, /^sac_/);
  const exchange = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: sb.clientId,
  };
  oauthError(await tokenRequest(engine.url, exchange), 401, 'invalid_client');
  assert.equal((await tokenRequest(engine.url, { ...exchange, client_secret: sb.clientSecret })).status, 200);

  const readOnly = await tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
    scope: 'orders:read',
  });
  const { cookie: narrow } = await signIn(engine.url, { accessToken: readOnly.body.access_token });
  const wider = await decide(authorizeParams(sb, pkcePair().challenge, 'orders:write'), 'approve', narrow);
  assert.equal(wider.status, 403);
  assert.match(wider.body, /Your session cannot grant orders:write/);
  assert.equal((await decide(authorizeParams(sb, pkcePair().challenge, 'orders:read'), 'approve', narrow)).status, 303);
});
