import type { Queryable, Tx } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { toMajor } from '../../shared/money.ts';
import { notFound, illegalTransition, unknownReference } from '../../shared/problem.ts';
import type { Topic } from '../../shared/topics.ts';
import {
  quoteAcceptedData,
  quoteConvertedData,
  quoteExpiredData,
  quoteRejectedData,
  quoteSentData,
  type QuoteEventRow,
} from '../../webhooks/topics/data/quotes.ts';
import {
  cancelAfterCommit,
  iso,
  keyset,
  keysetParams,
  scheduleAfterCommit,
  type CommerceDeps,
  type PageOptions,
} from '../commerce/deps.ts';
import { columnJobHandler } from '../commerce/jobs.ts';
import { placeOrder } from '../orders/orders.ts';

export const quoteExpiryJob = 'quote.expire';

export interface NewQuote {
  customerId: string;
  items: { variantId: string; quantity: number; unitPriceMinor?: number }[];
  shippingAddress: { city: string; district: string };
  note?: string;
  validDays?: number;
}

interface QuoteRow extends QuoteEventRow {
  status: string;
  city: string;
  district: string;
  note: string | null;
  valid_days: number;
  sent_at: Date | null;
  decided_at: Date | null;
  created_at: Date;
  items:
    | { variantId: string; productId: string; name: string; quantity: number; unitPrice: number; lineTotal: number }[]
    | null;
}

const select = `
  select q.*, (select json_agg(json_build_object('variantId', i.variant_id, 'productId', i.product_id, 'name', i.name, 'quantity', i.quantity,
                 'unitPrice', i.unit_price_minor, 'lineTotal', i.line_total_minor) order by i.position)
                 from quote_items i where i.tenant_id = q.tenant_id and i.quote_id = q.id) as items
    from quotes q`;

const toQuote = (q: QuoteRow) => ({
  id: q.id,
  customerId: q.customer_id,
  status: q.status,
  items: (q.items ?? []).map((i) => ({ ...i, unitPrice: toMajor(i.unitPrice), lineTotal: toMajor(i.lineTotal) })),
  total: toMajor(q.total_minor),
  currency: q.currency,
  shippingAddress: { city: q.city, district: q.district },
  note: q.note,
  validDays: q.valid_days,
  sentAt: iso(q.sent_at),
  expiresAt: iso(q.expires_at),
  decidedAt: iso(q.decided_at),
  decisionReason: q.decision_reason,
  orderId: q.order_id,
  createdAt: q.created_at.toISOString(),
  updatedAt: q.updated_at.toISOString(),
});

export type Quote = ReturnType<typeof toQuote>;

/** One quote with its items. */
export async function getQuote(q: Queryable, tenantId: string, id: string): Promise<Quote> {
  const [row] = await q.query<QuoteRow>(`${select} where q.tenant_id = $1 and q.id = $2`, [tenantId, id]);
  if (!row) throw notFound('quote');
  return toQuote(row);
}

/** Quotes, newest first, by status or customer. */
export async function listQuotes(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { status?: string; customerId?: string },
): Promise<Quote[]> {
  const k = keyset('q', 5);
  const rows = await q.query<QuoteRow>(
    `${select} where q.tenant_id = $1 and ($3::text is null or q.status = $3) and ($4::text is null or q.customer_id = $4)
        and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.status ?? null, page.customerId ?? null, ...keysetParams(page)],
  );
  return rows.map(toQuote);
}

/** A draft quote: the catalog price of each item unless a negotiated unitPrice is given. */
export async function createQuote(deps: CommerceDeps, tenantId: string, input: NewQuote): Promise<Quote> {
  const id = newId('quo');
  await deps.db.transaction(async (tx) => {
    const [customer] = await tx.query('select 1 from customers where tenant_id = $1 and id = $2', [
      tenantId,
      input.customerId,
    ]);
    if (!customer)
      throw unknownReference('customer_not_found', '/customerId', `No customer ${input.customerId} in this sandbox.`);
    const variants = await tx.query<{
      id: string;
      product_id: string;
      name: string;
      product_name: string;
      price_minor: number;
    }>(
      `select v.id, v.product_id, v.name, p.name as product_name, v.price_minor from variants v
         join products p on p.tenant_id = v.tenant_id and p.id = v.product_id where v.tenant_id = $1 and v.id = any($2)`,
      [tenantId, input.items.map((i) => i.variantId)],
    );
    const byId = new Map(variants.map((v) => [v.id, v]));
    const lines = input.items.map((item, position) => {
      const v = byId.get(item.variantId);
      if (!v)
        throw unknownReference(
          'variant_not_found',
          `/items/${position}/variantId`,
          `No variant ${item.variantId} in this sandbox.`,
        );
      const unit = item.unitPriceMinor ?? v.price_minor;
      return [
        position,
        v.id,
        v.product_id,
        `${v.product_name} (${v.name})`,
        item.quantity,
        unit,
        unit * item.quantity,
      ] as const;
    });
    const now = deps.clock.now(tenantId);
    await tx.query(
      `insert into quotes (tenant_id, id, customer_id, status, total_minor, currency, city, district, note, valid_days, created_at, updated_at)
       values ($1, $2, $3, 'draft', $4, 'TRY', $5, $6, $7, $8, $9, $9)`,
      [
        tenantId,
        id,
        input.customerId,
        lines.reduce((sum, l) => sum + l[6], 0),
        input.shippingAddress.city,
        input.shippingAddress.district,
        input.note ?? null,
        input.validDays ?? 14,
        now,
      ],
    );
    await tx.query(
      `insert into quote_items (tenant_id, quote_id, position, variant_id, product_id, name, quantity, unit_price_minor, line_total_minor)
       select $1, $2, l.* from unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::bigint[], $9::bigint[]) as l`,
      [tenantId, id, ...[0, 1, 2, 3, 4, 5, 6].map((k) => lines.map((l) => l[k]))],
    );
  });
  return getQuote(deps.db, tenantId, id);
}

/**
 * One step of the quote's state machine, locked: refuses (409 quote_<status>) unless the quote
 * is in `from`, applies `set`, and emits `topic` with the builder's data.
 */
async function step(
  deps: CommerceDeps,
  tenantId: string,
  id: string,
  spec: {
    from: string;
    to: string;
    action: string;
    topic: Topic;
    data: (q: QuoteEventRow) => unknown;
    set?: string;
    params?: unknown[];
  },
  before?: (tx: Tx, q: QuoteRow, now: Date) => Promise<unknown[] | void>,
): Promise<Quote> {
  await deps.db.transaction(async (tx) => {
    const [q] = await tx.query<QuoteRow>(`${select} where q.tenant_id = $1 and q.id = $2 for update of q`, [
      tenantId,
      id,
    ]);
    if (!q) throw notFound('quote');
    if (q.status !== spec.from) throw illegalTransition('quote', q.status, spec.action);
    const now = deps.clock.now(tenantId);
    const extra = (await before?.(tx, q, now)) ?? spec.params ?? [];
    const [after] = await tx.query<QuoteEventRow>(
      `update quotes set status = $3, updated_at = $4::timestamptz${spec.set ? `, ${spec.set}` : ''} where tenant_id = $1 and id = $2 returning *`,
      [tenantId, id, spec.to, now, ...extra],
    );
    await deps.events.emit(tx, tenantId, spec.topic, spec.data(after), { occurredAt: now });
    if (spec.to === 'sent') await scheduleAfterCommit(tx, deps, quoteExpiryJob, tenantId, id, after.expires_at!);
    if (spec.from === 'sent') cancelAfterCommit(tx, deps, quoteExpiryJob, tenantId, id);
  });
  return getQuote(deps.db, tenantId, id);
}

/** draft → sent: the customer has validDays to decide; quote.sent. */
export const sendQuote = (deps: CommerceDeps, tenantId: string, id: string) =>
  step(deps, tenantId, id, {
    from: 'draft',
    to: 'sent',
    action: 'send',
    topic: 'quote.sent',
    data: quoteSentData,
    set: `sent_at = $4, expires_at = $4 + make_interval(days => valid_days)`,
  });

/** sent → accepted (quote.accepted). */
export const acceptQuote = (deps: CommerceDeps, tenantId: string, id: string) =>
  step(deps, tenantId, id, {
    from: 'sent',
    to: 'accepted',
    action: 'accept',
    topic: 'quote.accepted',
    data: quoteAcceptedData,
    set: 'decided_at = $4',
  });

/** sent → rejected, with an optional reason (quote.rejected). */
export const rejectQuote = (deps: CommerceDeps, tenantId: string, id: string, reason?: string) =>
  step(deps, tenantId, id, {
    from: 'sent',
    to: 'rejected',
    action: 'reject',
    topic: 'quote.rejected',
    data: quoteRejectedData,
    set: 'decided_at = $4, decision_reason = $5',
    params: [reason ?? null],
  });

/**
 * accepted → converted: places the order at the quoted prices in the same transaction (order.placed and
 * quote.converted).
 */
export const convertQuote = (deps: CommerceDeps, tenantId: string, id: string) =>
  step(
    deps,
    tenantId,
    id,
    {
      from: 'accepted',
      to: 'converted',
      action: 'convert',
      topic: 'quote.converted',
      data: quoteConvertedData,
      set: 'order_id = $5',
    },
    async (tx, q) => {
      const items = q.items ?? [];
      const order = await placeOrder(
        tx,
        deps,
        tenantId,
        {
          customerId: q.customer_id,
          items: items.map((i) => ({ variantId: i.variantId, quantity: i.quantity })),
          shippingAddress: { city: q.city, district: q.district },
        },
        { unitPriceMinor: new Map(items.map((i) => [i.variantId, i.unitPrice])) },
      );
      return [order.id];
    },
  );

/** Sent quotes expire at expires_at on the sandbox clock (quote.expired). */
export const quoteExpiryHandler = (deps: CommerceDeps) =>
  columnJobHandler(deps, {
    kind: quoteExpiryJob,
    table: 'quotes',
    column: 'expires_at',
    pending: `status = 'sent'`,
    async run(tx, tenantId, id, asOf) {
      const [after] = await tx.query<QuoteEventRow>(
        `update quotes set status = 'expired', updated_at = $3 where tenant_id = $1 and id = $2 returning *`,
        [tenantId, id, asOf],
      );
      await deps.events.emit(tx, tenantId, 'quote.expired', quoteExpiredData(after), { occurredAt: asOf });
    },
  });
