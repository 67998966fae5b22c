import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { authorize, oauthError, pkcePair, registerClient, tokenRequest } from '../../helpers/oauth.ts';

const engine = useEngine();

/** POST /oauth/revoke as a form, optionally with HTTP Basic client authentication. */
async function revoke(params: Record<string, string>, basic?: { clientId: string; clientSecret: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic)
    headers.authorization = `Basic ${Buffer.from(`${basic.clientId}:${basic.clientSecret}`).toString('base64')}`;
  return call(engine.url, '/oauth/revoke', { body: new URLSearchParams(params).toString(), headers });
}

test('revocation without the client secret is 401 invalid_client and changes nothing (RFC 7009 §2.1)', async () => {
  const sb = await createSandbox(engine.url);
  for (const params of [
    { token: sb.token, client_id: sb.clientId },
    { token: sb.refreshToken, client_id: sb.clientId },
    { token: sb.token },
  ] as Record<string, string>[]) {
    const refused = await revoke(params);
    oauthError(refused, 401, 'invalid_client');
    assert.match(refused.headers.get('www-authenticate') ?? '', /^Basic realm="sandbay"$/);
  }
  oauthError(
    await revoke({ token: sb.token, client_id: sb.clientId, client_secret: 'cs_guess' }),
    401,
    'invalid_client',
  );
  assert.equal(
    (await call(engine.url, '/api/v1/sandbox', { token: sb.token })).status,
    200,
    'the access token still works',
  );
  const refreshed = await tokenRequest(engine.url, {
    grant_type: 'refresh_token',
    refresh_token: sb.refreshToken,
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  });
  assert.equal(refreshed.status, 200, 'so does the refresh token');
});

test("an authenticated client revokes its own tokens (client_secret_basic or _post); another client's tokens are untouched", async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const viaBasic = await revoke({ token: a.token }, { clientId: a.clientId, clientSecret: a.clientSecret });
  assert.equal(viaBasic.status, 200);
  problem(await call(engine.url, '/api/v1/sandbox', { token: a.token }), 401, 'invalid_token');
  assert.equal(
    (await revoke({ token: b.token, client_id: a.clientId, client_secret: a.clientSecret })).status,
    200,
    'the same answer (RFC 7009 §2.2)',
  );
  assert.equal(
    (await call(engine.url, '/api/v1/sandbox', { token: b.token })).status,
    200,
    "b's token is not a's to revoke",
  );
  assert.equal(
    (await revoke({ token: a.refreshToken, client_id: a.clientId, client_secret: a.clientSecret })).status,
    200,
  );
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'refresh_token',
      refresh_token: a.refreshToken,
      client_id: a.clientId,
      client_secret: a.clientSecret,
    }),
    400,
    'invalid_grant',
  );
});

test('a public client revokes its own tokens by naming its client_id', async () => {
  const sb = await createSandbox(engine.url);
  const app = await registerClient(sb, { public: true });
  const { verifier, challenge } = pkcePair();
  const location = await authorize(engine.url, {
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: 'http://127.0.0.1:53682/cb',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'orders:read',
  });
  const tokens = await tokenRequest(engine.url, {
    grant_type: 'authorization_code',
    code: location.searchParams.get('code')!,
    redirect_uri: 'http://127.0.0.1:53682/cb',
    code_verifier: verifier,
    client_id: app.clientId,
  });
  assert.equal(tokens.status, 200);
  assert.equal((await revoke({ token: tokens.body.refresh_token, client_id: app.clientId })).status, 200);
  problem(await call(engine.url, '/api/v1/orders/ord_0001', { token: tokens.body.access_token }), 401, 'invalid_token');
});
