import type { Topic } from '../shared/topics.ts';

export interface Envelope<T = unknown> {
  topic: Topic;
  deliveryId: string;
  tenantId: string;
  occurredAt: string;
  data: T;
}

/** The delivery body (SPEC §5.2), serialised once: these exact bytes are signed and sent on every attempt. */
export function buildEnvelope(input: { topic: Topic; deliveryId: string; tenantId: string; occurredAt: Date; data: unknown }): string {
  const envelope: Envelope = {
    topic: input.topic,
    deliveryId: input.deliveryId,
    tenantId: input.tenantId,
    occurredAt: input.occurredAt.toISOString(),
    data: input.data,
  };
  return JSON.stringify(envelope);
}
