import assert from 'node:assert/strict';
import { test } from 'node:test';
import { topics } from '../../../src/shared/topics.ts';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';

const engine = useEngine();

async function openapi(): Promise<any> {
  const res = await call(engine.url, '/api/v1/openapi.json');
  assert.equal(res.status, 200, 'no token needed');
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return res.body;
}

/** Follows a local $ref such as #/components/schemas/Order. */
function resolve(doc: any, ref: string): any {
  assert.ok(ref.startsWith('#/'), `only local refs: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .reduce((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

const deref = (doc: any, schema: any) => (schema?.$ref ? resolve(doc, schema.$ref) : schema);

test('GET /api/v1/openapi.json is OpenAPI 3.1.0 and lists every route the router serves', async () => {
  const doc = await openapi();
  assert.equal(doc.openapi, '3.1.0');
  assert.ok(doc.info.title && doc.info.version);
  const routes = engine.running.routes;
  assert.ok(routes.length > 10);
  for (const r of routes) {
    const op = doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method];
    assert.ok(op, `${r.method.toUpperCase()} ${r.path} is documented`);
    assert.equal(op.operationId, r.operationId);
    for (const name of r.path.matchAll(/:(\w+)/g)) {
      assert.ok(
        op.parameters.some((p: any) => p.in === 'path' && p.name === name[1] && p.required),
        `${r.path} documents {${name[1]}}`,
      );
    }
  }
  const documented = Object.values(doc.paths).reduce((n: number, item: any) => n + Object.keys(item).length, 0);
  assert.equal(documented, routes.length, 'nothing documented that is not served');
  const ids = routes.map((r) => r.operationId);
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

test('request schemas are the validation schemas: the order limits match what the API enforces', async () => {
  const doc = await openapi();
  const create = doc.paths['/api/v1/orders'].post;
  assert.deepEqual(create.security, [{ bearer: ['orders:write'] }, { adminKey: [] }]);
  const body = deref(doc, create.requestBody.content['application/json'].schema);
  assert.deepEqual([...body.required].sort(), ['customerId', 'items', 'shippingAddress']);
  assert.equal(body.additionalProperties, false, 'unknown fields are refused');
  assert.equal(body.properties.items.minItems, 1);
  assert.equal(body.properties.items.maxItems, 100);
  const quantity = body.properties.items.items.properties.quantity;
  assert.equal(quantity.type, 'integer');
  assert.equal(quantity.minimum, 1);
  assert.equal(quantity.maximum, 999);
  const address = deref(doc, body.properties.shippingAddress);
  assert.equal(address.properties.city.maxLength, 100);
  assert.equal(address.properties.city.minLength, 1);

  // The documented maximum is the enforced one.
  const sb = await createSandbox(engine.url);
  const tooMany = {
    customerId: 'cus_0001',
    items: [{ variantId: 'var_0001', quantity: quantity.maximum + 1 }],
    shippingAddress: { city: 'a', district: 'b' },
  };
  problem(await sb.api('/api/v1/orders', { body: tooMany }), 422, 'validation_failed');

  const list = doc.paths['/api/v1/orders'].get;
  const limit = list.parameters.find((p: any) => p.name === 'limit');
  assert.deepEqual(
    [limit.in, limit.required, limit.schema.minimum, limit.schema.maximum, limit.schema.default],
    ['query', false, 1, 100, 20],
  );
  const status = list.parameters.find((p: any) => p.name === 'status');
  assert.ok(status.schema.enum.includes('placed'));
  const created = deref(doc, create.responses['201'].content['application/json'].schema);
  assert.ok(created.properties.items && created.properties.total);
});

test('every $ref resolves, and errors are documented as problem details', async () => {
  const doc = await openapi();
  const refs = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string') refs.add(v);
        else walk(v);
      }
    }
  };
  walk(doc);
  assert.ok(refs.size > 5);
  for (const ref of refs) assert.ok(resolve(doc, ref), `${ref} resolves`);
  for (const name of ['Problem', 'Order', 'CreateOrderRequest', 'CreatedSandbox', 'TokenResponse'])
    assert.ok(doc.components.schemas[name], name);
  assert.deepEqual([...doc.components.schemas.Problem.required].sort(), ['code', 'detail', 'status', 'title', 'type']);
  const getOrder = doc.paths['/api/v1/orders/{id}'].get;
  assert.equal(getOrder.responses.default, undefined, 'no catch-all: every status is listed');
  const notFound = getOrder.responses['404'].content['application/problem+json'].schema;
  assert.equal(notFound.allOf[0].$ref, '#/components/schemas/Problem');
  assert.deepEqual(notFound.allOf[1].properties, { status: { const: 404 }, code: { enum: ['not_found'] } });
});

test('the top-level webhooks section describes all 33 topics', async () => {
  const doc = await openapi();
  assert.equal(topics.length, 33);
  assert.deepEqual(Object.keys(doc.webhooks).sort(), [...topics].sort());
  for (const topic of topics) {
    const schema = doc.webhooks[topic].post.requestBody.content['application/json'].schema;
    // Sandbay's envelope or Standard Webhooks' payload, as the endpoint's signing schemes say (SPEC §11).
    assert.deepEqual(schema.required, ['data']);
    assert.deepEqual(
      schema.anyOf.map((s: any) => [...s.required].sort()),
      [
        ['deliveryId', 'occurredAt', 'tenantId', 'topic'],
        ['timestamp', 'type'],
      ],
    );
    assert.deepEqual([schema.properties.topic.const, schema.properties.type.const], [topic, topic]);
  }
  const placed = doc.webhooks['order.placed'].post.requestBody.content['application/json'].schema.properties.data;
  const data = deref(doc, placed);
  for (const field of ['orderId', 'total', 'currency', 'customerId'])
    assert.ok(data.properties?.[field], `order.placed data documents ${field}`);
});

test('servers names the engine that serves the document; the license and the webhook signature are described', async () => {
  const doc = await openapi();
  assert.deepEqual(
    doc.servers.map((s: any) => s.url),
    [engine.url],
  );
  assert.ok(doc.info.license.name && (doc.info.license.identifier || doc.info.license.url));
  const scheme = doc.components.securitySchemes.webhookSignature;
  assert.deepEqual([scheme.type, scheme.in, scheme.name], ['apiKey', 'header', 'X-Service-Signature']);
  assert.match(scheme.description, /t=.*v1=.*HMAC-SHA256/);
  const standard = doc.components.securitySchemes.standardWebhooks;
  assert.deepEqual([standard.type, standard.in, standard.name], ['apiKey', 'header', 'webhook-signature']);
  assert.match(standard.description, /v1,<base64 HMAC-SHA256>.*v1a,<base64 ed25519>.*whpk_/);
  for (const topic of topics) {
    const op = doc.webhooks[topic].post;
    assert.deepEqual(op.security, [{ webhookSignature: [] }, { standardWebhooks: [] }], topic);
    assert.deepEqual(
      op.parameters.map((h: any) => h.name).slice(3),
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
      topic,
    );
    assert.ok(op.operationId && op.responses['2XX'] && op.responses['4XX'], topic);
  }
});

const codesOf = (op: any, status: number) =>
  op.responses[status]?.content?.['application/problem+json']?.schema.allOf[1].properties.code.enum;

test('4xx responses are derived from each route definition, with the domain errors the route declares', async () => {
  const doc = await openapi();
  const create = doc.paths['/api/v1/orders'].post;
  assert.deepEqual(codesOf(create, 400), ['malformed_json', 'unknown_field']);
  assert.deepEqual(codesOf(create, 401), ['missing_token', 'invalid_token', 'token_expired']);
  assert.deepEqual(codesOf(create, 403), [
    'host_not_allowed',
    'origin_not_allowed',
    'insufficient_scope',
    'sandbox_mismatch',
  ]);
  assert.deepEqual(codesOf(create, 409), ['idempotency_key_reused', 'idempotency_key_in_use']);
  assert.deepEqual([codesOf(create, 413), codesOf(create, 415)], [['payload_too_large'], ['unsupported_media_type']]);
  assert.deepEqual(codesOf(create, 422), [
    'sandbox_required',
    'validation_failed',
    'customer_not_found',
    'variant_not_found',
    'product_not_available',
    'insufficient_stock',
  ]);
  const cancel = doc.paths['/api/v1/orders/{id}/cancel'].post;
  assert.deepEqual(codesOf(cancel, 409), [
    'idempotency_key_reused',
    'idempotency_key_in_use',
    'order_paid',
    'order_cancelled',
    'order_rejected',
  ]);
  assert.deepEqual(codesOf(doc.paths['/api/v1/payments'].post, 402), ['card_declined']);
  // A database fault (SPEC §9): 503 or 507, each with Retry-After, on every operation that reads the database.
  assert.deepEqual([codesOf(create, 503), codesOf(create, 507)], [['database_unavailable'], ['insufficient_storage']]);
  assert.deepEqual(Object.keys(create.responses[503].headers), ['Retry-After']);
  assert.deepEqual(codesOf(doc.paths['/api/v1/sandbox/clock/advance'].post, 409), [
    'idempotency_key_reused',
    'idempotency_key_in_use',
    'advance_in_progress',
  ]);
  // No token, no body, no path, no database: only the guards can refuse.
  const health = doc.paths['/api/v1/health'].get;
  assert.deepEqual(Object.keys(health.responses), ['200', '403']);
  // The admin-only list: the admin key or nothing.
  const sandboxes = doc.paths['/api/v1/sandboxes'].get;
  assert.deepEqual(
    [codesOf(sandboxes, 401), codesOf(sandboxes, 403)],
    [['missing_token'], ['host_not_allowed', 'origin_not_allowed', 'admin_key_required']],
  );
});

test('/oauth/token documents its RFC 6749 §5.2 errors as application/json, and the HTML pages as text/html', async () => {
  const doc = await openapi();
  const token = doc.paths['/oauth/token'].post;
  for (const [status, errors] of [
    [400, ['invalid_request', 'invalid_grant', 'invalid_scope', 'unsupported_grant_type', 'unauthorized_client']],
    [401, ['invalid_client']],
  ] as const) {
    const content = token.responses[status].content;
    assert.deepEqual(Object.keys(content), ['application/json'], `${status}: no problem details`);
    assert.deepEqual(content['application/json'].schema.properties.error.enum, errors);
    assert.deepEqual([...content['application/json'].schema.required].sort(), ['error', 'error_description']);
  }
  assert.deepEqual(Object.keys(token.requestBody.content).sort(), [
    'application/json',
    'application/x-www-form-urlencoded',
  ]);
  assert.deepEqual(Object.keys(doc.paths['/oauth/authorize'].get.responses['200'].content), ['text/html']);
  assert.deepEqual(Object.keys(doc.paths['/3ds/{id}'].post.responses['404'].content), [
    'text/html',
    'application/problem+json',
  ]);
  assert.deepEqual(Object.keys(doc.paths['/api/v1/events/stream'].get.responses['200'].content), ['text/event-stream']);
});
