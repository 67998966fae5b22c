import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pointerOf, valueOf } from '../../src/cli/data-changes.ts';
import { customiseSample, mergePatch } from '../../src/webhooks/topics/customise.ts';

test('paths as users write them become JSON Pointers into data', () => {
  assert.equal(pointerOf('data.items[0].quantity'), '/items/0/quantity');
  assert.equal(pointerOf('items[0].quantity'), '/items/0/quantity');
  assert.equal(pointerOf('data["a.b"].c'), '/a.b/c');
  assert.equal(pointerOf('data["x/y~z"]'), '/x~1y~0z');
  assert.equal(pointerOf('data.tags[-]'), '/tags/-');
  assert.equal(pointerOf('/already/a/pointer'), '/already/a/pointer');
  for (const bad of ['data', 'data..x', 'data.x[', 'x]', '']) assert.throws(() => pointerOf(bad), bad);
});

test('values are JSON when they parse, else text', () => {
  assert.deepEqual(
    [valueOf('10.5'), valueOf('true'), valueOf('null'), valueOf('"123"'), valueOf('[1]'), valueOf('hi'), valueOf('')],
    [10.5, true, null, '123', [1], 'hi', ''],
  );
});

test('merge patch (RFC 7396): objects merge, null removes, arrays and scalars replace', () => {
  assert.deepEqual(mergePatch({ a: { b: 1, c: 2 }, d: [1, 2], e: 1 }, { a: { b: null, x: 3 }, d: [9], e: { f: 1 } }), {
    a: { c: 2, x: 3 },
    d: [9],
    e: { f: 1 },
  });
});

test('patch operations: add appends with -, inserts at an index; the sample given is never changed', () => {
  const sample = {
    productId: 'prd_1',
    name: 'A',
    category: 'c',
    status: 'draft',
    vendorId: null,
    currency: 'TRY',
    createdAt: '2026-01-01T00:00:00.000Z',
    variants: [{ variantId: 'var_1', sku: 's', name: 'n', price: 1, stock: 1 }],
  };
  const copy = structuredClone(sample);
  const extra = { variantId: 'var_2', sku: 't', name: 'm', price: 2, stock: 2 };
  const out = customiseSample('product.created', sample, {
    patch: [
      { op: 'add', path: '/variants/-', value: extra },
      { op: 'add', path: '/variants/0', value: extra },
    ],
  }) as typeof sample;
  assert.deepEqual(
    out.variants.map((v) => v.variantId),
    ['var_2', 'var_1', 'var_2'],
  );
  assert.deepEqual(sample, copy);
  assert.throws(
    () => customiseSample('product.created', sample, { patch: [{ op: 'replace', path: '/name' }] }),
    /replace needs a value/,
  );
  assert.throws(
    () => customiseSample('product.created', sample, { patch: [{ op: 'add', path: '/__proto__/polluted', value: 1 }] }),
    /no object \/__proto__/,
  );
  const odd = customiseSample('product.created', sample, {
    data: JSON.parse('{"__proto__": {"polluted": 1}}'),
    patch: [{ op: 'add', path: '/constructor', value: 2 }],
  }) as any;
  assert.equal(({} as any).polluted, undefined, 'no prototype was touched');
  assert.deepEqual(JSON.parse(JSON.stringify(odd)).__proto__, { polluted: 1 }, 'a key named __proto__ is just a key');
  assert.throws(
    () => customiseSample('product.created', sample, { patch: [{ op: 'add', path: 'name', value: 1 }] }),
    /not a JSON Pointer/,
  );
});

test('money in your own data has at most 2 decimals, as everywhere in the API (SPEC §2)', () => {
  const sample = { orderId: 'ord_1', total: 10, currency: 'TRY', customerId: 'cus_0001' };
  assert.deepEqual(customiseSample('order.placed', sample, { data: { total: 10.05 } }), { ...sample, total: 10.05 });
  assert.throws(
    () => customiseSample('order.placed', sample, { data: { total: 10.005 } }),
    (err: Error & { status?: number }) => err.status === 422 && /\/data\/total: at most 2 decimals/.test(err.message),
  );
});
