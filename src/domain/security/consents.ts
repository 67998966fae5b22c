import type { Queryable } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { notFound, unknownReference } from '../../shared/problem.ts';
import {
  consentPushDueData,
  type consentChannels,
  type consentSources,
  type ConsentEventRow,
} from '../../webhooks/topics/data/security.ts';
import {
  iso,
  keyset,
  keysetParams,
  scheduleAfterCommit,
  type CommerceDeps,
  type PageOptions,
} from '../commerce/deps.ts';
import { columnJobHandler } from '../commerce/jobs.ts';
import { audit } from './audit.ts';

export const consentPushJob = 'consent.iys_push';
/** Changes are batched for 15 minutes, so a quick opt-in/opt-out pair reaches IYS as one final state. */
const iysBatchMs = 15 * 60_000;

interface ConsentRow extends ConsentEventRow {
  push_due_at: Date | null;
  last_pushed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const toConsent = (c: ConsentRow) => ({
  id: c.id,
  customerId: c.customer_id,
  channel: c.channel,
  recipient: c.recipient,
  status: c.status,
  source: c.source,
  consentAt: c.consent_at.toISOString(),
  iysPush: { status: c.push_due_at ? 'queued' : 'idle', dueAt: iso(c.push_due_at), lastDueAt: iso(c.last_pushed_at) },
  createdAt: c.created_at.toISOString(),
  updatedAt: c.updated_at.toISOString(),
});

export type Consent = ReturnType<typeof toConsent>;

/** One consent record. */
export async function getConsent(q: Queryable, tenantId: string, id: string): Promise<Consent> {
  const [row] = await q.query<ConsentRow>('select * from consents where tenant_id = $1 and id = $2', [tenantId, id]);
  if (!row) throw notFound('consent');
  return toConsent(row);
}

/** Consent records, newest first, by customer or channel. */
export async function listConsents(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { customerId?: string; channel?: string },
): Promise<Consent[]> {
  const k = keyset('c', 5);
  const rows = await q.query<ConsentRow>(
    `select * from consents c where c.tenant_id = $1 and ($3::text is null or c.customer_id = $3) and ($4::text is null or c.channel = $4)
        and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.customerId ?? null, page.channel ?? null, ...keysetParams(page)],
  );
  return rows.map(toConsent);
}

/** E.164 for phones (+905321234567), as IYS identifies recipients. */
const e164 = (phone: string) => phone.replace(/[^\d+]/g, '');

/**
 * Records a customer's commercial-message consent for a channel (granted or revoked). The change
 * queues an IYS push: consent.iys.push_due fires when the batch window ends, carrying the record
 * in IYS's own shape. Consecutive changes inside the window share one push with the latest state.
 */
export async function recordConsent(
  deps: CommerceDeps,
  tenantId: string,
  input: {
    customerId: string;
    channel: (typeof consentChannels)[number];
    status: 'granted' | 'revoked';
    source: (typeof consentSources)[number];
  },
): Promise<{ consent: Consent; created: boolean }> {
  const result = await deps.db.transaction(async (tx) => {
    const [customer] = await tx.query<{ email: string; phone: string | null }>(
      'select email, phone from customers where tenant_id = $1 and id = $2',
      [tenantId, input.customerId],
    );
    if (!customer)
      throw unknownReference('customer_not_found', '/customerId', `No customer ${input.customerId} in this sandbox.`);
    const recipient = input.channel === 'email' ? customer.email : customer.phone && e164(customer.phone);
    if (!recipient)
      throw unknownReference(
        'customer_has_no_phone',
        '/channel',
        `${input.customerId} has no phone number for ${input.channel} consent.`,
      );
    const now = deps.clock.now(tenantId);
    const [row] = await tx.query<ConsentRow & { inserted: boolean }>(
      `insert into consents (tenant_id, id, customer_id, channel, recipient, status, source, consent_at, push_due_at, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $8, $8)
       on conflict (tenant_id, customer_id, channel) do update
         set recipient = $5, status = $6, source = $7, consent_at = $8, updated_at = $8,
             push_due_at = coalesce(consents.push_due_at, $9)
       returning *, (xmax = 0) as inserted`,
      [
        tenantId,
        newId('cns'),
        input.customerId,
        input.channel,
        recipient,
        input.status,
        input.source,
        now,
        new Date(now.getTime() + iysBatchMs),
      ],
    );
    await audit(
      tx,
      tenantId,
      {
        actorId: input.customerId,
        action: `consent.${input.status}`,
        targetId: row.id,
        details: { channel: input.channel, source: input.source },
      },
      now,
    );
    await scheduleAfterCommit(tx, deps, consentPushJob, tenantId, row.id, row.push_due_at!);
    return { id: row.id, created: row.inserted };
  });
  return { consent: await getConsent(deps.db, tenantId, result.id), created: result.created };
}

/** The queued push falls due: consent.iys.push_due with the IYS record, and the queue is cleared. */
export const consentPushHandler = (deps: CommerceDeps) =>
  columnJobHandler(deps, {
    kind: consentPushJob,
    table: 'consents',
    column: 'push_due_at',
    pending: 'true',
    async run(tx, tenantId, id, asOf) {
      const [row] = await tx.query<ConsentRow>(
        'update consents set push_due_at = null, last_pushed_at = push_due_at where tenant_id = $1 and id = $2 returning *',
        [tenantId, id],
      );
      await deps.events.emit(tx, tenantId, 'consent.iys.push_due', consentPushDueData(row, row.last_pushed_at!), {
        occurredAt: asOf,
      });
    },
  });
