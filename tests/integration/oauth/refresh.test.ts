import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { oauthError, tokenRequest } from '../../helpers/oauth.ts';

const engine = useEngine();

test('refresh tokens rotate: the new one works, the old one is invalid_grant and revokes its whole family', async () => {
  const sb = await createSandbox(engine.url);
  const refresh = (token: string) =>
    tokenRequest(engine.url, {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
    });

  const second = await refresh(sb.refreshToken);
  assert.equal(second.status, 200, JSON.stringify(second.body));
  assert.equal(second.headers.get('cache-control'), 'no-store');
  assert.match(second.body.refresh_token, /^srt_/);
  assert.notEqual(second.body.refresh_token, sb.refreshToken);
  assert.equal(second.body.scope.split(' ').length, 22, 'the family keeps its scopes');

  const third = await refresh(second.body.refresh_token);
  assert.equal(third.status, 200, 'the rotated refresh token works');
  const liveAccess = third.body.access_token;
  assert.equal((await call(engine.url, '/api/v1/sandbox', { token: liveAccess })).status, 200);

  // Presenting a used refresh token is theft evidence: the family goes, including tokens issued after it.
  oauthError(await refresh(sb.refreshToken), 400, 'invalid_grant');
  problem(await call(engine.url, '/api/v1/sandbox', { token: liveAccess }), 401, 'invalid_token');
  problem(await call(engine.url, '/api/v1/sandbox', { token: sb.token }), 401, 'invalid_token');
  oauthError(await refresh(third.body.refresh_token), 400, 'invalid_grant');

  const fresh = await tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  });
  assert.equal(fresh.status, 200, 'the client itself still works');
});

test('a refresh may narrow the scope but never widen it', async () => {
  const sb = await createSandbox(engine.url);
  const narrowed = await tokenRequest(engine.url, {
    grant_type: 'refresh_token',
    refresh_token: sb.refreshToken,
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
    scope: 'orders:read',
  });
  assert.equal(narrowed.status, 200, JSON.stringify(narrowed.body));
  assert.equal(narrowed.body.scope, 'orders:read');
  const wider = await tokenRequest(engine.url, {
    grant_type: 'refresh_token',
    refresh_token: narrowed.body.refresh_token,
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
    scope: 'orders:read orders:write',
  });
  oauthError(wider, 400, 'invalid_scope');
});

test("refresh errors: unknown token, another client's token, missing token", async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'refresh_token',
      refresh_token: 'srt_nope',
      client_id: a.clientId,
      client_secret: a.clientSecret,
    }),
    400,
    'invalid_grant',
  );
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'refresh_token',
      refresh_token: a.refreshToken,
      client_id: b.clientId,
      client_secret: b.clientSecret,
    }),
    400,
    'invalid_grant',
  );
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'refresh_token',
      client_id: a.clientId,
      client_secret: a.clientSecret,
    }),
    400,
    'invalid_request',
  );
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'refresh_token',
      refresh_token: a.refreshToken,
      client_id: a.clientId,
      client_secret: 'cs_bad',
    }),
    401,
    'invalid_client',
  );
  // Another client (authenticated as itself) presenting A's refresh token spends nothing of A's: a client
  // must not be able to revoke another's grant by replaying a token it got hold of.
  assert.equal(
    (await call(engine.url, '/api/v1/sandbox', { token: a.token })).status,
    200,
    "A's access token survived B's attempt",
  );
  const own = await tokenRequest(engine.url, {
    grant_type: 'refresh_token',
    refresh_token: a.refreshToken,
    client_id: a.clientId,
    client_secret: a.clientSecret,
  });
  assert.equal(own.status, 200, `A still refreshes with it: ${JSON.stringify(own.body)}`);
});

test('a confidential client refreshes only with its secret: without it 401 invalid_client, and the refresh token is not spent', async () => {
  const sb = await createSandbox(engine.url);
  for (const init of [{ client_id: sb.clientId }, {}] as Record<string, string>[]) {
    const refused = await tokenRequest(engine.url, {
      grant_type: 'refresh_token',
      refresh_token: sb.refreshToken,
      ...init,
    });
    oauthError(refused, 401, 'invalid_client');
    assert.match(refused.headers.get('www-authenticate') ?? '', /^Basic realm=/);
  }
  const basic = await tokenRequest(
    engine.url,
    { grant_type: 'refresh_token', refresh_token: sb.refreshToken },
    { basic: { clientId: sb.clientId, clientSecret: sb.clientSecret } },
  );
  assert.equal(basic.status, 200, 'client_secret_basic, with the refresh token untouched by the refusals');
  assert.equal(
    (await call(engine.url, '/api/v1/sandbox', { token: sb.token })).status,
    200,
    'nothing was revoked by them either',
  );
});
