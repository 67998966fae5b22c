import {
  productArchivedData,
  productCreatedData,
  productPublishedData,
  productUpdatedData,
  type ProductEventRow,
  type VariantEventRow,
} from '../data/catalog.ts';
import { toMajor } from '../../../shared/money.ts';
import { orderCancelledData, orderPlacedData, type OrderEventRow } from '../data/orders.ts';
import {
  paymentCapturedData,
  paymentRefundedData,
  type PaymentEventRow,
  type RefundEventRow,
} from '../data/payments.ts';
import { newest, type SampleBuilder } from './rows.ts';

type PaymentSample = PaymentEventRow & { created_at: Date };
type ProductSample = ProductEventRow & { updated_at: Date };

const variantsOf = (q: Parameters<SampleBuilder>[0], tenantId: string, productId: string) =>
  q.query<VariantEventRow>('select * from variants where tenant_id = $1 and product_id = $2 order by id', [
    tenantId,
    productId,
  ]);

/** Orders, payments and catalog samples. */
export const commerceSamples = {
  'order.placed': async (q, tenantId) =>
    orderPlacedData(await newest<OrderEventRow>(q, tenantId, 'orders', `t.status <> 'pending_approval'`)),
  'order.cancelled': async (q, tenantId) =>
    orderCancelledData(
      await newest<OrderEventRow>(q, tenantId, 'orders', `t.status = 'cancelled'`),
      'requested_by_customer',
    ),
  'payment.captured': async (q, tenantId) => {
    const p = await newest<PaymentSample>(q, tenantId, 'payments', `t.captured_at is not null`);
    return paymentCapturedData({ ...p, captured_at: p.captured_at ?? p.created_at });
  },
  'payment.refunded': async (q, tenantId) => {
    const r = await newest<RefundEventRow & { payment_id: string }>(q, tenantId, 'refunds', `t.status = 'succeeded'`);
    const [p] = await q.query<PaymentEventRow>('select * from payments where tenant_id = $1 and id = $2', [
      tenantId,
      r.payment_id,
    ]);
    return paymentRefundedData({ ...p, refunded_minor: Math.max(p.refunded_minor, r.amount_minor) }, r);
  },
  'product.created': async (q, tenantId) => {
    const p = await newest<ProductSample>(q, tenantId, 'products');
    return productCreatedData({ ...p, status: 'draft' }, await variantsOf(q, tenantId, p.id));
  },
  'product.updated': async (q, tenantId) => {
    const p = await newest<ProductSample>(q, tenantId, 'products', `t.status <> 'archived'`);
    const [v] = await variantsOf(q, tenantId, p.id);
    // A price cut on its first variant, from 10 % more than today's price.
    const change = v
      ? {
          field: `variants.${v.id}.price`,
          previous: toMajor(Math.round(v.price_minor * 1.1)),
          current: toMajor(v.price_minor),
        }
      : { field: 'name', previous: `${p.name} (eski)`, current: p.name };
    return productUpdatedData(p, [change]);
  },
  'product.published': async (q, tenantId) => {
    const p = await newest<ProductSample>(q, tenantId, 'products', `t.status = 'published'`);
    return productPublishedData(
      { ...p, published_at: p.published_at ?? p.updated_at },
      'draft',
      (await variantsOf(q, tenantId, p.id)).length,
    );
  },
  'product.archived': async (q, tenantId) => {
    const p = await newest<ProductSample>(q, tenantId, 'products', `t.status = 'archived'`);
    return productArchivedData({ ...p, archived_at: p.archived_at ?? p.updated_at }, 'published');
  },
} satisfies Record<string, SampleBuilder>;
