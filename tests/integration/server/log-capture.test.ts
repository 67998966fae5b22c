import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Logger } from '../../../src/server/log.ts';
import { call, createSandbox, useEngine } from '../../helpers/engine.ts';
import { rawRequest } from '../../helpers/http.ts';
import { authorize, pkcePair, tokenRequest } from '../../helpers/oauth.ts';
import { orderBody } from '../../helpers/orders.ts';
import { registerEndpoint } from '../../helpers/webhooks.ts';

const lines: string[] = [];
const capture: Logger = { info: (l) => lines.push(l), warn: (l) => lines.push(l), error: (l) => lines.push(l) };
const engine = useEngine({ logger: capture, logRequests: true });

test('a full run logs requests but never a secret, token, code or the admin key', async () => {
  const secrets: string[] = [engine.running.adminKey!];
  const keep = (...values: (string | undefined)[]) => secrets.push(...values.filter((v): v is string => Boolean(v)));

  const sb = await createSandbox(engine.url, 'logs');
  keep(sb.token, sb.refreshToken, sb.clientSecret, sb.webhookTestSecret);
  const basic = await tokenRequest(
    engine.url,
    { grant_type: 'client_credentials' },
    { basic: { clientId: sb.clientId, clientSecret: sb.clientSecret } },
  );
  const form = await tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
    expires_in: '60',
  });
  keep(basic.body.access_token, form.body.access_token);
  const refreshed = await tokenRequest(engine.url, {
    grant_type: 'refresh_token',
    refresh_token: sb.refreshToken,
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  });
  keep(refreshed.body.access_token, refreshed.body.refresh_token);
  await tokenRequest(engine.url, {
    grant_type: 'refresh_token',
    refresh_token: sb.refreshToken,
    client_id: sb.clientId,
  }); // reuse: family revoked

  const { verifier, challenge } = pkcePair();
  const redirectUri = 'http://127.0.0.1:9/cb';
  const params = {
    response_type: 'code',
    client_id: sb.clientId,
    redirect_uri: redirectUri,
    state: 'state-secret-xyz',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const code = (await authorize(engine.url, params)).searchParams.get('code')!;
  const exchanged = await tokenRequest(engine.url, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: sb.clientId,
  });
  keep(code, verifier, challenge, 'state-secret-xyz', exchanged.body.access_token, exchanged.body.refresh_token);
  await tokenRequest(engine.url, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: sb.clientId,
  }); // reused code
  await tokenRequest(engine.url, {
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: 'cs_wrongButSecretLooking1234',
  });
  keep('cs_wrongButSecretLooking1234');

  const token = exchanged.body.access_token;
  const fresh = await createSandbox(engine.url);
  keep(fresh.token, fresh.refreshToken, fresh.clientSecret, fresh.webhookTestSecret);
  const order = await fresh.api('/api/v1/orders', {
    body: orderBody(),
    headers: { 'idempotency-key': 'idem-key-secretish' },
  });
  await fresh.api(`/api/v1/orders/${order.body.id}`);
  const page = await fresh.api('/api/v1/orders?limit=2');
  keep(page.body.nextCursor);
  await fresh.api(`/api/v1/orders?limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`);
  await fresh.api(`/api/v1/orders/${order.body.id}/cancel`, { method: 'POST' });
  await fresh.api('/api/v1/orders', { body: `{"customerId":"${fresh.token}"` });
  await fresh.api('/api/v1/orders', { body: { customerId: fresh.clientSecret, items: [], shippingAddress: {} } });
  await call(engine.url, '/api/v1/orders', { token: 'sat_notARealTokenButLooksLikeOne' });
  await call(engine.url, '/api/v1/orders/ord_0001', { token });
  keep('sat_notARealTokenButLooksLikeOne');

  const endpoint = await registerEndpoint(fresh, 'http://127.0.0.1:9/hook', ['order.placed']);
  const rotated = await fresh.api(`/api/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`, { method: 'POST' });
  keep(endpoint.secret, rotated.body?.secret);
  await fresh.api('/api/v1/orders', { body: orderBody() }); // a delivery to a dead receiver
  await fresh.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: 'http://127.0.0.1:9/test' } });
  await fresh.api('/api/v1/sandbox/clock/advance', { body: { seconds: 7200 } });

  const stream = new AbortController();
  const sse = await fetch(`${engine.url}/api/v1/events/stream`, {
    headers: { authorization: `Bearer ${fresh.token}` },
    signal: stream.signal,
  });
  await sse.body!.getReader().read();
  stream.abort();

  const ui = await rawRequest(engine.url, `/?key=${engine.running.adminKey}`);
  await rawRequest(engine.url, `/api/v1/sandbox?sandbox=${fresh.id}`, {
    headers: { cookie: ui.headers['set-cookie']![0].split(';')[0] },
  });
  await call(engine.url, '/api/v1/sandboxes', { token: engine.running.adminKey });
  const reset = await fresh.api('/api/v1/sandbox/reset', { body: { scope: 'all' } });
  keep(reset.body.credentials.accessToken, reset.body.credentials.refreshToken, reset.body.credentials.clientSecret);
  assert.equal(
    (await call(engine.url, '/api/v1/sandbox', { method: 'DELETE', token: reset.body.credentials.accessToken })).status,
    204,
  );

  assert.ok(
    lines.some((l) => /^POST \/oauth\/token 200 /.test(l)),
    'requests were logged',
  );
  assert.ok(
    lines.some((l) => /^GET \/ 200 /.test(l)),
    'the ?key= page load was logged, without its query',
  );
  assert.ok(
    lines.some((l) => /^GET \/api\/v1\/events\/stream 200 /.test(l)),
    'a stream is logged with the status it sent',
  );
  assert.ok(lines.length >= 30, String(lines.length));
  const leaks = lines.flatMap((line) =>
    secrets.filter((s) => line.includes(s)).map((s) => `${s.slice(0, 6)}… in: ${line.slice(0, 120)}`),
  );
  assert.deepEqual(leaks, []);
});
