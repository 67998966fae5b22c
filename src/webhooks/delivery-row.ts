import type { Topic } from '../shared/topics.ts';
import type { DeliveryState } from './delivery-state.ts';
import { originColumns, resentFromOf, type OriginRow } from './outbox.ts';

/**
 * A delivery's columns that make its DeliveryState: what a claim returns (./leases.ts) and what a read of the state
 * selects, one row type for both.
 */
export interface DeliveryRow extends OriginRow {
  tenant_id: string;
  id: string;
  endpoint_id: string | null;
  target_url: string | null;
  topic: Topic;
  body: string;
  wire_id: string | null;
  attempt_count: number;
  cycle_attempts: number;
}

/** DeliveryRow's columns, of the table under `alias`. */
export const deliveryColumns = (alias: string) =>
  ['tenant_id', 'id', 'endpoint_id', 'target_url', 'topic', 'body', 'wire_id', 'attempt_count', 'cycle_attempts']
    .map((c) => `${alias}.${c}`)
    .concat(originColumns(`${alias}.`))
    .join(', ');

export const toState = (r: DeliveryRow): DeliveryState => ({
  tenantId: r.tenant_id,
  id: r.id,
  endpointId: r.endpoint_id,
  targetUrl: r.target_url,
  topic: r.topic,
  body: r.body,
  wireId: r.wire_id,
  signingEndpointId: r.signing_endpoint_id,
  resentFrom: resentFromOf(r),
  attemptCount: r.attempt_count,
  cycleAttempts: r.cycle_attempts,
});
