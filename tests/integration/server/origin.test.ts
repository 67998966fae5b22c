import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { jsonOf, rawRequest, type RawResponse } from '../../helpers/http.ts';

const engine = useEngine();
const devApp = 'http://localhost:3000';

const refused = (res: RawResponse, what: string) => {
  assert.equal(res.status, 403, `${what}: ${res.body.slice(0, 120)}`);
  assert.equal(jsonOf(res).code, 'origin_not_allowed', what);
};

test('a loopback origin (a web app on localhost:3000) may call the bearer-token API with CORS', async () => {
  const sb = await createSandbox(engine.url);
  for (const origin of [devApp, 'http://127.0.0.1:5173', 'http://[::1]:8080', 'http://localhost']) {
    const res = await rawRequest(engine.url, '/api/v1/orders/ord_0001', {
      headers: { origin, authorization: `Bearer ${sb.token}` },
    });
    assert.equal(res.status, 200, origin);
    assert.equal(res.headers['access-control-allow-origin'], origin);
    assert.match(String(res.headers.vary), /Origin/);
    assert.match(
      String(res.headers['access-control-expose-headers']),
      /WWW-Authenticate.*Idempotent-Replayed, Idempotent-Omitted/,
    );
  }
  const denied = await rawRequest(engine.url, '/api/v1/orders', { headers: { origin: devApp } });
  assert.equal(denied.status, 401, 'errors carry CORS headers too, so the app can read them');
  assert.equal(denied.headers['access-control-allow-origin'], devApp);
});

test('preflight OPTIONS from a loopback origin is answered for the API and /oauth/token', async () => {
  for (const path of ['/api/v1/orders', '/oauth/token']) {
    const res = await rawRequest(engine.url, path, {
      method: 'OPTIONS',
      headers: {
        origin: devApp,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });
    assert.equal(res.status, 204, path);
    assert.equal(res.headers['access-control-allow-origin'], devApp);
    assert.match(String(res.headers['access-control-allow-methods']), /POST/);
    for (const h of ['Authorization', 'Content-Type', 'Idempotency-Key'])
      assert.match(String(res.headers['access-control-allow-headers']), new RegExp(h));
  }
});

test('/oauth/token answers a loopback origin with CORS', async () => {
  const sb = await createSandbox(engine.url);
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  }).toString();
  const res = await rawRequest(engine.url, '/oauth/token', {
    method: 'POST',
    body,
    headers: { origin: devApp, 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers['access-control-allow-origin'], devApp);
  assert.ok(jsonOf(res).access_token);
});

test('any other origin is refused, preflight included', async () => {
  const sb = await createSandbox(engine.url);
  for (const origin of [
    'https://evil.example',
    'null',
    'http://localhost.evil.example',
    'https://localhost:3000',
    'file://',
  ]) {
    refused(
      await rawRequest(engine.url, '/api/v1/orders/ord_0001', {
        headers: { origin, authorization: `Bearer ${sb.token}` },
      }),
      origin,
    );
    const preflight = await rawRequest(engine.url, '/api/v1/orders', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 403, origin);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  }
  refused(
    await rawRequest(engine.url, '/oauth/token', { method: 'POST', headers: { origin: 'https://evil.example' } }),
    '/oauth/token',
  );
});

test("the dashboard's own origin may do everything", async () => {
  const own = engine.url;
  const created = await rawRequest(engine.url, '/api/v1/sandboxes', { method: 'POST', headers: { origin: own } });
  assert.equal(created.status, 201);
  const { sandbox } = jsonOf(created);
  const admin = await rawRequest(engine.url, '/api/v1/sandbox', {
    headers: { origin: own, authorization: `Bearer ${engine.running.adminKey}`, 'sandbay-sandbox': sandbox.id },
  });
  assert.equal(admin.status, 200);
});

test('the admin key and sandbox creation are refused from a loopback-but-foreign origin', async () => {
  const sb = await createSandbox(engine.url);
  refused(
    await rawRequest(engine.url, '/api/v1/sandboxes', { method: 'POST', headers: { origin: devApp } }),
    'sandbox creation',
  );
  refused(
    await rawRequest(engine.url, '/api/v1/sandbox', {
      headers: { origin: devApp, authorization: `Bearer ${engine.running.adminKey}`, 'sandbay-sandbox': sb.id },
    }),
    'admin key',
  );
  refused(
    await rawRequest(engine.url, '/api/v1/sandboxes', {
      headers: { origin: devApp, authorization: `Bearer ${engine.running.adminKey}` },
    }),
    'admin list',
  );
  const approve = await rawRequest(engine.url, '/oauth/authorize', {
    method: 'POST',
    body: 'decision=approve',
    headers: { origin: devApp, 'content-type': 'application/x-www-form-urlencoded' },
  });
  refused(approve, 'consent approval');
});

test('a cookie-authenticated request is refused when the browser says it is cross-site', async () => {
  const sb = await createSandbox(engine.url);
  const cookie = `sandbay_admin_${engine.running.port}=${engine.running.adminKey}`;
  const path = `/api/v1/sandbox?sandbox=${sb.id}`;
  assert.equal(
    (await rawRequest(engine.url, path, { headers: { cookie, 'sec-fetch-site': 'same-origin' } })).status,
    200,
  );
  for (const site of ['cross-site', 'same-site']) {
    refused(await rawRequest(engine.url, path, { headers: { cookie, 'sec-fetch-site': site } }), site);
  }
  refused(
    await rawRequest(engine.url, '/api/v1/sandboxes', { method: 'POST', headers: { 'sec-fetch-site': 'cross-site' } }),
    'no-origin creation from another site',
  );
});
