import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { connect } from 'node:net';
import { test } from 'node:test';
import { useEngine } from '../../helpers/engine.ts';
import { jsonOf, rawRequest } from '../../helpers/http.ts';

const engine = useEngine({ allowHosts: ['host.docker.internal'] });

const nonLoopbackAddress = () =>
  Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

test("binds 127.0.0.1 by default: not reachable on the machine's other addresses", async () => {
  assert.match(engine.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(engine.running.services.baseUrl(), engine.url);
  const other = nonLoopbackAddress();
  if (other) {
    const reached = await new Promise<boolean>((resolve) => {
      const socket = connect(engine.running.port, other);
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    assert.equal(reached, false, `${other}:${engine.running.port} must refuse`);
  }
});

test('a foreign Host is 403 host_not_allowed (DNS rebinding), on the API and the UI alike', async () => {
  for (const host of [
    'evil.example',
    'evil.example:80',
    `127.0.0.1.evil.example:${engine.running.port}`,
    'sandbay.localhost.evil.example',
  ]) {
    for (const path of ['/api/v1/openapi.json', '/', '/oauth/token']) {
      const res = await rawRequest(engine.url, path, { headers: { host } });
      assert.equal(res.status, 403, `${JSON.stringify(host)} ${path} ${res.body.slice(0, 100)}`);
      assert.equal(jsonOf(res).code, 'host_not_allowed');
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    }
  }
});

test('loopback names and --allow-host names are accepted', async () => {
  const port = engine.running.port;
  for (const host of [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `[::1]:${port}`,
    'LOCALHOST',
    `host.docker.internal:${port}`,
  ]) {
    const res = await rawRequest(engine.url, '/api/v1/health', { headers: { host } });
    assert.equal(res.status, 200, host);
  }
});
