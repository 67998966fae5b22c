import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { stockOf } from '../../helpers/orders.ts';

const engine = useEngine();
const address = { city: 'İstanbul', district: 'Kadıköy' };

test('POST /api/v1/orders returns 201 with the SPEC §4 shape, prices from the catalog', async () => {
  const sb = await createSandbox(engine.url);
  const res = await sb.api('/api/v1/orders', {
    body: { customerId: 'cus_0001', items: [{ variantId: 'var_0001', quantity: 2 }], shippingAddress: address },
  });
  assert.equal(res.status, 201);
  const order = res.body;
  assert.deepEqual(Object.keys(order).sort(), [
    'createdAt',
    'currency',
    'customerId',
    'id',
    'items',
    'shippingAddress',
    'status',
    'total',
  ]);
  assert.match(order.id, /^ord_[A-Za-z0-9]{20}$/);
  assert.equal(order.status, 'placed');
  assert.equal(order.customerId, 'cus_0001');
  assert.equal(order.currency, 'TRY');
  assert.deepEqual(order.shippingAddress, address);
  assert.match(order.createdAt, /Z$/);
  assert.deepEqual(order.items, [
    {
      variantId: 'var_0001',
      productId: 'prd_0001',
      name: 'Bakır Cezve (Boy: Küçük)',
      quantity: 2,
      unitPrice: 449.9,
      lineTotal: 899.8,
    },
  ]);
  assert.equal(order.total, 899.8);
  assert.deepEqual((await sb.api(`/api/v1/orders/${order.id}`)).body, order, 'GET returns what POST returned');
});

test('money is exact: totals that drift in binary floating point come out to the cent', async () => {
  const sb = await createSandbox(engine.url);
  // Unit prices 261.10 and 31.10: as binary floats 31.1 * 3 is 93.30000000000001 and the sum 354.40000000000003.
  const items = [
    { variantId: 'var_0077', quantity: 1 },
    { variantId: 'var_0142', quantity: 3 },
  ];
  assert.notEqual(261.1 + 31.1 * 3, 354.4, 'the float sum really drifts');
  const res = await sb.api('/api/v1/orders', { body: { customerId: 'cus_0002', items, shippingAddress: address } });
  assert.equal(res.status, 201);
  assert.deepEqual(
    res.body.items.map((i: any) => [i.unitPrice, i.lineTotal]),
    [
      [261.1, 261.1],
      [31.1, 93.3],
    ],
  );
  assert.equal(res.body.total, 354.4);
  const [row] = await engine.running.services.db.query<{ total_minor: number }>(
    'select total_minor from orders where tenant_id = $1 and id = $2',
    [sb.id, res.body.id],
  );
  assert.equal(row.total_minor, 35440, 'stored in minor units');
});

test('creating an order reserves stock; the same variant twice is one reservation of the sum', async () => {
  const sb = await createSandbox(engine.url);
  const before = await stockOf(engine.running, sb.id, 'var_0003');
  const res = await sb.api('/api/v1/orders', {
    body: {
      customerId: 'cus_0003',
      items: [
        { variantId: 'var_0003', quantity: 2 },
        { variantId: 'var_0003', quantity: 5 },
      ],
      shippingAddress: address,
    },
  });
  assert.equal(res.status, 201);
  assert.equal(res.body.items.length, 2, 'lines are kept as sent');
  assert.equal(await stockOf(engine.running, sb.id, 'var_0003'), before - 7);
  const other = await createSandbox(engine.url);
  assert.equal(await stockOf(engine.running, other.id, 'var_0003'), before, "another sandbox's stock is its own");
});

test('city and district are trimmed; 100 characters and 100 items are accepted', async () => {
  const sb = await createSandbox(engine.url);
  const items = Array.from({ length: 100 }, () => ({ variantId: 'var_0004', quantity: 1 }));
  const res = await sb.api('/api/v1/orders', {
    body: { customerId: 'cus_0004', items, shippingAddress: { city: '  Ankara ', district: 'ç'.repeat(100) } },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.items.length, 100);
  assert.deepEqual(res.body.shippingAddress, { city: 'Ankara', district: 'ç'.repeat(100) });
  assert.equal(res.body.total, 18990);
});
