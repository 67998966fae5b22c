import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { checkedFetch } from '../../helpers/http.ts';
import { authorize, consentFields, oauthError, pkcePair, registerClient, tokenRequest } from '../../helpers/oauth.ts';

const engine = useEngine();
const redirectUri = 'http://127.0.0.1:53682/callback';

function authorizeParams(
  sb: TestSandbox,
  challenge: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    response_type: 'code',
    client_id: sb.clientId,
    redirect_uri: redirectUri,
    scope: 'orders:read',
    state: 'st<&>"1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
}

test('authorization_code + S256 PKCE: consent page, approve, redirect with code and state, exchange', async () => {
  const sb = await createSandbox(engine.url, 'Consent <demo>');
  const { verifier, challenge } = pkcePair();
  const page = await checkedFetch(
    `${engine.url}/oauth/authorize?${new URLSearchParams(authorizeParams(sb, challenge))}`,
  );
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(page.headers.get('cache-control'), 'no-store');
  const html = await page.text();
  assert.match(html, /Approve/);
  assert.match(html, /Deny/);
  assert.ok(html.includes('Consent &lt;demo&gt;'), 'the sandbox name, escaped');
  assert.ok(!html.includes('<demo>'));
  assert.equal(consentFields(html).state, 'st<&>"1', 'every parameter rides along');

  const location = await authorize(engine.url, authorizeParams(sb, challenge));
  assert.equal(`${location.origin}${location.pathname}`, redirectUri);
  assert.equal(location.searchParams.get('state'), 'st<&>"1');
  const code = location.searchParams.get('code')!;
  assert.match(code, /^sac_/);

  const res = await tokenRequest(engine.url, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.body.scope, 'orders:read');
  assert.match(res.body.refresh_token, /^srt_/);
  assert.equal((await call(engine.url, '/api/v1/orders/ord_0001', { token: res.body.access_token })).status, 200);
  problem(
    await call(engine.url, '/api/v1/orders', { token: res.body.access_token, body: {} }),
    403,
    'insufficient_scope',
  );
});

test('a client registered as public uses PKCE without a secret (form and JSON bodies); it has no client_credentials', async () => {
  const sb = await createSandbox(engine.url);
  const app = await registerClient(sb, { public: true, name: 'storefront SPA' });
  assert.equal(app.public, true);
  assert.equal(app.clientSecret, undefined, 'a public client has no secret');
  for (const json of [false, true]) {
    const { verifier, challenge } = pkcePair();
    const code = (
      await authorize(engine.url, authorizeParams({ ...sb, clientId: app.clientId }, challenge))
    ).searchParams.get('code')!;
    const res = await tokenRequest(
      engine.url,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: app.clientId,
      },
      { json },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await call(engine.url, '/api/v1/orders/ord_0001', { token: res.body.access_token })).status, 200);
    const refreshed = await tokenRequest(engine.url, {
      grant_type: 'refresh_token',
      refresh_token: res.body.refresh_token,
      client_id: app.clientId,
    });
    assert.equal(refreshed.status, 200, 'a public client refreshes with its client_id');
  }
  oauthError(
    await tokenRequest(engine.url, { grant_type: 'client_credentials', client_id: app.clientId }),
    400,
    'unauthorized_client',
  );
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'client_credentials',
      client_id: app.clientId,
      client_secret: 'anything',
    }),
    401,
    'invalid_client',
  );
});

test("the code flow with a confidential client's id and no secret is 401 invalid_client, and the code stays unspent", async () => {
  const sb = await createSandbox(engine.url);
  const { verifier, challenge } = pkcePair();
  const code = (await authorize(engine.url, authorizeParams(sb, challenge))).searchParams.get('code')!;
  const exchange = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: sb.clientId,
  };
  const refused = await tokenRequest(engine.url, exchange);
  oauthError(refused, 401, 'invalid_client');
  assert.match(refused.headers.get('www-authenticate') ?? '', /^Basic realm="sandbay"$/);
  oauthError(await tokenRequest(engine.url, { ...exchange, client_secret: 'cs_guess' }), 401, 'invalid_client');
  const { client_id: _id, ...withoutId } = exchange;
  const basic = await tokenRequest(engine.url, withoutId, {
    basic: { clientId: sb.clientId, clientSecret: sb.clientSecret },
  });
  assert.equal(
    basic.status,
    200,
    `client_secret_basic redeems the code the refusals left alone: ${JSON.stringify(basic.body)}`,
  );
});

test("the sandbox's own client is confidential, and a registered client is public only when registered so", async () => {
  const sb = await createSandbox(engine.url);
  const listed = (await sb.api('/api/v1/sandbox/oauth-clients')).body.data;
  assert.deepEqual(
    listed.map((c: any) => [c.clientId, c.sandboxClient, c.public]),
    [[sb.clientId, true, false]],
  );
  const confidential = await registerClient(sb, { name: 'backend' });
  assert.equal(confidential.public, false);
  assert.match(confidential.clientSecret, /^cs_\w{40}$/);
  assert.equal(confidential.clientSecretHint, `cs_…${confidential.clientSecret.slice(-4)}`);
  const { verifier, challenge } = pkcePair();
  const code = (
    await authorize(engine.url, authorizeParams({ ...sb, clientId: confidential.clientId }, challenge))
  ).searchParams.get('code')!;
  const exchange = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: confidential.clientId,
  };
  oauthError(await tokenRequest(engine.url, exchange), 401, 'invalid_client');
  assert.equal((await tokenRequest(engine.url, { ...exchange, client_secret: confidential.clientSecret })).status, 200);
  const again = (await sb.api('/api/v1/sandbox/oauth-clients')).body.data;
  assert.ok(
    again.every((c: any) => c.clientSecret === undefined),
    'a list never shows a secret',
  );
});

test('codes expire within minutes', async () => {
  const sb = await createSandbox(engine.url);
  const { verifier, challenge } = pkcePair();
  const code = (await authorize(engine.url, authorizeParams(sb, challenge))).searchParams.get('code')!;
  const [row] = await engine.running.services.db.query<{ minutes: number }>(
    'select extract(epoch from expires_at - now()) / 60 as minutes from oauth_codes where client_id = $1',
    [sb.clientId],
  );
  assert.ok(Number(row.minutes) > 9 && Number(row.minutes) <= 10, `a code lives 10 minutes (${row.minutes})`);
  await engine.running.services.db.query(
    "update oauth_codes set expires_at = now() - interval '1 second' where client_id = $1",
    [sb.clientId],
  );
  const expired = await tokenRequest(engine.url, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  });
  assert.equal(oauthError(expired, 400, 'invalid_grant').error_description, 'The authorization code expired.');
});

test('Deny redirects back with error=access_denied and the state', async () => {
  const sb = await createSandbox(engine.url);
  const location = await authorize(engine.url, authorizeParams(sb, pkcePair().challenge), 'deny');
  assert.equal(location.searchParams.get('error'), 'access_denied');
  assert.equal(location.searchParams.get('state'), 'st<&>"1');
  assert.equal(location.searchParams.get('code'), null);
});

test('a wrong verifier or redirect_uri is invalid_grant; a reused code revokes what it issued', async () => {
  const sb = await createSandbox(engine.url);
  const first = pkcePair();
  const code = (await authorize(engine.url, authorizeParams(sb, first.challenge))).searchParams.get('code')!;
  const exchange = (params: Record<string, string>) =>
    tokenRequest(engine.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: first.verifier,
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
      ...params,
    });
  oauthError(await exchange({ code_verifier: pkcePair().verifier }), 400, 'invalid_grant');

  const second = pkcePair();
  const code2 = (await authorize(engine.url, authorizeParams(sb, second.challenge))).searchParams.get('code')!;
  const redeem = (params: Record<string, string> = {}) =>
    tokenRequest(engine.url, {
      grant_type: 'authorization_code',
      code: code2,
      redirect_uri: redirectUri,
      code_verifier: second.verifier,
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
      ...params,
    });
  const tokens = await redeem();
  assert.equal(tokens.status, 200);
  oauthError(await redeem(), 400, 'invalid_grant');
  problem(await call(engine.url, '/api/v1/orders/ord_0001', { token: tokens.body.access_token }), 401, 'invalid_token');
  const refresh = await tokenRequest(engine.url, {
    grant_type: 'refresh_token',
    refresh_token: tokens.body.refresh_token,
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  });
  oauthError(refresh, 400, 'invalid_grant');

  const third = pkcePair();
  const code3 = (await authorize(engine.url, authorizeParams(sb, third.challenge))).searchParams.get('code')!;
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'authorization_code',
      code: code3,
      redirect_uri: 'http://127.0.0.1:1/other',
      code_verifier: third.verifier,
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
    }),
    400,
    'invalid_grant',
  );
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'authorization_code',
      code: 'sac_unknown',
      redirect_uri: redirectUri,
      code_verifier: third.verifier,
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
    }),
    400,
    'invalid_grant',
  );
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
    }),
    400,
    'invalid_request',
  );
});

test('a code issued to one client cannot be redeemed by another, nor spent by it: its own client still redeems it', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const { verifier, challenge } = pkcePair();
  const code = (await authorize(engine.url, authorizeParams(a, challenge))).searchParams.get('code')!;
  const exchange = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier };
  const foreign = await tokenRequest(engine.url, { ...exchange, client_id: b.clientId, client_secret: b.clientSecret });
  assert.equal(oauthError(foreign, 400, 'invalid_grant').error_description, 'Unknown authorization code.');
  const own = await tokenRequest(engine.url, { ...exchange, client_id: a.clientId, client_secret: a.clientSecret });
  assert.equal(own.status, 200, `another client's attempt left the code unspent: ${JSON.stringify(own.body)}`);
});

test('the consent form answers 303 See Other (approve, deny, or an error sent back), so the browser follows with a GET', async () => {
  const sb = await createSandbox(engine.url);
  const decide = (params: Record<string, string>, decision: string) =>
    checkedFetch(`${engine.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ ...params, decision }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  const good = authorizeParams(sb, pkcePair().challenge);
  const bad = authorizeParams(sb, pkcePair().challenge, { code_challenge_method: 'plain' });
  for (const [params, decision, answer] of [
    [good, 'approve', 'code'],
    [good, 'deny', 'error'],
    [bad, 'approve', 'error'],
  ] as const) {
    const res = await decide(params, decision);
    assert.equal(res.status, 303, `${decision} ${answer}`);
    assert.ok(new URL(res.headers.get('location')!).searchParams.get(answer), `${decision}: ${answer} in the Location`);
  }
});

test('an unregistered non-loopback redirect_uri or unknown client shows an error page, never a redirect', async () => {
  const sb = await createSandbox(engine.url);
  const { challenge } = pkcePair();
  for (const params of [
    authorizeParams(sb, challenge, { redirect_uri: 'https://evil.example/cb' }),
    authorizeParams(sb, challenge, { redirect_uri: 'http://127.0.0.1.evil.example/cb' }),
    authorizeParams(sb, challenge, { client_id: 'cli_unknown' }),
  ]) {
    const res = await checkedFetch(`${engine.url}/oauth/authorize?${new URLSearchParams(params)}`, {
      redirect: 'manual',
    });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('location'), null);
    assert.match(await res.text(), /cannot proceed/);
    const post = await checkedFetch(`${engine.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ ...params, decision: 'approve' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(post.status, 400);
    assert.equal(post.headers.get('location'), null);
  }
});

test('bad authorize parameters with a good redirect_uri go back to the client as RFC errors', async () => {
  const sb = await createSandbox(engine.url);
  const cases: [Record<string, string>, string][] = [
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ code_challenge: 'short' }, 'invalid_request'],
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
    [{ scope: 'orders:read root' }, 'invalid_scope'],
  ];
  for (const [override, error] of cases) {
    const res = await checkedFetch(
      `${engine.url}/oauth/authorize?${new URLSearchParams(authorizeParams(sb, pkcePair().challenge, override))}`,
      { redirect: 'manual' },
    );
    assert.equal(res.status, 302, JSON.stringify(override));
    const location = new URL(res.headers.get('location')!);
    assert.equal(`${location.origin}${location.pathname}`, redirectUri);
    assert.equal(location.searchParams.get('error'), error);
    assert.equal(location.searchParams.get('state'), 'st<&>"1');
  }
});
