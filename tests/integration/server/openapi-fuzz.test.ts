// Every operation of the OpenAPI document, fed a plausible request built from its own schema and
// then that request with one field at a time made hostile: never a 5xx, always problem+json.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { jsonOf, rawRequest } from '../../helpers/http.ts';

const engine = useEngine();

type Schema = {
  $ref?: string; type?: string | string[]; enum?: unknown[]; const?: unknown; properties?: Record<string, Schema>;
  required?: string[]; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; minimum?: number; format?: string;
  minLength?: number; pattern?: string; default?: unknown;
};
interface Operation { operationId: string; parameters?: { name: string; in: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } }

const hostile: unknown[] = [null, '', 'x'.repeat(20_000), -1, 0, 1e308, 2 ** 63, 1.005, true, [], {}, ['a'], '\u0000', '𝓤\uD800', '<script>', 'İSTANBUL'];
const hostileParams = ['nope', '%ff', '%00', 'a'.repeat(2000), '..%2F..', '-1', 'ord_0001', 'prd_0001', 'cus_0041', 'ven_0001', 'quo_0001', 'whe_x', 'dlv_x', 'evt_x', "'; drop table orders; --"];
// Seeded ids that exist in every sandbox and values the domain checks accept, by field name, so
// plausible requests reach the handlers' own logic.
const known: Record<string, unknown> = {
  customerId: 'cus_0001', variantId: 'var_0001', productId: 'prd_0001', vendorId: 'ven_0001', companyId: 'com_0001',
  orderId: 'ord_0001', approverId: 'cus_0043', staffId: 'stf_0002', quoteId: 'quo_0001', invitedBy: 'stf_0001',
  topics: ['*'], topic: 'order.placed', phone: '+90 532 123 45 67', taxNumber: '1234567890', iban: 'TR330006100519786457841326',
  number: '4242424242424242', cvc: '123', expMonth: 12, expYear: 2030, periodStart: '2026-01-01', periodEnd: '2026-12-31',
  approvalLevel: undefined,
};

function resolve(doc: any, schema: Schema): Schema {
  if (!schema?.$ref) return schema ?? {};
  return resolve(doc, schema.$ref.replace(/^#\//, '').split('/').reduce((node: any, key) => node[key], doc));
}

/** A value that satisfies the common cases of a schema (good enough to get past validation often). */
function plausible(doc: any, raw: Schema, name = '', depth = 0): unknown {
  const schema = resolve(doc, raw);
  if (depth > 6) return null;
  if (name in known) return known[name];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return plausible(doc, variants.find((v) => resolve(doc, v).type !== 'null') ?? variants[0], name, depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s) => plausible(doc, s, name, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(schema.properties ?? {})) out[key] = plausible(doc, value, key, depth + 1);
      return out;
    }
    case 'array': return schema.items ? [plausible(doc, schema.items, name, depth + 1)] : [];
    case 'integer': return Math.max(1, schema.minimum ?? 1);
    case 'number': return Math.max(1, schema.minimum ?? 1);
    case 'boolean': return false;
    case 'string':
      if (schema.format === 'uri' || /url|endpoint/i.test(name)) return `${engine.url}/catch/fuzz`;
      if (schema.format === 'date-time') return '2026-12-01T00:00:00Z';
      if (schema.format === 'date') return '2026-12-01';
      if (schema.format === 'email' || /email/i.test(name)) return 'fuzz@example.com';
      if (name === 'city') return 'İstanbul';
      if (name === 'district') return 'Kadıköy';
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    default: return null;
  }
}

/** The plausible body, then each top-level and one-level-deep field replaced by each hostile value. */
function* bodies(base: unknown): Generator<unknown> {
  yield base;
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
  const sb = await createSandbox(engine.url);
  const doc = JSON.parse((await rawRequest(engine.url, '/api/v1/openapi.json')).body);
  // The admin key routed to the sandbox reaches both the sandbox and the admin routes.
  const headers = { authorization: `Bearer ${engine.running.adminKey}`, 'sandbay-sandbox': sb.id, 'content-type': 'application/json' };
  const failures: string[] = [];
  let requests = 0;
  let reachedHandlers = 0;

  const succeeded = new Set<string>();
  const send = async (method: string, path: string, body: unknown, route: string) => {
    const res = await rawRequest(engine.url, path, { method: method.toUpperCase(), headers, body: body === undefined ? undefined : JSON.stringify(body) });
    requests++;
    const label = `${method.toUpperCase()} ${path.slice(0, 80)} ${JSON.stringify(body)?.slice(0, 160) ?? ''}`;
    if (res.status >= 500) failures.push(`${label} → ${res.status} ${res.body.slice(0, 200)}`);
    // The OAuth endpoints answer in RFC 6749 form (token) or as an HTML page (authorize), SPEC §2–3.
    const problemJson = !path.startsWith('/oauth/') && !path.startsWith('/3ds/');
    if (res.status >= 400 && problemJson && !/application\/problem\+json/.test(String(res.headers['content-type']))) failures.push(`${label} → ${res.status} without problem+json`);
    if (/\n\s+at /.test(res.body)) failures.push(`${label} → a stack trace`);
    // A 2xx, or a refusal only the domain logic gives (409 state, 402 card), ran the handler.
    if (res.status < 400 || res.status === 409 || res.status === 402) { reachedHandlers++; succeeded.add(`${method} ${route}`); }
  };

  // A real id for each path parameter: the first item of the list the parameter belongs to.
  const existing = async (path: string) => {
    let filled = path;
    for (const match of path.matchAll(/\{(\w+)\}/g)) {
      const list = filled.slice(0, filled.indexOf(match[0]) - 1);
      const res = await rawRequest(engine.url, list, { headers });
      const first = res.status === 200 && /json/.test(String(res.headers['content-type'])) ? JSON.parse(res.body).data?.[0] : undefined;
      filled = filled.replace(match[0], encodeURIComponent(first?.id ?? first?.name ?? 'nope'));
    }
    return filled;
  };
  // Something in the lists that start empty: a catcher, an endpoint on it, a delivery and its event.
  for (const [method, path, body] of [
    ['PUT', '/api/v1/catchers/fuzz', { status: 200 }],
    ['POST', '/api/v1/webhooks/endpoints', { url: `${engine.url}/catch/fuzz`, topics: ['*'] }],
    ['POST', '/api/v1/webhooks/test', { topic: 'order.placed', endpoint: `${engine.url}/catch/fuzz` }],
  ] as const) {
    assert.ok((await rawRequest(engine.url, path, { method, headers, body: JSON.stringify(body) })).status < 300, path);
  }

  // Destructive ones last, so the rest run against a seeded sandbox.
  const last = new Set(['resetSandbox', 'deleteSandbox']);
  const operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>)
    .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))
    .sort((a, b) => Number(last.has(a.op.operationId)) - Number(last.has(b.op.operationId)));
  assert.ok(operations.length > 80, `the document lists every route (${operations.length})`);

  for (const { path, method, op } of operations) {
    if (op.operationId === 'streamEvents' || path.includes('/stream')) continue; // a long-lived SSE response, fuzzed in stream.test.ts
    const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path');
    const queryParams = (op.parameters ?? []).filter((p) => p.in === 'query');
    // Values with a % are sent as they are (already escaped, or deliberately broken).
    const fill = (value: (name: string) => string) => path.replace(/\{(\w+)\}/g, (_, name) => {
      const v = value(name);
      return v.includes('%') ? v : encodeURIComponent(v);
    });
    const seeded = await existing(path);
    const jsonSchema = op.requestBody?.content['application/json']?.schema;
    const base = jsonSchema ? plausible(doc, jsonSchema) : undefined;

    for (const p of hostileParams) await send(method, fill(() => p), base, path);
    for (const body of jsonSchema ? bodies(base) : [undefined]) await send(method, seeded, body, path);
    for (const q of queryParams) {
      for (const bad of ['', '-1', '1e400', 'x'.repeat(3000), '%', '[]']) await send(method, `${seeded}?${q.name}=${bad}`, base, path);
    }
  }
  t.diagnostic(`${requests} requests over ${operations.length} operations; ${reachedHandlers} ran a handler`);
  t.diagnostic(`never ran a handler: ${operations.filter((o) => !succeeded.has(`${o.method} ${o.path}`)).map((o) => `${o.method} ${o.path}`).join(', ')}`);
  assert.deepEqual(failures, []);
  assert.ok(requests > 2000, `enough requests (${requests})`);
  assert.ok(reachedHandlers > 200, `plausible requests got past validation (${reachedHandlers})`);
});

test('text PostgreSQL cannot store (NUL, a lone surrogate) is refused where it enters, not failed on in a query', async () => {
  const sb = await createSandbox(engine.url);
  const json = { authorization: `Bearer ${sb.token}`, 'content-type': 'application/json' };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  const body = await rawRequest(engine.url, '/api/v1/customers', {
    method: 'POST', headers: json,
    body: JSON.stringify({ name: 'A\u0000B', email: 'a@example.com', address: { city: 'İstanbul', district: '\ud800' } }),
  });
  assert.equal(body.status, 422);
  assert.deepEqual(jsonOf(body).errors.map((e: { path: string }) => e.path), ['/name', '/address/district']);

  assert.equal((await rawRequest(engine.url, '/api/v1/orders/ord_%00', { headers: json })).status, 404);
  const query = await rawRequest(engine.url, '/api/v1/orders?customerId=%00', { headers: json });
  assert.equal(query.status, 422);
  assert.equal(jsonOf(query).errors[0].path, '/customerId');

  const token = await rawRequest(engine.url, '/oauth/token', { method: 'POST', headers: form, body: `grant_type=client_credentials&client_id=${sb.clientId}%00&client_secret=x` });
  assert.equal(token.status, 400);
  assert.equal(jsonOf(token).error, 'invalid_request');
  const basic = await rawRequest(engine.url, '/oauth/token', {
    method: 'POST', headers: { ...form, authorization: `Basic ${Buffer.from(`${sb.clientId}\u0000:x`).toString('base64')}` }, body: 'grant_type=client_credentials',
  });
  assert.equal(basic.status, 401);
  assert.equal(jsonOf(basic).error, 'invalid_client');
  const challenge = await rawRequest(engine.url, '/3ds/pay_x', { method: 'POST', headers: form, body: 'outcome=approve&token=%00' });
  assert.equal(challenge.status, 422);
  assert.equal((await sb.api('/api/v1/customers?limit=1')).status, 200, 'still serving');
});
