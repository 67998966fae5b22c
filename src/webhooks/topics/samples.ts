import type { Queryable } from '../../db/database.ts';
import { ApiError } from '../../shared/problem.ts';
import type { Topic } from '../../shared/topics.ts';
import { b2bSamples } from './samples/b2b.ts';
import { commerceSamples } from './samples/commerce.ts';
import { marketplaceSamples } from './samples/marketplace.ts';
import { securitySamples } from './samples/security.ts';
import type { SampleBuilder } from './samples/rows.ts';

/**
 * Builders for test webhooks (SPEC §5.4): realistic `data` made from the tenant's own rows by
 * the same builder functions the real operations call (./data/*), so a sample has exactly the
 * shape the real event has.
 */
const sampleBuilders: Record<Topic, SampleBuilder> = {
  ...commerceSamples,
  ...b2bSamples,
  ...marketplaceSamples,
  ...securitySamples,
};

export async function buildSample(q: Queryable, tenantId: string, topic: Topic, now: Date): Promise<unknown> {
  const builder = sampleBuilders[topic];
  if (!builder) throw new ApiError(422, 'unknown_topic', `No sample for ${topic}.`);
  return builder(q, tenantId, now);
}
