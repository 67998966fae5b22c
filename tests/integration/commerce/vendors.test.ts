import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { lastEvent, ok, paths, variantAt } from './helpers.ts';

const engine = useEngine();

const application = (name: string, iban = 'TR330006100519786457841326') => ({
  name,
  email: `${name.toLowerCase().replace(/\W/g, '')}@example.com.tr`,
  city: 'Konya',
  taxNumber: '1234567890',
  iban,
});

async function approvedVendor(sb: TestSandbox, name: string): Promise<any> {
  const v = ok(await sb.api('/api/v1/vendors', { body: application(name) }), 201);
  return ok(await sb.api(`/api/v1/vendors/${v.id}/approve`, { method: 'POST' }));
}

test('apply → approved → suspended → reinstated, and applied → rejected; refused transitions are 409 vendor_<status>', async () => {
  const sb = await createSandbox(engine.url);
  const v = ok(
    await sb.api('/api/v1/vendors', {
      body: { ...application('Karadeniz Bal'), iban: 'TR33 0006 1005 1978 6457 8413 26' },
    }),
    201,
  );
  assert.deepEqual([v.status, v.iban, v.commissionBps], ['applied', 'TR330006100519786457841326', 1000]);
  assert.equal((await lastEvent(sb, 'vendor.applied')).data.vendorId, v.id);
  problem(await sb.api(`/api/v1/vendors/${v.id}/suspend`, { method: 'POST' }), 409, 'vendor_applied');
  ok(await sb.api(`/api/v1/vendors/${v.id}/approve`, { method: 'POST' }));
  assert.equal((await lastEvent(sb, 'vendor.approved')).data.previousStatus, 'applied');
  problem(await sb.api(`/api/v1/vendors/${v.id}/approve`, { method: 'POST' }), 409, 'vendor_approved');
  problem(await sb.api(`/api/v1/vendors/${v.id}/reject`, { method: 'POST' }), 409, 'vendor_approved');
  const suspended = ok(await sb.api(`/api/v1/vendors/${v.id}/suspend`, { body: { reason: 'Geciken kargolar.' } }));
  assert.deepEqual([suspended.status, suspended.statusReason], ['suspended', 'Geciken kargolar.']);
  assert.equal((await lastEvent(sb, 'vendor.suspended')).data.reason, 'Geciken kargolar.');
  problem(await sb.api(`/api/v1/vendors/${v.id}/suspend`, { method: 'POST' }), 409, 'vendor_suspended');
  ok(await sb.api(`/api/v1/vendors/${v.id}/approve`, { method: 'POST' }));
  assert.equal((await lastEvent(sb, 'vendor.approved')).data.previousStatus, 'suspended');

  const rejected = ok(await sb.api('/api/v1/vendors/ven_0003/reject', { body: { reason: 'Eksik evrak.' } }));
  assert.equal(rejected.status, 'rejected');
  assert.equal((await lastEvent(sb, 'vendor.rejected')).data.reason, 'Eksik evrak.');
  problem(await sb.api('/api/v1/vendors/ven_0003/approve', { method: 'POST' }), 409, 'vendor_rejected');
});

test('the buybox: lowest landed price, then stock, then standing; recomputed on offer and vendor changes', async () => {
  const sb = await createSandbox(engine.url);
  const [a, b] = [await approvedVendor(sb, 'Anka Ticaret'), await approvedVendor(sb, 'Bora Market')];
  const variantId = await variantAt(sb, 120);
  const winner = async () => ok(await sb.api(`/api/v1/variants/${variantId}/buybox`)).winner?.vendorId ?? null;
  const change = async () => (await lastEvent(sb, 'buybox.winner_changed')).data;

  const offerA = ok(
    await sb.api(`/api/v1/vendors/${a.id}/offers`, { body: { variantId, price: 100, shippingFee: 10, stock: 5 } }),
    201,
  );
  assert.deepEqual([offerA.landedPrice, offerA.winsBuybox], [110, true]);
  let e = await change();
  assert.deepEqual(
    [e.reason, e.previous, e.current.vendorId, e.current.landedPrice],
    ['offer_created', null, a.id, 110],
  );

  const offerB = ok(await sb.api(`/api/v1/vendors/${b.id}/offers`, { body: { variantId, price: 105, stock: 5 } }), 201);
  e = await change();
  assert.deepEqual([e.previous.vendorId, e.current.vendorId, e.current.landedPrice], [a.id, b.id, 105]);

  ok(await sb.api(`/api/v1/offers/${offerB.id}`, { method: 'PATCH', body: { stock: 0 } }));
  assert.equal(await winner(), a.id, 'no stock, no buybox');
  ok(await sb.api(`/api/v1/offers/${offerB.id}`, { method: 'PATCH', body: { price: 100, shippingFee: 10, stock: 5 } }));
  assert.equal(await winner(), a.id, 'a full tie keeps the older offer');
  ok(await sb.api(`/api/v1/offers/${offerB.id}`, { method: 'PATCH', body: { stock: 6 } }));
  assert.equal(await winner(), b.id, 'same landed price: more stock wins');
  ok(await sb.api(`/api/v1/offers/${offerB.id}`, { method: 'PATCH', body: { stock: 5 } }));
  assert.equal(await winner(), a.id);
  ok(await sb.api(`/api/v1/vendors/${b.id}`, { method: 'PATCH', body: { standing: 90 } }));
  assert.deepEqual([await winner(), (await change()).reason], [b.id, 'vendor_standing_changed']);

  ok(await sb.api(`/api/v1/vendors/${b.id}/suspend`, { body: { reason: 'İnceleme' } }));
  e = await change();
  assert.deepEqual([e.reason, e.previous.vendorId, e.current.vendorId], ['vendor_suspended', b.id, a.id]);
  assert.equal((await lastEvent(sb, 'vendor.suspended')).data.buyboxesLost, 1);
  ok(await sb.api(`/api/v1/vendors/${b.id}/approve`, { method: 'POST' }));
  assert.deepEqual([await winner(), (await change()).reason], [b.id, 'vendor_reinstated']);
  assert.equal((await sb.api(`/api/v1/offers/${offerB.id}`, { method: 'DELETE' })).status, 204);
  assert.deepEqual([await winner(), (await change()).reason], [a.id, 'offer_removed']);
  ok(await sb.api(`/api/v1/offers/${offerA.id}`, { method: 'PATCH', body: { stock: 0 } }));
  e = await change();
  assert.deepEqual([e.previous.vendorId, e.current, await winner()], [a.id, null, null]);
  const ranked = ok(await sb.api(`/api/v1/variants/${variantId}/buybox`));
  assert.deepEqual(
    ranked.offers.map((o: any) => [o.vendorId, o.eligible]),
    [[a.id, false]],
  );
});

test('offers need an approved vendor and a known variant; one offer per vendor and variant', async () => {
  const sb = await createSandbox(engine.url);
  problem(
    await sb.api('/api/v1/vendors/ven_0003/offers', { body: { variantId: 'var_0001', price: 10, stock: 1 } }),
    409,
    'vendor_applied',
  );
  const v = await approvedVendor(sb, 'Çamlıca Gıda');
  const unknown = problem(
    await sb.api(`/api/v1/vendors/${v.id}/offers`, { body: { variantId: 'var_nope', price: 10, stock: 1 } }),
    422,
    'variant_not_found',
  );
  assert.deepEqual(paths(unknown), ['/variantId']);
  ok(await sb.api(`/api/v1/vendors/${v.id}/offers`, { body: { variantId: 'var_0002', price: 10, stock: 1 } }), 201);
  problem(
    await sb.api(`/api/v1/vendors/${v.id}/offers`, { body: { variantId: 'var_0002', price: 11, stock: 1 } }),
    409,
    'offer_exists',
  );
  const bad = problem(
    await sb.api(`/api/v1/vendors/${v.id}/offers`, {
      body: { variantId: 'var_0003', price: 0, shippingFee: 1.999, stock: -1 },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(bad).sort(), ['/price', '/shippingFee', '/stock']);
  assert.equal(ok(await sb.api(`/api/v1/vendors/${v.id}/offers`)).data.length, 1);
});

test('validation and tenant isolation', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const bad = problem(
    await a.api('/api/v1/vendors', {
      body: { ...application('X'), iban: 'TR330006100519786457841327', taxNumber: '12', email: 'nope' },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(bad).sort(), ['/email', '/iban', '/taxNumber']);
  problem(await a.api('/api/v1/vendors', { body: { ...application('X'), website: 'x' } }), 400, 'unknown_field');
  problem(
    await a.api('/api/v1/vendors/ven_0001', { method: 'PATCH', body: { standing: 101 } }),
    422,
    'validation_failed',
  );
  const v = await approvedVendor(a, 'Sadece A');
  const offer = ok(
    await a.api(`/api/v1/vendors/${v.id}/offers`, { body: { variantId: 'var_0001', price: 1, stock: 1 } }),
    201,
  );
  problem(await b.api(`/api/v1/vendors/${v.id}`), 404, 'not_found');
  problem(await b.api(`/api/v1/vendors/${v.id}/suspend`, { method: 'POST' }), 404, 'not_found');
  problem(await b.api(`/api/v1/offers/${offer.id}`, { method: 'PATCH', body: { stock: 2 } }), 404, 'not_found');
  problem(await b.api(`/api/v1/offers/${offer.id}`, { method: 'DELETE' }), 404, 'not_found');
  assert.equal(ok(await b.api('/api/v1/vendors')).data.length, 3);
});
