import assert from 'node:assert/strict';
import type { TestSandbox } from '../../helpers/engine.ts';

/** A card that always succeeds, unless a test number says otherwise. */
export const card = (number = '4242424242424242', extra: Record<string, unknown> = {}) => ({
  number,
  expMonth: 12,
  expYear: 2034,
  cvc: '123',
  ...extra,
});

/** Places an order for a B2C customer and returns it. */
export async function order(
  sb: TestSandbox,
  items: { variantId: string; quantity: number }[] = [{ variantId: 'var_0001', quantity: 1 }],
  customerId = 'cus_0001',
) {
  const res = await sb.api('/api/v1/orders', {
    body: { customerId, items, shippingAddress: { city: 'İstanbul', district: 'Kadıköy' } },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** Pays an order with a card number; returns the raw response. */
export const pay = (
  sb: TestSandbox,
  orderId: string,
  number = '4242424242424242',
  extra: Record<string, unknown> = {},
) => sb.api('/api/v1/payments', { body: { orderId, card: card(number), ...extra } });

/** Sends a new quote that expires in a day (a due job of the sandbox's); returns it as sent, with expiresAt. */
export async function sendExpiringQuote(sb: TestSandbox): Promise<any> {
  const quote = ok(
    await sb.api('/api/v1/quotes', {
      body: {
        customerId: 'cus_0001',
        items: [{ variantId: 'var_0001', quantity: 1 }],
        shippingAddress: { city: 'Van', district: 'Tuşba' },
        validDays: 1,
      },
    }),
    201,
  );
  return ok(await sb.api(`/api/v1/quotes/${quote.id}/send`, { method: 'POST' }));
}

/** Asserts a 2xx and returns the body. */
export function ok(res: { status: number; body: any }, status = 200): any {
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body;
}

/** The JSON Pointer paths of a 422's errors. */
export const paths = (body: any): string[] => body.errors.map((e: any) => e.path);

/** The topics of the sandbox's events, oldest first (events are listed newest first). */
export async function eventTopics(sb: TestSandbox): Promise<string[]> {
  const res = await sb.api('/api/v1/events?limit=100');
  return res.body.data.map((e: any) => e.topic).reverse();
}

/** The newest event of a topic, with its data. */
export async function lastEvent(sb: TestSandbox, topic: string): Promise<any> {
  const res = await sb.api(`/api/v1/events?limit=1&topic=${topic}`);
  assert.equal(res.body.data.length, 1, `an event ${topic}`);
  return res.body.data[0];
}

export async function advance(sb: TestSandbox, seconds: number) {
  return ok(await sb.api('/api/v1/sandbox/clock/advance', { body: { seconds } }));
}

/** A published product with one variant at `price` and `stock`; returns the variant id. */
export async function variantAt(sb: TestSandbox, price: number, stock = 50): Promise<string> {
  const sku = `T-${Math.random().toString(36).slice(2, 10)}`;
  const p = ok(
    await sb.api('/api/v1/products', {
      body: { name: `Test ${sku}`, category: 'Test', variants: [{ sku, name: 'Tek', price, stock }] },
    }),
    201,
  );
  ok(await sb.api(`/api/v1/products/${p.id}/publish`, { method: 'POST' }));
  return p.variants[0].id;
}

/** A variant's stock on hand. */
export async function stockOf(sb: TestSandbox, variantId: string): Promise<number> {
  const buybox = ok(await sb.api(`/api/v1/variants/${variantId}/buybox`));
  const product = ok(await sb.api(`/api/v1/products/${buybox.productId}`));
  return product.variants.find((v: any) => v.id === variantId).stock;
}
