import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { asApiResponse as toApi, jsonOf, rawRequest } from '../../helpers/http.ts';
import { operatorKey, signIn } from '../../helpers/session.ts';

// Shared because it is published at a non-loopback URL (a reverse proxy in front of a loopback bind).
const publicUrl = 'https://sandbay.example.com';
const engine = useEngine({ publicUrl, adminKey: operatorKey });
const cookieName = 'sandbay_session_443';

test('GET /api/v1/session says the server is shared and gives its public URL', async () => {
  const res = await call(engine.url, '/api/v1/session');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { shared: true, publicUrl, openSandboxCreation: false, sandbox: null });
  assert.equal(res.headers.get('cache-control'), 'no-store');
});

test("signing in with a sandbox's client id and secret sets an HttpOnly SameSite=Strict cookie carrying a fresh token", async () => {
  const sb = await createSandbox(engine.url, undefined, operatorKey);
  const { res, cookie, setCookie } = await signIn(engine.url, { clientId: sb.clientId, clientSecret: sb.clientSecret });
  assert.equal(res.status, 200, res.body);
  const body = jsonOf(res);
  assert.equal(body.shared, true);
  assert.equal(body.sandbox.id, sb.id);
  assert.ok(body.sandbox.scopes.includes('webhooks:read') && body.sandbox.scopes.includes('sandbox:write'));
  const expiresIn = Date.parse(body.sandbox.expiresAt) - Date.now();
  assert.ok(expiresIn > 3500_000 && expiresIn <= 3600_000, `the token lives 1 h (${expiresIn} ms)`);
  assert.match(cookie, new RegExp(`^${cookieName}=sat_\\w+$`), 'named with the public port');
  assert.notEqual(cookie.split('=')[1], sb.token, 'a token minted for the session');
  assert.match(setCookie, /;\s*httponly/i);
  assert.match(setCookie, /;\s*samesite=strict/i);
  assert.match(setCookie, /;\s*path=\//i);
  assert.match(setCookie, /;\s*expires=/i);
  assert.doesNotMatch(setCookie, /;\s*secure/i, 'not Secure when the browser came over plain http');

  const me = await rawRequest(engine.url, '/api/v1/sandbox', { headers: { cookie } });
  assert.equal(jsonOf(me).id, sb.id, 'the cookie authenticates like a bearer token');
  const state = await rawRequest(engine.url, '/api/v1/session', { headers: { cookie } });
  assert.equal(jsonOf(state).sandbox.id, sb.id);
});

test('an access token signs in too; bad credentials and bad bodies are clear errors', async () => {
  const sb = await createSandbox(engine.url, undefined, operatorKey);
  const { res, cookie } = await signIn(engine.url, { accessToken: sb.token });
  assert.equal(res.status, 200);
  assert.equal(cookie, `${cookieName}=${sb.token}`);

  problem(
    toApi((await signIn(engine.url, { clientId: sb.clientId, clientSecret: 'cs_wrong' })).res),
    401,
    'invalid_client',
  );
  problem(
    toApi((await signIn(engine.url, { clientId: 'cli_nobody', clientSecret: sb.clientSecret })).res),
    401,
    'invalid_client',
  );
  const bogus = (await signIn(engine.url, { accessToken: 'sat_bogus' })).res;
  problem(toApi(bogus), 401, 'invalid_token');
  assert.equal(bogus.headers['set-cookie'], undefined);
  const both = problem(
    toApi((await signIn(engine.url, { accessToken: sb.token, clientId: sb.clientId })).res),
    422,
    'validation_failed',
  );
  assert.deepEqual(
    both.errors.map((e: any) => e.path),
    ['/accessToken'],
  );
  const none = problem(toApi((await signIn(engine.url, {})).res), 422, 'validation_failed');
  assert.deepEqual(none.errors.map((e: any) => e.path).sort(), ['/clientId', '/clientSecret']);
  problem(toApi((await signIn(engine.url, { accessToken: sb.token, password: 'x' })).res), 400, 'unknown_field');
});

test('a session reaches its own sandbox only: Sandbay-Sandbox or ?sandbox= naming another is 403, admin routes refused', async () => {
  const mine = await createSandbox(engine.url, undefined, operatorKey);
  const other = await createSandbox(engine.url, undefined, operatorKey);
  const { cookie } = await signIn(engine.url, { clientId: mine.clientId, clientSecret: mine.clientSecret });
  const viaHeader = await rawRequest(engine.url, '/api/v1/sandbox', {
    headers: { cookie, 'sandbay-sandbox': other.id },
  });
  assert.equal(viaHeader.status, 403);
  assert.equal(jsonOf(viaHeader).code, 'sandbox_mismatch');
  const viaQuery = await rawRequest(engine.url, `/api/v1/sandbox?sandbox=${other.id}`, { headers: { cookie } });
  assert.equal(jsonOf(viaQuery).code, 'sandbox_mismatch');
  const own = await rawRequest(engine.url, `/api/v1/sandbox?sandbox=${mine.id}`, {
    headers: { cookie, 'sandbay-sandbox': mine.id },
  });
  assert.equal(jsonOf(own).id, mine.id);
  const list = await rawRequest(engine.url, '/api/v1/sandboxes', { headers: { cookie } });
  assert.equal(list.status, 403);
  assert.equal(jsonOf(list).code, 'admin_key_required');
});

test('the session cookie is a dashboard credential: other origins (even same-site localhost apps) cannot use it', async () => {
  const sb = await createSandbox(engine.url, undefined, operatorKey);
  const { cookie } = await signIn(engine.url, { accessToken: sb.token });
  for (const origin of ['http://localhost:3000', 'https://evil.example']) {
    const res = await rawRequest(engine.url, '/api/v1/webhooks/deliveries', { headers: { cookie, origin } });
    assert.equal(res.status, 403, origin);
    assert.equal(jsonOf(res).code, 'origin_not_allowed');
    const login = await signIn(engine.url, { accessToken: sb.token }, { origin });
    assert.equal(login.res.status, 403, `signing in from ${origin}`);
    assert.equal(login.cookie, '');
  }
  const sameSite = await rawRequest(engine.url, '/api/v1/webhooks/deliveries', {
    headers: { cookie, 'sec-fetch-site': 'same-site' },
  });
  assert.equal(sameSite.status, 403, 'a same-site <img> or form carries no Origin, but Sec-Fetch-Site gives it away');
  const bearer = await rawRequest(engine.url, '/api/v1/webhooks/deliveries', {
    headers: { cookie, origin: 'http://localhost:3000', authorization: `Bearer ${sb.token}` },
  });
  assert.equal(bearer.status, 200, 'a loopback app calling with its own bearer token is still fine (SPEC §7)');
});

test("through the public URL: its Host and Origin are the app's own, and the cookie is Secure", async () => {
  const sb = await createSandbox(engine.url, undefined, operatorKey);
  const headers = { host: 'sandbay.example.com', origin: publicUrl };
  const { res, setCookie } = await signIn(engine.url, { accessToken: sb.token }, headers);
  assert.equal(res.status, 200, res.body);
  assert.match(setCookie, /;\s*secure/i, 'https at the load balancer: a Secure cookie');
  const evilHost = await rawRequest(engine.url, '/api/v1/session', { headers: { host: 'evil.example' } });
  assert.equal(jsonOf(evilHost).code, 'host_not_allowed');
});

test('sign out clears the cookie', async () => {
  const sb = await createSandbox(engine.url, undefined, operatorKey);
  const { cookie } = await signIn(engine.url, { accessToken: sb.token });
  const out = await rawRequest(engine.url, '/api/v1/session', {
    method: 'DELETE',
    headers: { cookie, origin: new URL(engine.url).origin },
  });
  assert.equal(out.status, 204);
  const [cleared] = out.headers['set-cookie'] ?? [];
  assert.match(cleared, new RegExp(`^${cookieName}=;`));
  assert.match(cleared, /expires=Thu, 01 Jan 1970/i);
});

test('an expired session is 401 token_expired on the API and signed out in GET /api/v1/session', async () => {
  const sb = await createSandbox(engine.url, undefined, operatorKey);
  const short = await call(engine.url, '/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: sb.clientId, client_secret: sb.clientSecret, expires_in: '1' },
  });
  const { cookie, setCookie } = await signIn(engine.url, { accessToken: short.body.access_token });
  assert.ok(
    Date.parse(/expires=([^;]+)/i.exec(setCookie)![1]) <= Date.now() + 2000,
    'the cookie expires with its token',
  );
  await new Promise((r) => setTimeout(r, 1100));
  const res = await rawRequest(engine.url, '/api/v1/sandbox', { headers: { cookie } });
  assert.equal(res.status, 401);
  assert.equal(jsonOf(res).code, 'token_expired');
  assert.equal(jsonOf(await rawRequest(engine.url, '/api/v1/session', { headers: { cookie } })).sandbox, null);
  problem(toApi((await signIn(engine.url, { accessToken: short.body.access_token })).res), 401, 'token_expired');
});
