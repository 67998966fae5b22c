import { defaultScheme, type SchemeName } from '../shared/schemes.ts';
import type { Topic } from '../shared/topics.ts';

/**
 * The delivery body, serialised once: these exact bytes are signed and sent on every attempt. Its
 * fields follow the endpoint's schemes when the delivery is made: Sandbay's envelope (SPEC §5.2),
 * Standard Webhooks' { type, timestamp, data } (SPEC §11), or during a migration both sets of
 * fields in one body, so receivers on either side of the switch read it (the specification's own
 * advice for migrating payloads).
 */
export function buildEnvelope(input: {
  topic: Topic;
  deliveryId: string;
  tenantId: string;
  occurredAt: Date;
  data: unknown;
  schemes?: readonly SchemeName[];
}): string {
  const schemes = input.schemes ?? [defaultScheme];
  const sandbay = schemes.includes('sandbay');
  const standard = schemes.some((s) => s !== 'sandbay');
  const occurredAt = input.occurredAt.toISOString();
  return JSON.stringify({
    ...(sandbay ? { topic: input.topic, deliveryId: input.deliveryId, tenantId: input.tenantId, occurredAt } : {}),
    ...(standard ? { type: input.topic, timestamp: occurredAt } : {}),
    data: input.data,
  });
}
