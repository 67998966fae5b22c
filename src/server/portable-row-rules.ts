import { z } from 'zod';
import type { DomainRules } from '../domain/sandboxes/portable/row-rules.ts';
import { jsonPointer } from '../shared/json-pointer.ts';
import type { ApiError, FieldError } from '../shared/problem.ts';
import { keyPrefixes } from '../shared/schemes.ts';
import { isTopic } from '../shared/topics.ts';
import { publicKeyOf } from '../webhooks/endpoint-keys.ts';
import { checkTopics } from '../webhooks/endpoint-input.ts';
import { CatcherName, CatcherRequest } from './schemas/catcher.ts';
import { deliveryStatuses, EndpointChaos, EndpointRequest, httpUrl, SigningScheme } from './schemas/webhooks.ts';

// A sandbox file's rows pass the same zod schemas as the API requests that create them (issue 28): they live
// here, beside the routes' request schemas, and the importer is handed them (src/domain may not import src/server).

const Secret = z.string().regex(new RegExp(`^${keyPrefixes.secret}[A-Za-z0-9+/=]{24,100}$`), 'A whsec_ secret.');
const SigningKey = z.string().refine((key) => {
  try {
    return publicKeyOf(key) !== null;
  } catch {
    return false;
  }
}, 'A whsk_ ed25519 signing key.');
const Schemes = z.array(SigningScheme).min(1).max(10);
const Topic = z.string().refine(isTopic, 'A known topic (GET /api/v1/webhooks/topics).');
/** The faults drawn for a delivery (src/webhooks/chaos.ts): its holds within what an endpoint may ask. */
const hold = EndpointChaos.shape.delayMs.unwrap();
const ChaosDraw = z.object({
  ordinal: z.number().int().min(0),
  duplicate: z.boolean(),
  delayMs: hold,
  reorderMs: hold,
});

/** The API's rules for the columns of rows the engine acts on (made once: a file may hold 100,000 rows). */
const rowSchemas = {
  webhook_secrets: z.object({ secret: Secret.nullable(), signing_key: SigningKey.nullable() }),
  events: z.object({ topic: Topic }),
  deliveries: z.object({
    topic: Topic,
    status: z.enum(deliveryStatuses),
    attempt_count: z.number().int().min(0),
    cycle_attempts: z.number().int().min(0),
    target_url: httpUrl.nullable(),
    chaos: ChaosDraw.nullable(),
  }),
  attempts: z.object({ signature: Schemes, number: z.number().int().min(1) }),
  check_runs: z.object({ url: httpUrl, signature: Schemes }),
  catchers: CatcherName.extend({ mode: CatcherRequest.shape.mode, delay_ms: CatcherRequest.shape.delayMs }),
  dlq_replay_jobs: z.object({ topic: z.union([z.null(), Topic]) }),
};
const bareDelivery = rowSchemas.deliveries.extend({ target_url: httpUrl });

/** Domain rules of the rows the engine acts on: what the API that creates each one accepts. */
export const importDomainRules: DomainRules = {
  webhook_endpoints: (r) => {
    const parsed = EndpointRequest.safeParse({
      url: r.url,
      topics: r.topics,
      description: r.description,
      enabled: r.enabled,
      allowInsecureTls: r.allow_insecure_tls,
      signature: r.signature,
      chaos: r.chaos,
    });
    const column: Record<string, string> = { allowInsecureTls: 'allow_insecure_tls' };
    if (!parsed.success)
      return parsed.error.issues.map((i) => ({
        path: jsonPointer([column[String(i.path[0])] ?? String(i.path[0] ?? ''), ...i.path.slice(1)]),
        message: i.message,
      }));
    try {
      checkTopics(parsed.data.topics);
    } catch (err) {
      return (err as ApiError).options.errors ?? [{ path: '/topics', message: (err as ApiError).detail }];
    }
    return [];
  },
  webhook_secrets: (r) => fieldErrors(rowSchemas.webhook_secrets, r),
  events: (r) => fieldErrors(rowSchemas.events, r),
  // A delivery without an endpoint goes to its own URL: one the API would have taken.
  deliveries: (r) => fieldErrors(r.endpoint_id === null ? bareDelivery : rowSchemas.deliveries, r),
  attempts: (r) => fieldErrors(rowSchemas.attempts, r),
  check_runs: (r) => fieldErrors(rowSchemas.check_runs, r),
  catchers: (r) => fieldErrors(rowSchemas.catchers, r),
  dlq_replay_jobs: (r) => fieldErrors(rowSchemas.dlq_replay_jobs, r),
};

function fieldErrors(schema: z.ZodType, row: Record<string, unknown>): FieldError[] {
  const parsed = schema.safeParse(row);
  return parsed.success ? [] : parsed.error.issues.map((i) => ({ path: jsonPointer(i.path), message: i.message }));
}
