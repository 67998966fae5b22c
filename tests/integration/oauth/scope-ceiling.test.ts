// Scopes never grow (SPEC §3): a token or client creates only tokens and clients with a subset of its
// scopes; a client carries its allowed scopes (default: its creator's) and every grant is capped by
// them. The escalation of issue 28 (a sandbox:write token registering a client, then client_credentials
// returning all 22 scopes) is refused, as are the other ways to take more: a client's new secret and a
// reset's fresh credentials.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { authorize, oauthError, pkcePair, registerClient, tokenRequest } from '../../helpers/oauth.ts';
import { allScopes } from '../../../src/shared/scopes.ts';

const engine = useEngine();
const redirectUri = 'http://127.0.0.1:53682/callback';

/** A token of the sandbox with only `scope`, and an `api` that uses it. */
async function narrowed(sb: TestSandbox, scope: string) {
  const minted = await sb.api('/api/v1/sandbox/tokens', { body: { scope } });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  const token = minted.body.accessToken as string;
  return (path: string, init: { method?: string; body?: unknown } = {}) => call(engine.url, path, { ...init, token });
}

const clientCredentials = (client: { clientId: string; clientSecret: string }, scope?: string) =>
  tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    ...(scope ? { scope } : {}),
  });

test('a sandbox:write token registers a client with its own scopes, and client_credentials gives no more', async () => {
  const sb = await createSandbox(engine.url);
  const api = await narrowed(sb, 'sandbox:write');
  const client = await api('/api/v1/sandbox/oauth-clients', { body: { name: 'escalation' } });
  assert.equal(client.status, 201, JSON.stringify(client.body));
  assert.equal(client.body.scope, 'sandbox:read sandbox:write', "the creator's scopes by default");
  const granted = await clientCredentials(client.body);
  assert.equal(granted.status, 200, JSON.stringify(granted.body));
  assert.equal(granted.body.scope, 'sandbox:read sandbox:write');
  oauthError(await clientCredentials(client.body, 'orders:write'), 400, 'invalid_scope');
  const orders = await call(engine.url, '/api/v1/orders', { token: granted.body.access_token });
  problem(orders, 403, 'insufficient_scope');
});

test('a client asks for a subset of its creator’s scopes; more is 422 scope_not_allowed, and the listing shows each client’s', async () => {
  const sb = await createSandbox(engine.url);
  const api = await narrowed(sb, 'orders:write sandbox:write');
  const beyond = await api('/api/v1/sandbox/oauth-clients', { body: { scope: 'orders:read payments:write' } });
  assert.equal(problem(beyond, 422, 'scope_not_allowed').errors[0].path, '/scope');
  const reader = await api('/api/v1/sandbox/oauth-clients', { body: { scope: 'orders:read' } });
  assert.equal(reader.status, 201);
  assert.equal(reader.body.scope, 'orders:read');
  assert.equal((await clientCredentials(reader.body)).body.scope, 'orders:read');
  const listed = await sb.api('/api/v1/sandbox/oauth-clients');
  const scopes = Object.fromEntries(listed.body.data.map((c: any) => [c.clientId, c.scope]));
  assert.equal(scopes[sb.clientId], allScopes.join(' '), "the sandbox's own client holds every scope");
  assert.equal(scopes[reader.body.clientId], 'orders:read');
  // A full token's client keeps every scope, as before.
  assert.equal((await registerClient(sb)).scope, allScopes.join(' '));
});

test("a narrowed token can take neither a client's new secret nor a reset's fresh credentials (403 insufficient_scope)", async () => {
  const sb = await createSandbox(engine.url);
  const api = await narrowed(sb, 'sandbox:write');
  const rotate = await api(`/api/v1/sandbox/oauth-clients/${sb.clientId}/rotate-secret`, { method: 'POST' });
  problem(rotate, 403, 'insufficient_scope');
  assert.match(rotate.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope=".*orders:write/);
  problem(await api('/api/v1/sandbox/reset', { body: { scope: 'all' } }), 403, 'insufficient_scope');
  assert.equal((await clientCredentials(sb)).status, 200, 'the old secret still works: nothing was rotated');
  // Its own client (its scopes) it may rotate; a plain reset needs nothing more than sandbox:write.
  const own = await api('/api/v1/sandbox/oauth-clients', { body: {} });
  assert.equal(
    (await api(`/api/v1/sandbox/oauth-clients/${own.body.clientId}/rotate-secret`, { method: 'POST' })).status,
    200,
  );
  assert.equal((await api('/api/v1/sandbox/reset', { body: {} })).status, 200);
});

test('authorization_code and refresh_token are capped by the client: consent and refresh give nothing beyond its scopes', async () => {
  const sb = await createSandbox(engine.url);
  const app = await registerClient(sb, { public: true, scope: 'orders:read customers:read' });
  assert.equal(app.scope, 'orders:read customers:read');
  const params = (scope: string, challenge: string) => ({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope,
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const refused = await fetch(
    `${engine.url}/oauth/authorize?${new URLSearchParams(params('orders:write', pkcePair().challenge))}`,
    { redirect: 'manual' },
  );
  assert.equal(new URL(refused.headers.get('location')!).searchParams.get('error'), 'invalid_scope');
  const { verifier, challenge } = pkcePair();
  const location = await authorize(engine.url, params('orders:read customers:read', challenge));
  const tokens = await tokenRequest(engine.url, {
    grant_type: 'authorization_code',
    client_id: app.clientId,
    code: location.searchParams.get('code')!,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  assert.equal(tokens.body.scope, 'orders:read customers:read');
  const refresh = (refreshToken: string, scope: string) =>
    tokenRequest(engine.url, {
      grant_type: 'refresh_token',
      client_id: app.clientId,
      refresh_token: refreshToken,
      scope,
    });
  const narrower = await refresh(tokens.body.refresh_token, 'orders:read');
  assert.equal(narrower.status, 200, JSON.stringify(narrower.body));
  assert.equal(narrower.body.scope, 'orders:read');
  oauthError(await refresh(narrower.body.refresh_token, 'orders:write'), 400, 'invalid_scope');
});
