import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { placeOrder } from '../../helpers/webhooks.ts';

const engine = useEngine();

test('GET /api/v1/orders: 20 by default, newest first, with an opaque nextCursor', async () => {
  const sb = await createSandbox(engine.url);
  const created = await placeOrder(sb);
  const res = await sb.api('/api/v1/orders');
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body).sort(), ['data', 'nextCursor']);
  assert.equal(res.body.data.length, 20);
  assert.equal(res.body.data[0].id, created.id, 'the newest order first');
  assert.equal(typeof res.body.nextCursor, 'string');
  const times = res.body.data.map((o: any) => o.createdAt);
  assert.deepEqual(times, [...times].sort().reverse());
  assert.ok(
    res.body.data.every((o: any) => Array.isArray(o.items) && o.items.length > 0),
    'items come with each order',
  );
});

test('following nextCursor covers every order exactly once, and the last page says null', async () => {
  const sb = await createSandbox(engine.url);
  await placeOrder(sb);
  await placeOrder(sb);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: any = await sb.api(`/api/v1/orders?limit=37${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.status, 200);
    seen.push(...res.body.data.map((o: any) => o.id));
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor);
  assert.equal(seen.length, 202);
  assert.equal(new Set(seen).size, 202, 'no duplicates');
  assert.equal(pages, 6);
  const full = await sb.api('/api/v1/orders?limit=100');
  assert.equal(full.body.data.length, 100);
});

test('limit must be 1–100 and an integer', async () => {
  const sb = await createSandbox(engine.url);
  for (const limit of ['0', '101', '-1', '1.5', 'ten', '']) {
    const res = problem(await sb.api(`/api/v1/orders?limit=${limit}`), 422, 'validation_failed');
    assert.deepEqual(
      res.errors.map((e: any) => e.path),
      ['/limit'],
      limit,
    );
  }
  assert.equal((await sb.api('/api/v1/orders?limit=1')).body.data.length, 1);
  assert.equal((await sb.api('/api/v1/orders?limit=100')).body.data.length, 100);
});

test('a tampered or foreign cursor is 422, not a wrong page', async () => {
  const sb = await createSandbox(engine.url);
  const cursor: string = (await sb.api('/api/v1/orders?limit=5')).body.nextCursor;
  const [payload, signature] = cursor.split('.');
  const forged = Buffer.from(JSON.stringify(['2030-01-01T00:00:00.000Z', 'ord_9999'])).toString('base64url');
  for (const bad of [
    `${forged}.${signature}`,
    `${payload}.${signature.slice(0, -2)}xx`,
    'garbage',
    `${cursor}.x`,
    '.',
    '%E0%A4%A',
  ]) {
    const res = problem(await sb.api(`/api/v1/orders?cursor=${encodeURIComponent(bad)}`), 422, 'validation_failed');
    assert.deepEqual(
      res.errors.map((e: any) => e.path),
      ['/cursor'],
    );
  }
});

test('status and customerId filter the list; an unknown status is 422', async () => {
  const sb = await createSandbox(engine.url);
  const cancelled = await sb.api('/api/v1/orders?status=cancelled&limit=100');
  assert.equal(cancelled.body.data.length, 10);
  assert.ok(cancelled.body.data.every((o: any) => o.status === 'cancelled'));
  const mine = await sb.api('/api/v1/orders?customerId=cus_0001&limit=100');
  assert.ok(mine.body.data.length > 0 && mine.body.data.every((o: any) => o.customerId === 'cus_0001'));
  const res = problem(await sb.api('/api/v1/orders?status=shipped'), 422, 'validation_failed');
  assert.deepEqual(
    res.errors.map((e: any) => e.path),
    ['/status'],
  );
  problem(await sb.api('/api/v1/orders?status=placed&status=paid'), 422, 'validation_failed');
});

test("lists are per tenant: another sandbox's new order never shows up", async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const order = await placeOrder(b);
  const ids = (await a.api('/api/v1/orders?limit=100')).body.data.map((o: any) => o.id);
  assert.ok(!ids.includes(order.id));
});
