import type { Queryable, Tx } from '../db/database.ts';
import { newId } from '../shared/ids.ts';
import type { SchemeName } from '../shared/schemes.ts';
import { patternMatches, type Topic } from '../shared/topics.ts';
import { buildEnvelope } from './envelope.ts';
import { dueChannel } from './claim-loop.ts';
import type { DeliveryLeases } from './leases.ts';
import { monotonicNow } from '../shared/monotonic.ts';

/**
 * What one emit committed, for the pruner: its deliveries, and the sandbox's count since its last prune before them.
 */
export interface Committed {
  deliveries: QueuedDelivery[];
  unpruned: number;
}

/** A delivery as committed, with what the dispatcher needs to send it without a read. */
export interface QueuedDelivery {
  tenantId: string;
  id: string;
  endpointId: string | null;
  targetUrl: string | null;
  topic: Topic;
  body: string;
  /** The deliveryId the receiver sees when it is not `id`: a resend that kept the original's (migration 130). */
  wireId?: string | null;
  /** A bare-URL delivery signed as this endpoint (a replay to another URL, migration 150); null: the test secret. */
  signingEndpointId?: string | null;
  /** The delivery it was resent from, and that one's last attempt then: its first attempt's span links there. */
  resentFrom?: ResentFrom | null;
  /** Sandbox time the next attempt is due, epoch ms. */
  dueAt: number;
  /**
   * When (this engine's monotonic ms, just before: src/shared/monotonic.ts) it was leased to this engine for its
   * first attempt at insert, so it goes out at COMMIT with no claim; null when it was not.
   */
  leasedAt: number | null;
  /** Its first attempt is made by whoever emitted it (a replay job counting outcomes), not at COMMIT. */
  attemptedByCaller?: boolean;
}

/** The delivery a resend was made from, and its last attempt number then (null when unknown or none). */
export interface ResentFrom {
  id: string;
  attempt: number | null;
}

/** The columns originColumns() reads. */
export interface OriginRow {
  signing_endpoint_id: string | null;
  resent_from: string | null;
  resent_from_attempt: number | null;
}

/** A delivery row's resend origin (migrations 130, 150). */
export const resentFromOf = (r: OriginRow) =>
  r.resent_from ? { id: r.resent_from, attempt: r.resent_from_attempt } : null;

/** The columns resentFromOf and a delivery's signing read, for the statements that load one. */
export const originColumns = (d: string) => `${d}signing_endpoint_id, ${d}resent_from, ${d}resent_from_attempt`;

/**
 * Where a delivery goes; `enabled` is known for subscribed endpoints (a test target is attempted as if
 * enabled); `signature` is the endpoint's schemes, which shape the body (a bare URL gets Sandbay's).
 */
export interface Target {
  endpointId: string | null;
  url: string | null;
  /** With `url`: sign as this endpoint, with its keys at each attempt (a replay to another URL). */
  signingEndpointId?: string | null;
  enabled?: boolean;
  signature?: SchemeName[];
}

export interface EmitOptions {
  /** Sandbox time of the event; defaults to the caller's sandbox now. */
  occurredAt: Date;
  /** A test webhook: one delivery to this target instead of the fan-out. */
  target?: Target;
  /**
   * A resend (issue 31): the delivery to `target` is made from another one, within its event unless the data was
   * edited.
   */
  resend?: ResendOf;
  /** The caller makes the first attempt itself (Dispatcher.attemptNew), to learn its outcome. */
  attemptedByCaller?: boolean;
}

/** What a resend keeps of the delivery it is made from. */
interface ResendOf {
  from: string;
  /** The original's last attempt number when the resend was made (0: none yet). */
  fromAttempt: number;
  /** Sandbox now: the resend is made and due now, while its envelope keeps the event's occurredAt. */
  at: Date;
  edited: boolean;
  /** The original's event, when the data is unchanged (an edited resend is a new, test event). */
  eventId?: string;
  /** The original's deliveryId, kept in the envelope and headers to test the receiver's idempotency. */
  wireId?: string;
}

/**
 * The transactional outbox (DESIGN.md): an event and one delivery per subscribed endpoint
 * are inserted in the caller's transaction; the dispatcher hears of them only after commit,
 * so nothing is sent for a change that rolled back and nothing committed is lost.
 */
export class Outbox {
  constructor(
    private readonly onCommitted: (committed: Committed) => void,
    private readonly leases?: DeliveryLeases,
  ) {}

  async emit(
    tx: Tx,
    tenantId: string,
    topic: Topic,
    data: unknown,
    options: EmitOptions,
  ): Promise<{ eventId: string; deliveries: QueuedDelivery[] }> {
    const { resend } = options;
    const eventId = resend?.eventId ?? newId('evt');
    const occurredAt = options.occurredAt;
    // The pruner's count comes along (one index probe in the same statement): deliveries since the last prune.
    const unprunedSql = '(select deliveries - pruned_at from list_counters where tenant_id = $1)::int as unpruned';
    const [{ unpruned }] = resend?.eventId
      ? await tx.query<{ unpruned: number | null }>(`select ${unprunedSql}`, [tenantId])
      : await tx.query<{ unpruned: number | null }>(
          `insert into events (tenant_id, id, topic, occurred_at, data, test) values ($1, $2, $3, $4, $5, $6) returning ${unprunedSql}`,
          [tenantId, eventId, topic, occurredAt, JSON.stringify(data), Boolean(options.target)],
        );
    const targets = options.target ? [options.target] : await subscribedEndpoints(tx, tenantId, topic);
    const disabled = new Set(targets.filter((t) => t.enabled === false).map((t) => t.endpointId));
    const deliveries = targets.map((target): QueuedDelivery => {
      const id = newId('dlv');
      const deliveryId = resend?.wireId ?? id;
      return {
        tenantId,
        id,
        wireId: resend?.wireId ?? null,
        signingEndpointId: target.signingEndpointId ?? null,
        resentFrom: resend ? { id: resend.from, attempt: resend.fromAttempt } : null,
        endpointId: target.endpointId,
        targetUrl: target.url,
        topic,
        body: buildEnvelope({ topic, deliveryId, tenantId, occurredAt, data, schemes: target.signature }),
        dueAt: (resend?.at ?? occurredAt).getTime(),
        leasedAt: null,
        attemptedByCaller: options.attemptedByCaller,
      };
    });
    if (deliveries.length > 0) {
      const params: unknown[] = [
        tenantId,
        eventId,
        topic,
        resend?.at ?? occurredAt,
        resend?.from ?? null,
        resend?.edited ?? null,
        resend?.fromAttempt ?? null,
      ];
      const rows = deliveries.map((d) => {
        params.push(d.id, d.endpointId, d.targetUrl, d.body, d.wireId, d.signingEndpointId);
        const n = params.length;
        return `($1, $${n - 5}, $2, $${n - 4}, $${n - 3}, $3, 'pending', $${n - 2}, $4, $4, $4, $5, $6, $${n - 1}, $${n}, $7)`;
      });
      await tx.query(
        `insert into deliveries (tenant_id, id, event_id, endpoint_id, target_url, topic, status, body, next_attempt_at, created_at, updated_at,
           resent_from, resend_edited, wire_id, signing_endpoint_id, resent_from_attempt)
         values ${rows.join(', ')}`,
        params,
      );
      const open = deliveries.filter((d) => !disabled.has(d.endpointId));
      await this.leaseFirstAttempts(tx, tenantId, open);
      // Deliveries no lease was taken on (their endpoint was full) are claimed by whichever engine hears first.
      if (open.some((d) => d.leasedAt === null)) await tx.notify(dueChannel, JSON.stringify({ tenantId }));
      tx.afterCommit(() => this.onCommitted({ deliveries, unpruned: unpruned ?? 0 }));
    }
    return { eventId, deliveries };
  }

  /** Leases each target's new deliveries to this engine as far as its endpoint has room (SPEC §5.2's ten). */
  private async leaseFirstAttempts(tx: Tx, tenantId: string, deliveries: QueuedDelivery[]): Promise<void> {
    if (!this.leases) return;
    const byTarget = new Map<string, QueuedDelivery[]>();
    for (const d of deliveries) {
      const key = d.endpointId ?? `url:${d.targetUrl}`;
      byTarget.set(key, [...(byTarget.get(key) ?? []), d]);
    }
    for (const group of byTarget.values()) {
      const leasedAt = monotonicNow();
      const leased = await this.leases.leaseNew(
        tx,
        tenantId,
        group[0].endpointId,
        group[0].targetUrl,
        group.map((d) => d.id),
      );
      for (const d of group) if (leased.has(d.id)) d.leasedAt = leasedAt;
    }
  }
}

async function subscribedEndpoints(q: Queryable, tenantId: string, topic: Topic): Promise<Target[]> {
  const rows = await q.query<{ id: string; topics: string[]; enabled: boolean; signature: SchemeName[] }>(
    'select id, topics, enabled, signature from webhook_endpoints where tenant_id = $1',
    [tenantId],
  );
  return rows
    .filter((r) => r.topics.some((p) => patternMatches(p, topic)))
    .map((r) => ({ endpointId: r.id, url: null, enabled: r.enabled, signature: r.signature }));
}
