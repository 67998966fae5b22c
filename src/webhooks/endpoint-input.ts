import { ApiError } from '../shared/problem.ts';
import type { SchemeName } from '../shared/schemes.ts';
import { didYouMean, suggestPatterns } from '../shared/suggest.ts';
import { isValidPattern } from '../shared/topics.ts';
import type { ChaosSettings } from './chaos.ts';

// What registering or changing an endpoint takes, and the checks and conversions of it the statements share.

export interface EndpointInput {
  url: string;
  topics: string[];
  description?: string | null;
  enabled?: boolean;
  allowInsecureTls?: boolean;
  /** The signing scheme, or several at once during a migration (SPEC §11); default sandbay. */
  signature?: SchemeName | SchemeName[];
  /** Faults to inject (null turns them off); a missing seed is picked at random and shown. */
  chaos?: (Partial<ChaosSettings> & { seed?: number }) | null;
  /** The HMAC secret to sign with (create only); default a new random one. */
  secret?: string;
}

/** Complete chaos settings from what the API was given; all-zero faults are no chaos at all. */
function chaosSettings(input: EndpointInput['chaos']): ChaosSettings | null {
  if (!input) return null;
  const settings = {
    duplicateRate: input.duplicateRate ?? 0,
    reorderWindowMs: input.reorderWindowMs ?? 0,
    delayMs: input.delayMs ?? 0,
    seed: input.seed ?? Math.floor(Math.random() * 2 ** 31),
  };
  return settings.duplicateRate || settings.reorderWindowMs || settings.delayMs ? settings : null;
}

export const chaosJson = (input: EndpointInput['chaos']) => {
  const settings = chaosSettings(input);
  return settings ? JSON.stringify(settings) : null;
};

// Deliveries created from now on have a higher sequence number than any of the tenant's so far.
export const chaosSince = `(select coalesce(max(seq), 0) from deliveries where tenant_id = $1)`;

export function checkTopics(topics: string[]): void {
  const bad = topics.map((t, i) => ({ t, i })).filter(({ t }) => !isValidPattern(t));
  if (bad.length > 0) {
    const each = bad.map(({ t, i }) => ({ t, i, suggestions: suggestPatterns(t) }));
    const suggestions = [...new Set(each.flatMap((b) => b.suggestions))];
    throw new ApiError(
      422,
      'unknown_topic',
      `Unknown topic${bad.length > 1 ? 's' : ''}: ${bad.map((b) => b.t).join(', ')}.${didYouMean(suggestions)} See GET /api/v1/webhooks/topics.`,
      {
        errors: each.map(({ t, i, suggestions: own }) => ({
          path: `/topics/${i}`,
          message: `${t} is not a topic, *, or <category>.*${didYouMean(own).replace(' Did', '; did')}`,
        })),
        extra: { suggestions },
      },
    );
  }
}
