import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { orderBody, orderCount, stockOf } from '../../helpers/orders.ts';

const engine = useEngine();

/** Posts a bad order and checks the problem, its error paths, and that nothing was written. */
async function refused(sb: TestSandbox, body: unknown, status: number, code: string, paths?: string[]): Promise<any> {
  const stock = await stockOf(engine.running, sb.id, 'var_0001');
  const res = problem(await sb.api('/api/v1/orders', { body }), status, code);
  if (paths)
    assert.deepEqual(
      res.errors.map((e: any) => e.path),
      paths,
      JSON.stringify(res),
    );
  assert.equal(await orderCount(engine.running, sb.id), 200, 'no order was written');
  assert.equal(await stockOf(engine.running, sb.id, 'var_0001'), stock, 'no stock moved');
  assert.equal((await sb.api('/api/v1/events')).body.data.length, 0, 'no event was recorded');
  return res;
}

test("references must exist in the caller's sandbox: customer_not_found, variant_not_found", async () => {
  const sb = await createSandbox(engine.url);
  await refused(sb, orderBody({ customerId: 'cus_9999' }), 422, 'customer_not_found', ['/customerId']);
  const items = [
    { variantId: 'var_0001', quantity: 1 },
    { variantId: 'var_9999', quantity: 1 },
  ];
  const res = await refused(sb, orderBody({ items }), 422, 'variant_not_found', ['/items/1/variantId']);
  assert.match(res.detail, /var_9999/);
});

test('1–100 items', async () => {
  const sb = await createSandbox(engine.url);
  await refused(sb, orderBody({ items: [] }), 422, 'validation_failed', ['/items']);
  const many = Array.from({ length: 101 }, () => ({ variantId: 'var_0001', quantity: 1 }));
  await refused(sb, orderBody({ items: many }), 422, 'validation_failed', ['/items']);
});

test('quantity is an integer from 1 to 999', async () => {
  const sb = await createSandbox(engine.url);
  for (const quantity of [0, 1000, 1.5, '2', -1, null]) {
    await refused(sb, orderBody({ items: [{ variantId: 'var_0001', quantity }] }), 422, 'validation_failed', [
      '/items/0/quantity',
    ]);
  }
  await refused(sb, orderBody({ items: [{ variantId: 'var_0001' }] }), 422, 'validation_failed', ['/items/0/quantity']);
});

test('city and district are non-empty strings of at most 100 characters', async () => {
  const sb = await createSandbox(engine.url);
  for (const [city, district, paths] of [
    ['', 'Konak', ['/shippingAddress/city']],
    ['   ', 'Konak', ['/shippingAddress/city']],
    ['İzmir', 'x'.repeat(101), ['/shippingAddress/district']],
    ['x'.repeat(101), '', ['/shippingAddress/city', '/shippingAddress/district']],
    [7, 'Konak', ['/shippingAddress/city']],
  ] as [unknown, unknown, string[]][]) {
    await refused(sb, orderBody({ shippingAddress: { city, district } }), 422, 'validation_failed', paths);
  }
  await refused(sb, orderBody({ shippingAddress: undefined }), 422, 'validation_failed', ['/shippingAddress']);
});

test('every missing field is listed, each with a JSON Pointer path and a message', async () => {
  const sb = await createSandbox(engine.url);
  const res = await refused(sb, {}, 422, 'validation_failed');
  assert.deepEqual(res.errors.map((e: any) => e.path).sort(), ['/customerId', '/items', '/shippingAddress']);
  for (const e of res.errors) assert.ok(e.message.length > 0);
});

test('unknown fields are 400 unknown_field, even with a type error present', async () => {
  const sb = await createSandbox(engine.url);
  await refused(sb, orderBody({ coupon: 'FREE' }), 400, 'unknown_field', ['/coupon']);
  await refused(
    sb,
    orderBody({ items: [{ variantId: 'var_0001', quantity: 'two', gift: true }] }),
    400,
    'unknown_field',
    ['/items/0/gift'],
  );
  await refused(
    sb,
    orderBody({ customerId: 42, shippingAddress: { city: 'İzmir', district: 'Konak', zip: '35000' } }),
    400,
    'unknown_field',
    ['/shippingAddress/zip'],
  );
});

test('catalog rules: a draft product and an out-of-stock variant cannot be ordered', async () => {
  const sb = await createSandbox(engine.url);
  await refused(sb, orderBody({ items: [{ variantId: 'var_0031', quantity: 1 }] }), 422, 'product_not_available', [
    '/items/0/variantId',
  ]);
  await refused(
    sb,
    orderBody({
      items: [
        { variantId: 'var_0001', quantity: 1 },
        { variantId: 'var_0002', quantity: 1 },
      ],
    }),
    422,
    'insufficient_stock',
    ['/items/1/quantity'],
  );
  const stock = await stockOf(engine.running, sb.id, 'var_0001');
  await refused(
    sb,
    orderBody({
      items: [
        { variantId: 'var_0001', quantity: stock },
        { variantId: 'var_0001', quantity: 1 },
      ],
    }),
    422,
    'insufficient_stock',
  );
});
