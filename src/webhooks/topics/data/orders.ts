import { z } from 'zod';
import { toMajor } from '../../../shared/money.ts';
import { currency, money } from './common.ts';

export const cancelReasons = ['requested_by_customer', 'out_of_stock', 'fraudulent', 'other'] as const;

/** Fixed by SPEC §5.2. */
export const OrderPlaced = z.object({ orderId: z.string(), total: money, currency, customerId: z.string() });
export const OrderCancelled = OrderPlaced.extend({ reason: z.enum(cancelReasons) });

export interface OrderEventRow {
  id: string;
  total_minor: number;
  currency: string;
  customer_id: string;
}

export const orderPlacedData = (o: OrderEventRow): z.output<typeof OrderPlaced> => ({
  orderId: o.id,
  total: toMajor(o.total_minor),
  currency: o.currency,
  customerId: o.customer_id,
});

export const orderCancelledData = (
  o: OrderEventRow,
  reason: (typeof cancelReasons)[number],
): z.output<typeof OrderCancelled> => ({
  ...orderPlacedData(o),
  reason,
});
