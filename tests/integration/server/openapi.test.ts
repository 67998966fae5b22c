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
  return ref.slice(2).split('/').reduce((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
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
      assert.ok(op.parameters.some((p: any) => p.in === 'path' && p.name === name[1] && p.required), `${r.path} documents {${name[1]}}`);
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
  const tooMany = { customerId: 'cus_0001', items: [{ variantId: 'var_0001', quantity: quantity.maximum + 1 }], shippingAddress: { city: 'a', district: 'b' } };
  problem(await sb.api('/api/v1/orders', { body: tooMany }), 422, 'validation_failed');

  const list = doc.paths['/api/v1/orders'].get;
  const limit = list.parameters.find((p: any) => p.name === 'limit');
  assert.deepEqual([limit.in, limit.required, limit.schema.minimum, limit.schema.maximum, limit.schema.default], ['query', false, 1, 100, 20]);
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
  for (const name of ['Problem', 'Order', 'CreateOrderRequest', 'CreatedSandbox', 'TokenResponse']) assert.ok(doc.components.schemas[name], name);
  assert.deepEqual([...doc.components.schemas.Problem.required].sort(), ['code', 'detail', 'status', 'title', 'type']);
  const getOrder = doc.paths['/api/v1/orders/{id}'].get;
  assert.equal(getOrder.responses.default.content['application/problem+json'].schema.$ref, '#/components/schemas/Problem');
});

test('the top-level webhooks section describes all 33 topics', async () => {
  const doc = await openapi();
  assert.equal(topics.length, 33);
  assert.deepEqual(Object.keys(doc.webhooks).sort(), [...topics].sort());
  for (const topic of topics) {
    const schema = doc.webhooks[topic].post.requestBody.content['application/json'].schema;
    assert.deepEqual([...schema.required].sort(), ['data', 'deliveryId', 'occurredAt', 'tenantId', 'topic']);
  }
  const placed = doc.webhooks['order.placed'].post.requestBody.content['application/json'].schema.properties.data;
  const data = deref(doc, placed);
  for (const field of ['orderId', 'total', 'currency', 'customerId']) assert.ok(data.properties?.[field], `order.placed data documents ${field}`);
});
