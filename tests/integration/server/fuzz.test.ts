import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { rawRequest } from '../../helpers/http.ts';

const engine = useEngine();

/** A small seeded PRNG (mulberry32), so a failing case can be replayed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('garbage paths, methods, headers and bodies never produce a 5xx or a stack trace', async () => {
  const sb = await createSandbox(engine.url);
  const rand = prng(20240601);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const junk = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));

  const paths = [
    '/api/v1/orders',
    '/api/v1/orders/ord_0001',
    '/api/v1/orders/ord_0001/cancel',
    '/api/v1/sandboxes',
    '/api/v1/sandbox',
    '/api/v1/sandbox/reset',
    '/api/v1/orders?limit=',
    '/api/v1/orders?limit=1e400',
    '/api/v1/orders?cursor=%00',
    '/api/v1/orders?limit[]=1',
    '/api/v1/orders?status=placed&status=paid',
    '/api/v1/orders/%ff',
    '/api/v1/orders/' + 'a'.repeat(5000),
    '/api/v1/../../etc/passwd',
    '/oauth/token',
    '/oauth/authorize?client_id[]=x',
    '/oauth/authorize?redirect_uri=javascript:alert(1)',
    '/api/v1/openapi.json?x=%',
    '/%c0%ae%c0%ae/',
    '/api/v1/events?limit=-5',
    '/api/v1/events/%',
    '/api/v1/sandbox/clock/advance',
    '//api//v1//orders',
  ];
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'TRACE'];
  const types = [
    'application/json',
    'application/x-www-form-urlencoded',
    'text/plain',
    'application/json; charset=latin1',
    'application/vnd.api+json',
    '',
    '*/*',
    'application/json;;;',
  ];
  const bodies: (() => Buffer | undefined)[] = [
    () => undefined,
    () => junk(Math.floor(rand() * 200)),
    () =>
      Buffer.from(
        pick([
          'null',
          '1',
          '"x"',
          '[]',
          '{}',
          '{"customerId":[]}',
          '{"items":"all"}',
          '{"items":[null]}',
          '{"__proto__":{"admin":true}}',
          '{"constructor":{"prototype":1}}',
        ]),
      ),
    () =>
      Buffer.from(
        `{"customerId":"cus_0001","items":[{"variantId":"var_0001","quantity":${pick(['1e308', '-0', '1.0000000001', '9007199254740993', 'NaN', '"1"', 'true'])}}],"shippingAddress":{"city":"a","district":"b"}}`,
      ),
    () => Buffer.from('['.repeat(50_000) + ']'.repeat(50_000)),
    () => Buffer.from(`{"a":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_001)}`),
    () => Buffer.from('grant_type=client_credentials&client_id=%zz&scope=' + '%'.repeat(10)),
    () => Buffer.from('\uFEFF{"name":"bom"}'),
  ];
  const auth = [
    undefined,
    `Bearer ${sb.token}`,
    'Bearer',
    'Basic !!!',
    'Basic ' + Buffer.from('a').toString('base64'),
    `Bearer ${engine.running.adminKey}`,
  ];

  const failures: string[] = [];
  for (let i = 0; i < 400; i++) {
    const method = pick(methods);
    const path = pick(paths);
    const headers: Record<string, string> = {};
    const body = method === 'GET' || method === 'HEAD' || method === 'TRACE' ? undefined : pick(bodies)();
    const type = pick(types);
    if (type) headers['content-type'] = type;
    const authorization = pick(auth);
    if (authorization) headers.authorization = authorization;
    if (rand() < 0.3) headers['idempotency-key'] = pick(['k', 'x'.repeat(300), ' ', String(i)]);
    if (rand() < 0.2) headers['sandbay-sandbox'] = pick([sb.id, 'sbx_nope', '', '../']);
    if (rand() < 0.2)
      headers.cookie = pick([
        'sandbay_admin_1=%',
        'a',
        '=;=;',
        `sandbay_admin_${new URL(engine.url).port}=${'x'.repeat(100)}`,
      ]);
    if (rand() < 0.2)
      headers.origin = pick(['null', 'http://localhost:3000', 'http://localhost:abc', 'file://', engine.url]);
    if (rand() < 0.1) headers['last-event-id'] = pick(['-1', 'x', '999999999999']);
    const res = await rawRequest(engine.url, path, { method, headers, body });
    const label = `#${i} ${method} ${path.slice(0, 60)} ${JSON.stringify(headers).slice(0, 200)}`;
    if (res.status >= 500) failures.push(`${label} → ${res.status} ${res.body.slice(0, 200)}`);
    if (/\n\s+at /.test(res.body)) failures.push(`${label} → a stack trace`);
  }
  assert.deepEqual(failures, []);
  assert.equal((await sb.api('/api/v1/sandbox')).status, 200, 'still serving');
});
