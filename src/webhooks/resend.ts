import type { Db } from '../db/database.ts';
import type { SandboxClock } from '../schedule/clock.ts';
import { ApiError, notFound } from '../shared/problem.ts';
import { isTopic } from '../shared/topics.ts';
import type { Endpoints } from './endpoints.ts';
import type { Outbox, QueuedDelivery, Target } from './outbox.ts';
import { customiseSample, type SampleChanges } from './topics/customise.ts';

/** How a resend changes the original's data, and whether it keeps the original's deliveryId. */
export interface ResendRequest extends SampleChanges {
  /** The whole data, replacing the original's before `data` and `patch` apply (the inspector's editor sends this). */
  editedData?: Record<string, unknown>;
  /**
   * Send the original's deliveryId again (envelope, X-Service-Delivery-Id, webhook-id): the receiver should dedupe it.
   */
  keepDeliveryId?: boolean;
  /**
   * Send it to this URL instead, signed as the original's endpoint (a replay to another URL: the route has checked the
   * URL against the outbound policy).
   */
  to?: string;
}

interface OriginalRow {
  event_id: string;
  endpoint_id: string | null;
  target_url: string | null;
  signing_endpoint_id: string | null;
  attempt_count: number;
  topic: string;
  body: string;
  wire_id: string | null;
  check_id: string | null;
  occurred_at: Date;
  event_data: unknown;
}

const isEdited = (request: ResendRequest) =>
  request.editedData !== undefined || request.data !== undefined || (request.patch?.length ?? 0) > 0;

/**
 * Edit and resend (issue 31): any delivery — pending, succeeded or dead — sent again as a new delivery
 * to the same endpoint (or test URL, or the URL `to`), with its data as edited and checked against the topic's
 * schema (422 naming the path), its envelope built afresh in the endpoint's schemes now, then signed,
 * retried and dead-lettered like any other. The original is left as it was. `attemptedByCaller`: the caller
 * makes the first attempt (Dispatcher.attemptNew), to count its outcome.
 */
export async function resendDelivery(
  deps: { db: Db; clock: SandboxClock; endpoints: Endpoints; outbox: Outbox },
  tenantId: string,
  id: string,
  request: ResendRequest,
  attemptedByCaller = false,
): Promise<QueuedDelivery> {
  const [original] = await deps.db.query<OriginalRow>(
    `select d.event_id, d.endpoint_id, d.target_url, d.signing_endpoint_id, d.attempt_count, d.topic, d.body, d.wire_id, d.check_id, e.occurred_at, e.data as event_data
       from deliveries d join events e on e.tenant_id = d.tenant_id and e.id = d.event_id
      where d.tenant_id = $1 and d.id = $2`,
    [tenantId, id],
  );
  if (!original) throw notFound('delivery');
  if (original.check_id)
    throw new ApiError(
      409,
      'check_delivery',
      `This delivery is a request of receiver check ${original.check_id}, made as its case wanted it; run the check again instead.`,
    );
  const { topic } = original;
  if (!isTopic(topic)) throw notFound('delivery');
  const target = await targetOf(deps.endpoints, tenantId, original, request.to);
  // The data as this delivery sent it (an earlier edit included), not the event's: a resend of a resend keeps its
  // edits.
  const sent = (JSON.parse(original.body) as { data?: unknown }).data ?? original.event_data;
  const edited = isEdited(request);
  const data = edited
    ? customiseSample(topic, request.editedData ?? sent, { data: request.data, patch: request.patch })
    : sent;
  const at = deps.clock.now(tenantId);
  const { deliveries } = await deps.db.transaction((tx) =>
    deps.outbox.emit(tx, tenantId, topic, data, {
      occurredAt: original.occurred_at,
      target,
      attemptedByCaller,
      resend: {
        from: id,
        fromAttempt: original.attempt_count,
        at,
        edited,
        eventId: edited ? undefined : original.event_id,
        wireId: request.keepDeliveryId ? (original.wire_id ?? id) : undefined,
      },
    }),
  );
  return deliveries[0];
}

/**
 * Where the resend goes: the original's endpoint as it is now (schemes included), or its bare URL; to the URL `to`
 * instead, signed as the endpoint the original was sent to or signed as (a test URL's: the webhook test secret).
 */
async function targetOf(endpoints: Endpoints, tenantId: string, original: OriginalRow, to?: string): Promise<Target> {
  const signedAs = original.endpoint_id ?? original.signing_endpoint_id;
  const url = to ?? original.target_url;
  if (!signedAs) return { endpointId: null, url };
  const endpoint = await endpoints.target(tenantId, signedAs);
  if (!endpoint) throw new ApiError(409, 'endpoint_deleted', 'The endpoint of this delivery was deleted.');
  if (to !== undefined || !original.endpoint_id)
    return { endpointId: null, url, signingEndpointId: signedAs, signature: endpoint.signature };
  return { endpointId: signedAs, url: null, enabled: endpoint.enabled, signature: endpoint.signature };
}
