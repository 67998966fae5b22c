// Every operation of the OpenAPI document, fed a plausible request built from its own schema and
// then that request with one field at a time made hostile: never a 5xx, always problem+json. The
// hostile variants of each operation are sent in a seeded order within a time budget (FUZZ_SEED,
// FUZZ_BUDGET_MS: set a large budget to send them all).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import {
  fuzzBudgetMs,
  fuzzSeed,
  operationsOf,
  plausibleBody,
  responseFault,
  seededRandom,
  shuffled,
} from '../../helpers/fuzz.ts';
import { jsonOf, rawRequest } from '../../helpers/http.ts';

const engine = useEngine();

const hostile: unknown[] = [
  null,
  '',
  'x'.repeat(20_000),
  -1,
  0,
  1e308,
  2 ** 63,
  1.005,
  true,
  [],
  {},
  ['a'],
  '\u0000',
  '𝓤\uD800',
  '<script>',
  'İSTANBUL',
];
const hostileParams = [
  'nope',
  '%ff',
  '%00',
  'a'.repeat(2000),
  '..%2F..',
  '-1',
  'ord_0001',
  'prd_0001',
  'cus_0041',
  'ven_0001',
  'quo_0001',
  'whe_x',
  'dlv_x',
  'evt_x',
  "'; drop table orders; --",
];
const hostileQuery = ['', '-1', '1e400', 'x'.repeat(3000), '%', '[]'];

/** The plausible body, then each top-level and one-level-deep field replaced by each hostile value. */
function* bodies(base: unknown): Generator<unknown> {
  if (!base || typeof base !== 'object' || Array.isArray(base)) return;
  for (const [key, value] of Object.entries(base)) {
    for (const bad of hostile) yield { ...base, [key]: bad };
    const inner = Array.isArray(value) ? value[0] : value;
    if (inner && typeof inner === 'object') {
      for (const innerKey of Object.keys(inner)) {
        for (const bad of hostile) {
          const mutated = { ...inner, [innerKey]: bad };
          yield { ...base, [key]: Array.isArray(value) ? [mutated] : mutated };
        }
      }
    }
  }
}

test('every OpenAPI operation answers plausible and hostile input without a 5xx, errors as problem+json', async (t) => {
  const budgetMs = fuzzBudgetMs(9000);
  const random = seededRandom(fuzzSeed);
  const sb = await createSandbox(engine.url);
  const doc = JSON.parse((await rawRequest(engine.url, '/api/v1/openapi.json')).body);
  // The admin key routed to the sandbox reaches both the sandbox and the admin routes.
  const headers = {
    authorization: `Bearer ${engine.running.adminKey}`,
    'sandbay-sandbox': sb.id,
    'content-type': 'application/json',
  };
  const failures: string[] = [];
  let requests = 0;
  let reachedHandlers = 0;

  const succeeded = new Set<string>();
  const send = async ({
    method,
    path,
    body,
    route,
  }: {
    method: string;
    path: string;
    body: unknown;
    route: string;
  }) => {
    const res = await rawRequest(engine.url, path, {
      method: method.toUpperCase(),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    requests++;
    const fault = responseFault(path, res);
    if (fault)
      failures.push(
        `${method.toUpperCase()} ${path.slice(0, 80)} ${JSON.stringify(body)?.slice(0, 160) ?? ''} → ${fault}`,
      );
    // A 2xx, or a refusal only the domain logic gives (409 state, 402 card), ran the handler.
    if (res.status < 400 || res.status === 409 || res.status === 402) {
      reachedHandlers++;
      succeeded.add(`${method} ${route}`);
    }
  };

  // A real id for each path parameter: the first item of the list the parameter belongs to.
  let receiverUrl = '';
  const existing = async (path: string) => {
    if (path.startsWith('/catch/')) {
      // An earlier operation may have deleted the catcher: the receiver's own path needs it back.
      await rawRequest(engine.url, '/api/v1/catchers/fuzz', { method: 'PUT', headers, body: '{}' });
      return new URL(receiverUrl).pathname;
    }
    let filled = path;
    for (const match of path.matchAll(/\{(\w+)\}/g)) {
      const list = filled.slice(0, filled.indexOf(match[0]) - 1);
      const res = await rawRequest(engine.url, list, { headers });
      const first =
        res.status === 200 && /json/.test(String(res.headers['content-type']))
          ? JSON.parse(res.body).data?.[0]
          : undefined;
      filled = filled.replace(match[0], encodeURIComponent(first?.id ?? first?.name ?? 'nope'));
    }
    return filled;
  };
  // Something in the lists that start empty: a catcher, an endpoint on it, a delivery and its event.
  const catcher = await rawRequest(engine.url, '/api/v1/catchers/fuzz', {
    method: 'PUT',
    headers,
    body: JSON.stringify({ status: 200 }),
  });
  receiverUrl = jsonOf(catcher).url;
  for (const [path, body] of [
    ['/api/v1/webhooks/endpoints', { url: receiverUrl, topics: ['*'] }],
    ['/api/v1/webhooks/test', { topic: 'order.placed', endpoint: receiverUrl }],
  ] as const) {
    assert.ok(
      (await rawRequest(engine.url, path, { method: 'POST', headers, body: JSON.stringify(body) })).status < 300,
      path,
    );
  }

  const operations = operationsOf(doc).filter(({ path }) => !path.includes('/stream')); // SSE, fuzzed in stream.test.ts
  assert.ok(operations.length > 80, `the document lists every route (${operations.length})`);
  const started = Date.now();
  for (const [index, { path, method, op }] of operations.entries()) {
    const queryParams = (op.parameters ?? []).filter((p) => p.in === 'query');
    // Values with a % are sent as they are (already escaped, or deliberately broken).
    const fill = (value: string) =>
      path.replace(/\{(\w+)\}/g, () => (value.includes('%') ? value : encodeURIComponent(value)));
    const seeded = await existing(path);
    const base = plausibleBody(doc, op, receiverUrl);
    const cases = [
      ...hostileParams.map((p) => ({ path: fill(p), body: base })),
      ...[...bodies(base)].map((body) => ({ path: seeded, body })),
      ...queryParams.flatMap((q) => hostileQuery.map((bad) => ({ path: `${seeded}?${q.name}=${bad}`, body: base }))),
    ];
    // The plausible request always; the hostile ones in seeded order while this operation's share of the budget lasts.
    await send({ method, path: seeded, body: base, route: path });
    const deadline = started + (budgetMs * (index + 1)) / operations.length;
    for (const [n, c] of shuffled(random, cases).entries()) {
      if (n > 0 && Date.now() > deadline) break;
      await send({ method, ...c, route: path });
    }
  }
  t.diagnostic(
    `seed ${fuzzSeed}: ${requests} requests over ${operations.length} operations in ${Date.now() - started} ms; ${reachedHandlers} ran a handler`,
  );
  t.diagnostic(
    `never ran a handler: ${operations
      .filter((o) => !succeeded.has(`${o.method} ${o.path}`))
      .map((o) => `${o.method} ${o.path}`)
      .join(', ')}`,
  );
  assert.deepEqual(failures, []);
  assert.ok(requests >= 2 * operations.length, `each operation got hostile input (${requests})`);
  assert.ok(reachedHandlers > 60, `plausible requests got past validation (${reachedHandlers})`);
});

test('text PostgreSQL cannot store (NUL, a lone surrogate) is refused where it enters, not failed on in a query', async () => {
  const sb = await createSandbox(engine.url);
  const json = { authorization: `Bearer ${sb.token}`, 'content-type': 'application/json' };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  const body = await rawRequest(engine.url, '/api/v1/customers', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      name: 'A\u0000B',
      email: 'a@example.com',
      address: { city: 'İstanbul', district: '\ud800' },
    }),
  });
  assert.equal(body.status, 422);
  assert.deepEqual(
    jsonOf(body).errors.map((e: { path: string }) => e.path),
    ['/name', '/address/district'],
  );

  assert.equal((await rawRequest(engine.url, '/api/v1/orders/ord_%00', { headers: json })).status, 404);
  const query = await rawRequest(engine.url, '/api/v1/orders?customerId=%00', { headers: json });
  assert.equal(query.status, 422);
  assert.equal(jsonOf(query).errors[0].path, '/customerId');

  const token = await rawRequest(engine.url, '/oauth/token', {
    method: 'POST',
    headers: form,
    body: `grant_type=client_credentials&client_id=${sb.clientId}%00&client_secret=x`,
  });
  assert.equal(token.status, 400);
  assert.equal(jsonOf(token).error, 'invalid_request');
  const basic = await rawRequest(engine.url, '/oauth/token', {
    method: 'POST',
    headers: { ...form, authorization: `Basic ${Buffer.from(`${sb.clientId}\u0000:x`).toString('base64')}` },
    body: 'grant_type=client_credentials',
  });
  assert.equal(basic.status, 401);
  assert.equal(jsonOf(basic).error, 'invalid_client');
  const challenge = await rawRequest(engine.url, '/3ds/pay_x', {
    method: 'POST',
    headers: form,
    body: 'outcome=approve&token=%00',
  });
  assert.equal(challenge.status, 422);
  assert.equal((await sb.api('/api/v1/customers?limit=1')).status, 200, 'still serving');
});
