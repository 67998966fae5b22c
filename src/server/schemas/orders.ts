import { z } from 'zod';
import { Money, text, Timestamp } from './common.ts';

export const orderStatuses = ['pending_approval', 'placed', 'paid', 'cancelled', 'rejected'] as const;

export const Address = z
  .object({ city: text(100), district: text(100) })
  .strict()
  .meta({ id: 'ShippingAddress' });

export const CreateOrderRequest = z
  .object({
    customerId: z.string().min(1).max(100),
    items: z
      .array(z.object({ variantId: z.string().min(1).max(100), quantity: z.number().int().min(1).max(999) }).strict())
      .min(1, 'At least 1 item.')
      .max(100, 'At most 100 items.'),
    shippingAddress: Address,
  })
  .strict()
  .meta({ id: 'CreateOrderRequest' });

export const OrderItem = z
  .object({
    variantId: z.string(),
    productId: z.string(),
    name: z.string(),
    quantity: z.number().int(),
    unitPrice: Money,
    lineTotal: Money,
  })
  .meta({ id: 'OrderItem' });

export const Order = z
  .object({
    id: z.string(),
    status: z.enum(orderStatuses),
    customerId: z.string(),
    items: z.array(OrderItem),
    total: Money,
    currency: z.string(),
    shippingAddress: Address,
    createdAt: Timestamp,
  })
  .meta({ id: 'Order' });

export const CancelOrderRequest = z
  .object({ reason: z.enum(['requested_by_customer', 'out_of_stock', 'fraudulent', 'other']).optional() })
  .strict()
  .meta({ id: 'CancelOrderRequest' });

export const ListOrdersQuery = z.object({
  status: z.enum(orderStatuses).optional(),
  customerId: z.string().optional(),
});
