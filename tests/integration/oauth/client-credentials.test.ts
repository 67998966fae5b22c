import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { oauthError, tokenRequest } from '../../helpers/oauth.ts';

const engine = useEngine();

function assertTokenResponse(res: { status: number; headers: Headers; body: any }): void {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.body.token_type, 'Bearer');
  assert.equal(res.body.expires_in, 3600);
  assert.match(res.body.access_token, /^sat_/);
  assert.equal(res.body.refresh_token, undefined, 'no refresh token for client_credentials (RFC 6749 §4.4.3)');
}

test('client_credentials with the secret in a form body, in HTTP Basic, and in a JSON body', async () => {
  const sb = await createSandbox(engine.url);
  const creds = { client_id: sb.clientId, client_secret: sb.clientSecret };
  const form = await tokenRequest(engine.url, { grant_type: 'client_credentials', ...creds });
  const basic = await tokenRequest(
    engine.url,
    { grant_type: 'client_credentials' },
    { basic: { clientId: sb.clientId, clientSecret: sb.clientSecret } },
  );
  const json = await tokenRequest(engine.url, { grant_type: 'client_credentials', ...creds }, { json: true });
  for (const res of [form, basic, json]) {
    assertTokenResponse(res);
    const me = await call(engine.url, '/api/v1/sandbox', { token: res.body.access_token });
    assert.equal(me.body.id, sb.id);
  }
  assert.equal(form.body.scope.split(' ').length, 22, 'every scope when none is asked for');
});

test('a wrong or missing secret is 401 invalid_client with WWW-Authenticate: Basic (RFC 6749 §5.2)', async () => {
  const sb = await createSandbox(engine.url);
  const viaBasic = await tokenRequest(
    engine.url,
    { grant_type: 'client_credentials' },
    { basic: { clientId: sb.clientId, clientSecret: 'cs_wrong' } },
  );
  oauthError(viaBasic, 401, 'invalid_client');
  assert.match(viaBasic.headers.get('www-authenticate') ?? '', /^Basic /);
  const viaForm = await tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: 'cs_wrong',
  });
  oauthError(viaForm, 401, 'invalid_client');
  assert.match(viaForm.headers.get('www-authenticate') ?? '', /^Basic realm="sandbay"$/);
  oauthError(
    await tokenRequest(engine.url, { grant_type: 'client_credentials', client_id: 'cli_unknown', client_secret: 'x' }),
    401,
    'invalid_client',
  );
  oauthError(
    await tokenRequest(engine.url, { grant_type: 'client_credentials', client_id: sb.clientId }),
    401,
    'invalid_client',
  );
  oauthError(await tokenRequest(engine.url, { grant_type: 'client_credentials' }), 401, 'invalid_client');
});

test('unsupported_grant_type, a missing grant_type, and secrets sent twice', async () => {
  const sb = await createSandbox(engine.url);
  const creds = { client_id: sb.clientId, client_secret: sb.clientSecret };
  oauthError(
    await tokenRequest(engine.url, { grant_type: 'password', ...creds, username: 'a', password: 'b' }),
    400,
    'unsupported_grant_type',
  );
  oauthError(await tokenRequest(engine.url, { ...creds }), 400, 'invalid_request');
  oauthError(
    await tokenRequest(
      engine.url,
      { grant_type: 'client_credentials', client_secret: sb.clientSecret },
      { basic: { clientId: sb.clientId, clientSecret: sb.clientSecret } },
    ),
    400,
    'invalid_request',
  );
});

test('scope: a subset is granted as asked; unknown scopes are invalid_scope', async () => {
  const sb = await createSandbox(engine.url);
  const creds = { client_id: sb.clientId, client_secret: sb.clientSecret };
  const subset = await tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    ...creds,
    scope: 'orders:read webhooks:write',
  });
  assert.equal(subset.status, 200);
  assert.equal(subset.body.scope, 'orders:read webhooks:write');
  assert.equal((await call(engine.url, '/api/v1/orders/ord_0001', { token: subset.body.access_token })).status, 200);
  problem(await call(engine.url, '/api/v1/sandbox', { token: subset.body.access_token }), 403, 'insufficient_scope');
  oauthError(
    await tokenRequest(engine.url, { grant_type: 'client_credentials', ...creds, scope: 'orders:read admin:all' }),
    400,
    'invalid_scope',
  );
  oauthError(
    await tokenRequest(engine.url, { grant_type: 'client_credentials', ...creds, scope: 'orders' }),
    400,
    'invalid_scope',
  );
});

test('expires_in (sandbox-only) mints a short-lived token; past it the API says token_expired', async () => {
  const sb = await createSandbox(engine.url);
  const res = await tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
    expires_in: '1',
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.expires_in, 1);
  assert.equal(
    (await call(engine.url, '/api/v1/sandbox', { token: res.body.access_token })).status,
    200,
    'valid at first',
  );
  await new Promise((r) => setTimeout(r, 1100));
  const expired = await call(engine.url, '/api/v1/sandbox', { token: res.body.access_token });
  problem(expired, 401, 'token_expired');
  assert.equal(expired.headers.get('www-authenticate'), 'Bearer error="invalid_token"');

  for (const bad of ['0', '3601', '1.5', 'soon']) {
    oauthError(
      await tokenRequest(engine.url, {
        grant_type: 'client_credentials',
        client_id: sb.clientId,
        client_secret: sb.clientSecret,
        expires_in: bad,
      }),
      400,
      'invalid_request',
    );
  }
});
