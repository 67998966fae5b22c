// Every response that carries a credential says Cache-Control: no-store (SPEC §7, RFC 6749 §5.1): each
// such route answered for real, and the OpenAPI document, where every 2xx answer with a credential-named
// field must declare the header, so a new route that forgets the flag fails here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, useEngine, type ApiResponse } from '../../helpers/engine.ts';
import { tokenRequest } from '../../helpers/oauth.ts';
import { exportBytes, importBytes } from '../../helpers/portable.ts';

const engine = useEngine();

const noStore = (res: ApiResponse, what: string) => {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.headers.get('cache-control'), 'no-store', what);
};

test('each route answering with a credential says Cache-Control: no-store', async () => {
  const created = await call(engine.url, '/api/v1/sandboxes', { method: 'POST' });
  noStore(created, 'POST /api/v1/sandboxes');
  const sb = await createSandbox(engine.url);
  noStore(await sb.api('/api/v1/sandbox/credentials'), 'GET /sandbox/credentials');
  noStore(await sb.api('/api/v1/sandbox/tokens', { body: {} }), 'POST /sandbox/tokens');
  const client = await sb.api('/api/v1/sandbox/oauth-clients', { body: { name: 'app' } });
  noStore(client, 'POST /sandbox/oauth-clients');
  noStore(
    await sb.api(`/api/v1/sandbox/oauth-clients/${client.body.clientId}/rotate-secret`, { method: 'POST' }),
    'rotate-secret (client)',
  );
  const endpoint = await sb.api('/api/v1/webhooks/endpoints', {
    body: { url: 'http://127.0.0.1:9/hook', topics: ['*'] },
  });
  noStore(endpoint, 'POST /webhooks/endpoints');
  const endpointPath = `/api/v1/webhooks/endpoints/${endpoint.body.id}`;
  noStore(await sb.api(`${endpointPath}/rotate-secret`, { method: 'POST' }), 'rotate-secret (endpoint)');
  noStore(await sb.api(`${endpointPath}/secrets`), 'GET …/secrets');
  noStore(
    await tokenRequest(engine.url, {
      grant_type: 'client_credentials',
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
    }),
    'POST /oauth/token',
  );
  const exported = await fetch(`${engine.url}/api/v1/sandbox/export?includeSecrets=true`, {
    headers: { authorization: `Bearer ${sb.token}` },
  });
  await exported.arrayBuffer();
  assert.equal(exported.status, 200);
  assert.equal(exported.headers.get('cache-control'), 'no-store', 'GET /sandbox/export (secrets included)');
  noStore(await importBytes(engine.url, await exportBytes(engine.url, sb)), 'POST /sandboxes/import');
  noStore(await sb.api('/api/v1/sandbox/reset', { body: { scope: 'all' } }), 'POST /sandbox/reset (scope all)');
});

test('an Idempotency-Key replay of a credential answer is no-store too', async () => {
  const sb = await createSandbox(engine.url);
  const send = () =>
    sb.api('/api/v1/webhooks/endpoints', {
      body: { url: 'http://127.0.0.1:9/hook', topics: ['*'] },
      headers: { 'idempotency-key': 'no-store-replay' },
    });
  noStore(await send(), 'first');
  const replay = await send();
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  noStore(replay, 'replay');
});

type Schema = Record<string, any>;

/** Field names that hold a credential in an answer. */
const credentialFields = new Set([
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'clientSecret',
  'secret',
  'webhookTestSecret',
  'invitationToken',
]);

/** Operations whose credential-named field is masked (an endpoint's secret outside create and rotate). */
const masked = new Set([
  'GET /api/v1/webhooks/endpoints',
  'GET /api/v1/webhooks/endpoints/{id}',
  'PATCH /api/v1/webhooks/endpoints/{id}',
  'POST /api/v1/webhooks/endpoints/enable',
]);

/** Whether a JSON schema (following $refs) has a required credential-named property anywhere. */
function holdsCredential(schema: Schema | undefined, components: Record<string, Schema>, seen = new Set()): boolean {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return false;
  seen.add(schema);
  if (typeof schema.$ref === 'string')
    return holdsCredential(components[schema.$ref.split('/').pop()!], components, seen);
  // Required ones only: an optional clientSecret (a client listed, a public client) is never there.
  if ((schema.required ?? []).some((name: string) => credentialFields.has(name))) return true;
  return Object.values(schema).some(
    (v) =>
      v &&
      typeof v === 'object' &&
      (Array.isArray(v) ? v : [v]).some((item) => holdsCredential(item, components, seen)),
  );
}

test('the OpenAPI document: every 2xx answer holding a credential declares Cache-Control: no-store', async () => {
  const doc = (await call(engine.url, '/api/v1/openapi.json')).body;
  const components = doc.components.schemas;
  const flagged: string[] = [];
  const missing: string[] = [];
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (!status.startsWith('2')) continue;
        const schemas = Object.values<any>(response.content ?? {}).map((c) => c.schema);
        const operation = `${method.toUpperCase()} ${path}`;
        if (masked.has(operation) || !schemas.some((schema) => holdsCredential(schema, components))) continue;
        flagged.push(operation);
        if (response.headers?.['Cache-Control']?.schema?.const !== 'no-store') missing.push(operation);
      }
    }
  }
  assert.deepEqual(missing, [], 'answers with a credential and no Cache-Control: no-store');
  // The walk found the credential routes (it is not vacuous).
  for (const route of ['POST /api/v1/sandboxes', 'POST /oauth/token', 'GET /api/v1/webhooks/checks/{checkId}/secrets'])
    assert.ok(flagged.includes(route), `${route} in ${flagged.join(', ')}`);
});
