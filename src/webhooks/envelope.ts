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

/**
 * The stored body as an envelope, or a reason why it is none (a row written by another version, a crafted
 * file): the engine quarantines such a delivery rather than send it, and the API shows its raw bytes.
 */
export function storedEnvelope(body: string): { envelope: Record<string, unknown> } | { invalid: string } {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return { envelope: parsed as Record<string, unknown> };
    return { invalid: 'the stored body is not a JSON object' };
  } catch (err) {
    return { invalid: `the stored body is not valid JSON (${(err as Error).message})` };
  }
}
