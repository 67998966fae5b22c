import type { Queryable, Tx } from '../db/database.ts';
import { newId } from '../shared/ids.ts';
import { patternMatches, type Topic } from '../shared/topics.ts';
import { buildEnvelope } from './envelope.ts';

/** A delivery as committed, with what the dispatcher needs to send it without a read. */
export interface QueuedDelivery {
  tenantId: string;
  id: string;
  endpointId: string | null;
  targetUrl: string | null;
  topic: Topic;
  body: string;
  /** Sandbox time the next attempt is due, epoch ms. */
  dueAt: number;
}

export interface EmitOptions {
  /** Sandbox time of the event; defaults to the caller's sandbox now. */
  occurredAt: Date;
  /** A test webhook: one delivery to this target instead of the fan-out. */
  target?: { endpointId: string | null; url: string | null };
}

/**
 * The transactional outbox (DESIGN.md): an event and one delivery per subscribed endpoint
 * are inserted in the caller's transaction; the dispatcher hears of them only after commit,
 * so nothing is sent for a change that rolled back and nothing committed is lost.
 */
export class Outbox {
  constructor(private readonly onCommitted: (deliveries: QueuedDelivery[]) => void) {}

  async emit(tx: Tx, tenantId: string, topic: Topic, data: unknown, options: EmitOptions): Promise<{ eventId: string; deliveries: QueuedDelivery[] }> {
    const eventId = newId('evt');
    const occurredAt = options.occurredAt;
    await tx.query('insert into events (tenant_id, id, topic, occurred_at, data, test) values ($1, $2, $3, $4, $5, $6)', [
      tenantId, eventId, topic, occurredAt, JSON.stringify(data), Boolean(options.target),
    ]);
    const targets = options.target ? [options.target] : await subscribedEndpoints(tx, tenantId, topic);
    const deliveries = targets.map((target): QueuedDelivery => {
      const id = newId('dlv');
      return {
        tenantId, id, endpointId: target.endpointId, targetUrl: target.url, topic,
        body: buildEnvelope({ topic, deliveryId: id, tenantId, occurredAt, data }), dueAt: occurredAt.getTime(),
      };
    });
    if (deliveries.length > 0) {
      const params: unknown[] = [tenantId, eventId, topic, occurredAt];
      const rows = deliveries.map((d) => {
        params.push(d.id, d.endpointId, d.targetUrl, d.body);
        const n = params.length;
        return `($1, $${n - 3}, $2, $${n - 2}, $${n - 1}, $3, 'pending', $${n}, $4, $4, $4)`;
      });
      await tx.query(
        `insert into deliveries (tenant_id, id, event_id, endpoint_id, target_url, topic, status, body, next_attempt_at, created_at, updated_at)
         values ${rows.join(', ')}`,
        params,
      );
      tx.afterCommit(() => this.onCommitted(deliveries));
    }
    return { eventId, deliveries };
  }
}

async function subscribedEndpoints(q: Queryable, tenantId: string, topic: Topic) {
  const rows = await q.query<{ id: string; topics: string[] }>('select id, topics from webhook_endpoints where tenant_id = $1', [tenantId]);
  return rows.filter((r) => r.topics.some((p) => patternMatches(p, topic))).map((r) => ({ endpointId: r.id, url: null }));
}
