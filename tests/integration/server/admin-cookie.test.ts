import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { jsonOf, rawRequest } from '../../helpers/http.ts';

const engine = useEngine();

test('opening /?key=<adminKey> sets the HttpOnly SameSite=Strict cookie named with the port', async () => {
  const { port } = engine.running;
  const adminKey = engine.running.adminKey!;
  const res = await rawRequest(engine.url, `/?key=${adminKey}`);
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /^text\/html/);
  const [cookie] = res.headers['set-cookie'] ?? [];
  assert.ok(cookie, 'a cookie is set');
  assert.ok(cookie.startsWith(`sandbay_admin_${port}=${adminKey};`), cookie.replace(adminKey, '<key>'));
  assert.match(cookie, /;\s*httponly/i);
  assert.match(cookie, /;\s*samesite=strict/i);
  assert.match(cookie, /;\s*path=\//i);
  assert.equal(res.headers['referrer-policy'], 'no-referrer', 'the key in the URL never leaks through Referer');
  assert.equal(engine.running.readyUrl, `${engine.url}/?key=${adminKey}`);
});

test('a wrong key sets no cookie; deep links serve the app without one', async () => {
  assert.equal((await rawRequest(engine.url, '/?key=sbk_wrong')).headers['set-cookie'], undefined);
  const deep = await rawRequest(engine.url, '/sandboxes/sbx_x/deliveries/dlv_y');
  assert.equal(deep.status, 200);
  assert.match(String(deep.headers['content-type']), /^text\/html/);
  assert.equal(deep.headers['set-cookie'], undefined);
});

test('the cookie then authenticates an API call, with the sandbox from ?sandbox=', async () => {
  const sb = await createSandbox(engine.url);
  const setCookie = (await rawRequest(engine.url, `/?key=${engine.running.adminKey}`)).headers['set-cookie']![0];
  const cookie = setCookie.split(';')[0];
  const me = await rawRequest(engine.url, `/api/v1/sandbox?sandbox=${sb.id}`, { headers: { cookie } });
  assert.equal(me.status, 200);
  assert.equal(jsonOf(me).id, sb.id);
  const list = await rawRequest(engine.url, '/api/v1/sandboxes', { headers: { cookie } });
  assert.equal(list.status, 200, 'admin-only routes too');
  const orders = await rawRequest(engine.url, '/api/v1/orders?limit=1', {
    headers: { cookie, 'sandbay-sandbox': sb.id },
  });
  assert.equal(orders.status, 200, 'or from the header');

  const none = await rawRequest(engine.url, '/api/v1/sandbox', { headers: { cookie } });
  assert.equal(jsonOf(none).code, 'sandbox_required');
  const otherPort = await rawRequest(engine.url, `/api/v1/sandbox?sandbox=${sb.id}`, {
    headers: { cookie: `sandbay_admin_1=${engine.running.adminKey}` },
  });
  assert.equal(otherPort.status, 401, "another instance's cookie name does not count");
  const forged = await rawRequest(engine.url, `/api/v1/sandbox?sandbox=${sb.id}`, {
    headers: { cookie: `sandbay_admin_${engine.running.port}=sbk_guess` },
  });
  assert.equal(forged.status, 401);
});
