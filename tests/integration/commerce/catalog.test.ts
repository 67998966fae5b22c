import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { eventTopics, lastEvent, ok, order, paths } from './helpers.ts';

const engine = useEngine();

const newProduct = (sku = `SKU-${Math.random().toString(36).slice(2, 8)}`) => ({
  name: 'Bakır Cezve',
  category: 'Ev & Yaşam',
  description: 'El yapımı.',
  variants: [
    { sku, name: 'Boy: Orta', price: 449.9, stock: 10 },
    { sku: `${sku}-B`, name: 'Boy: Büyük', price: 519.99, stock: 0 },
  ],
});

test('create → draft (product.created), publish → orderable (product.published), archive → not orderable (product.archived)', async () => {
  const sb = await createSandbox(engine.url);
  const created = ok(await sb.api('/api/v1/products', { body: newProduct() }), 201);
  assert.match(created.id, /^prd_/);
  assert.equal(created.status, 'draft');
  assert.deepEqual(created.variants.map((v: any) => v.price).sort(), [449.9, 519.99]);
  const variantId = created.variants.find((v: any) => v.stock === 10).id;
  const created$ = await lastEvent(sb, 'product.created');
  assert.equal(created$.data.productId, created.id);
  assert.equal(created$.data.variants.length, 2);

  const draftOrder = await sb.api('/api/v1/orders', {
    body: {
      customerId: 'cus_0001',
      items: [{ variantId, quantity: 1 }],
      shippingAddress: { city: 'Bursa', district: 'Nilüfer' },
    },
  });
  problem(draftOrder, 422, 'product_not_available');

  const published = ok(await sb.api(`/api/v1/products/${created.id}/publish`, { method: 'POST' }));
  assert.equal(published.status, 'published');
  assert.ok(published.publishedAt);
  assert.deepEqual((await lastEvent(sb, 'product.published')).data.previousStatus, 'draft');
  await order(sb, [{ variantId, quantity: 2 }]);

  const archived = ok(await sb.api(`/api/v1/products/${created.id}/archive`, { method: 'POST' }));
  assert.equal(archived.status, 'archived');
  assert.equal((await lastEvent(sb, 'product.archived')).data.previousStatus, 'published');
  const refused = problem(
    await sb.api('/api/v1/orders', {
      body: {
        customerId: 'cus_0001',
        items: [{ variantId, quantity: 1 }],
        shippingAddress: { city: 'Bursa', district: 'Nilüfer' },
      },
    }),
    422,
    'product_not_available',
  );
  assert.deepEqual(paths(refused), ['/items/0/variantId']);
  assert.deepEqual(
    (await eventTopics(sb)).filter((t) => t.startsWith('product.')),
    ['product.created', 'product.published', 'product.archived'],
  );
});

test('refused transitions are 409 with the current state; archived products are read-only', async () => {
  const sb = await createSandbox(engine.url);
  const p = ok(await sb.api('/api/v1/products', { body: newProduct() }), 201);
  ok(await sb.api(`/api/v1/products/${p.id}/publish`, { method: 'POST' }));
  const again = problem(await sb.api(`/api/v1/products/${p.id}/publish`, { method: 'POST' }), 409, 'product_published');
  assert.equal(again.currentStatus, 'published');
  ok(await sb.api(`/api/v1/products/${p.id}/archive`, { method: 'POST' }));
  problem(await sb.api(`/api/v1/products/${p.id}/archive`, { method: 'POST' }), 409, 'product_archived');
  problem(
    await sb.api(`/api/v1/products/${p.id}`, { method: 'PATCH', body: { name: 'Yeni' } }),
    409,
    'product_archived',
  );
  problem(
    await sb.api(`/api/v1/variants/${p.variants[0].id}`, { method: 'PATCH', body: { price: 1 } }),
    409,
    'product_archived',
  );
  // An archived product can be published again.
  assert.equal(ok(await sb.api(`/api/v1/products/${p.id}/publish`, { method: 'POST' })).status, 'published');
  assert.equal((await lastEvent(sb, 'product.published')).data.previousStatus, 'archived');
});

test('updates emit product.updated with only what changed, previous and current; no change, no event', async () => {
  const sb = await createSandbox(engine.url);
  const p = ok(await sb.api('/api/v1/products', { body: newProduct() }), 201);
  const updated = ok(
    await sb.api(`/api/v1/products/${p.id}`, {
      method: 'PATCH',
      body: { name: 'Bakır Cezve XL', category: 'Ev & Yaşam' },
    }),
  );
  assert.equal(updated.name, 'Bakır Cezve XL');
  const e = await lastEvent(sb, 'product.updated');
  assert.deepEqual(e.data.changedFields, ['name']);
  assert.deepEqual([e.data.previous.name, e.data.current.name], ['Bakır Cezve', 'Bakır Cezve XL']);

  const v = p.variants.find((x: any) => x.price === 449.9);
  const repriced = ok(await sb.api(`/api/v1/variants/${v.id}`, { method: 'PATCH', body: { price: 0.1, stock: 7 } }));
  assert.equal(repriced.variants.find((x: any) => x.id === v.id).price, 0.1);
  const ve = await lastEvent(sb, 'product.updated');
  assert.deepEqual(ve.data.changedFields, [`variants.${v.id}.price`, `variants.${v.id}.stock`]);
  assert.deepEqual(
    [ve.data.previous[`variants.${v.id}.price`], ve.data.current[`variants.${v.id}.price`]],
    [449.9, 0.1],
  );

  const before = (await eventTopics(sb)).length;
  ok(await sb.api(`/api/v1/products/${p.id}`, { method: 'PATCH', body: { name: 'Bakır Cezve XL' } }));
  assert.equal((await eventTopics(sb)).length, before, 'an update that changes nothing emits nothing');
});

test('validation: 422 with JSON Pointer paths, unknown fields 400, duplicate SKUs 409, unknown vendor 422', async () => {
  const sb = await createSandbox(engine.url);
  const bad = problem(
    await sb.api('/api/v1/products', {
      body: { name: '', category: 'x', variants: [{ sku: 'a b', name: 'x', price: 1.005, stock: -1 }] },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(bad).sort(), ['/name', '/variants/0/price', '/variants/0/sku', '/variants/0/stock']);
  problem(await sb.api('/api/v1/products', { body: { ...newProduct(), colour: 'red' } }), 400, 'unknown_field');
  problem(await sb.api('/api/v1/products', { body: { ...newProduct(), variants: [] } }), 422, 'validation_failed');
  const taken = problem(
    await sb.api('/api/v1/products', {
      body: { ...newProduct(), variants: [{ sku: 'SB-BAKIRCEZVE-0001-1', name: 'x', price: 1, stock: 1 }] },
    }),
    409,
    'sku_taken',
  );
  assert.deepEqual(paths(taken), ['/variants/0/sku']);
  problem(
    await sb.api('/api/v1/products', { body: { ...newProduct(), vendorId: 'ven_nope' } }),
    422,
    'vendor_not_found',
  );
  problem(await sb.api('/api/v1/products?status=sold', {}), 422, 'validation_failed');
  assert.equal(
    (await sb.api('/api/v1/products?limit=100')).body.data.length,
    100,
    'nothing half-created by the refused requests',
  );
});

test('lists page with cursors and filters; another sandbox sees 404', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const first = ok(await a.api('/api/v1/products?limit=30&status=published'));
  assert.equal(first.data.length, 30);
  assert.ok(first.data.every((p: any) => p.status === 'published'));
  const second = ok(await a.api(`/api/v1/products?limit=30&status=published&cursor=${first.nextCursor}`));
  assert.equal(new Set([...first.data, ...second.data].map((p: any) => p.id)).size, 60);
  const mine = ok(await a.api('/api/v1/products', { body: newProduct() }), 201);
  problem(await b.api(`/api/v1/products/${mine.id}`), 404, 'not_found');
  problem(await b.api(`/api/v1/products/${mine.id}/publish`, { method: 'POST' }), 404, 'not_found');
  problem(
    await b.api(`/api/v1/variants/${mine.variants[0].id}`, { method: 'PATCH', body: { stock: 1 } }),
    404,
    'not_found',
  );
});
