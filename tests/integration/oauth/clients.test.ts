import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { oauthError, registerClient, tokenRequest } from '../../helpers/oauth.ts';

const engine = useEngine();
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

test('client secrets are stored as hashes: nothing in the database holds the secret, and the API shows only its hint after creation', async () => {
  const sb = await createSandbox(engine.url);
  const app = await registerClient(sb, { name: 'backend' });
  const rows = await engine.running.services.db.query<Record<string, unknown>>(
    'select * from oauth_clients where tenant_id = $1',
    [sb.id],
  );
  const dump = JSON.stringify(rows);
  for (const secret of [sb.clientSecret, app.clientSecret]) {
    assert.ok(!dump.includes(secret), 'no column holds the secret');
    assert.ok(
      rows.some((r) => r.secret_hash === sha256(secret)),
      'its SHA-256 does',
    );
  }
  const credentials = await sb.api('/api/v1/sandbox/credentials');
  assert.deepEqual(credentials.body, {
    clientId: sb.clientId,
    clientSecretHint: `cs_…${sb.clientSecret.slice(-4)}`,
    webhookTestSecret: sb.webhookTestSecret,
  });
});

test('rotating a secret shows the new one once; the old one stops working at once, tokens already issued stay valid', async () => {
  const sb = await createSandbox(engine.url);
  const rotated = await sb.api(`/api/v1/sandbox/oauth-clients/${sb.clientId}/rotate-secret`, { method: 'POST' });
  assert.equal(rotated.status, 200);
  assert.equal(rotated.body.sandboxClient, true);
  assert.match(rotated.body.clientSecret, /^cs_\w{40}$/);
  assert.notEqual(rotated.body.clientSecret, sb.clientSecret);
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'client_credentials',
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
    }),
    401,
    'invalid_client',
  );
  assert.equal(
    (
      await tokenRequest(engine.url, {
        grant_type: 'client_credentials',
        client_id: sb.clientId,
        client_secret: rotated.body.clientSecret,
      })
    ).status,
    200,
  );
  assert.equal((await sb.api('/api/v1/sandbox')).status, 200);
  assert.equal((await sb.api('/api/v1/sandbox/credentials')).body.clientSecretHint, rotated.body.clientSecretHint);

  const app = await registerClient(sb, { public: true });
  problem(
    await sb.api(`/api/v1/sandbox/oauth-clients/${app.clientId}/rotate-secret`, { method: 'POST' }),
    409,
    'public_client',
  );
  const other = await createSandbox(engine.url);
  problem(
    await other.api(`/api/v1/sandbox/oauth-clients/${sb.clientId}/rotate-secret`, { method: 'POST' }),
    404,
    'not_found',
  );
});

test("POST /api/v1/sandbox/tokens mints a token of the sandbox's own client with the caller's scopes or fewer", async () => {
  const sb = await createSandbox(engine.url);
  const minted = await sb.api('/api/v1/sandbox/tokens', {
    body: { scope: 'orders:read sandbox:write', expiresIn: 60 },
  });
  assert.equal(minted.status, 201);
  assert.equal(minted.body.tokenType, 'Bearer');
  assert.equal(minted.body.expiresIn, 60);
  assert.equal(minted.body.scope, 'orders:read sandbox:write');
  assert.equal((await call(engine.url, '/api/v1/orders?limit=1', { token: minted.body.accessToken })).status, 200);
  problem(
    await call(engine.url, '/api/v1/webhooks/deliveries', { token: minted.body.accessToken }),
    403,
    'insufficient_scope',
  );
  const beyond = problem(
    await call(engine.url, '/api/v1/sandbox/tokens', {
      token: minted.body.accessToken,
      body: { scope: 'webhooks:read' },
    }),
    422,
    'scope_not_allowed',
  );
  assert.deepEqual(
    beyond.errors.map((e: any) => e.path),
    ['/scope'],
  );
  const narrower = await call(engine.url, '/api/v1/sandbox/tokens', { token: minted.body.accessToken, body: {} });
  assert.equal(narrower.body.scope, 'orders:read sandbox:read sandbox:write', 'by default, what the caller has');
  problem(await sb.api('/api/v1/sandbox/tokens', { body: { scope: 'root' } }), 422, 'scope_not_allowed');
});

test("a registered client can be deleted, with every token it was issued; the sandbox's own cannot", async () => {
  const sb = await createSandbox(engine.url);
  const app = await registerClient(sb);
  const token = await tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    client_id: app.clientId,
    client_secret: app.clientSecret,
  });
  assert.equal(token.status, 200);
  assert.equal((await sb.api(`/api/v1/sandbox/oauth-clients/${app.clientId}`, { method: 'DELETE' })).status, 204);
  problem(await call(engine.url, '/api/v1/sandbox', { token: token.body.access_token }), 401, 'invalid_token');
  oauthError(
    await tokenRequest(engine.url, {
      grant_type: 'client_credentials',
      client_id: app.clientId,
      client_secret: app.clientSecret,
    }),
    401,
    'invalid_client',
  );
  problem(await sb.api(`/api/v1/sandbox/oauth-clients/${sb.clientId}`, { method: 'DELETE' }), 409, 'sandbox_client');
  const bad = problem(
    await sb.api('/api/v1/sandbox/oauth-clients', { body: { redirectUris: ['https://app.example/cb#frag'] } }),
    422,
    'validation_failed',
  );
  assert.deepEqual(
    bad.errors.map((e: any) => e.path),
    ['/redirectUris/0'],
  );
});
