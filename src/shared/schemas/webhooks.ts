import { z } from 'zod';
import { schemeNames } from '../schemes.ts';
import { Timestamp } from './common.ts';

export const SigningScheme = z
  .enum(schemeNames)
  .meta({ id: 'SigningScheme' })
  .describe(
    'sandbay: X-Service-Signature (SPEC §5.2). standard-webhooks: webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256>. ' +
      "standard-webhooks-ed25519: the same headers with v1a,<base64 ed25519>, verified with the endpoint's whpk_ public key.",
  );

/** Why an endpoint is off (endpoints.ts' disabledOf says each in words). */
export const disabledReasons = ['gone', 'user', 'imported'] as const;

export const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    topics: z.array(z.string()),
    description: z.string().nullable(),
    enabled: z.boolean(),
    allowInsecureTls: z.boolean(),
    signature: z.array(SigningScheme).describe('The signing schemes, in the order given'),
    secret: z
      .string()
      .describe('In full on create and rotate; masked otherwise. The HMAC secret of sandbay and standard-webhooks.'),
    publicKey: z
      .string()
      .nullable()
      .describe(
        'standard-webhooks-ed25519: the whpk_ public key receivers verify v1a with (the whsk_ private key never leaves Sandbay); null otherwise',
      ),
    disabled: z
      .object({
        reason: z
          .enum(disabledReasons)
          .describe(
            'gone: the receiver answered 410 Gone; user: turned off with PATCH enabled:false; imported: it came in a sandbox file, which calls nothing until enabled',
          ),
        message: z.string(),
        at: Timestamp,
        deliveryId: z.string().nullable().describe('The delivery answered 410 Gone'),
      })
      .nullable()
      .describe(
        'Why and since when the endpoint is off; null while enabled. PATCH {"enabled": true} turns it back on.',
      ),
    chaos: z
      .object({
        duplicateRate: z.number(),
        reorderWindowMs: z.number().int(),
        delayMs: z.number().int(),
        seed: z.number().int(),
      })
      .nullable()
      .describe('The faults injected into deliveries to this endpoint; null when off'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

export const EnabledEndpoints = z
  .object({
    enabled: z.array(Endpoint).describe('Turned on, oldest first: their pending deliveries resume'),
    refused: z
      .array(z.object({ endpointId: z.string(), url: z.string(), message: z.string() }))
      .describe("Left disabled: the outbound policy refuses their URL (a shared server's rules, SPEC §9)"),
  })
  .meta({ id: 'EnabledWebhookEndpoints' });

export const LiveSecrets = z
  .object({
    data: z.array(
      z.object({
        secret: z.string(),
        createdAt: Timestamp,
        expiresAt: Timestamp.nullable(),
        publicKey: z.string().nullable().describe("This generation's whpk_ key, when standard-webhooks-ed25519 is on"),
      }),
    ),
  })
  .meta({ id: 'WebhookSecrets' });

export const deliveryStatuses = ['pending', 'succeeded', 'dead'] as const;

export const DeliverySummary = z
  .object({
    id: z.string(),
    eventId: z.string(),
    topic: z.string(),
    endpointId: z.string().nullable(),
    url: z.string().nullable(),
    status: z.enum(deliveryStatuses),
    attemptCount: z.number().int(),
    nextAttemptAt: Timestamp.nullable(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    test: z.boolean(),
    check: z
      .object({ id: z.string(), case: z.string() })
      .nullable()
      .describe('The receiver check (run and case) that sent this delivery; null otherwise'),
    paused: z
      .object({ reason: z.literal('endpoint_disabled'), message: z.string(), since: Timestamp })
      .nullable()
      .describe('Why a pending delivery is not being attempted: its endpoint is disabled. null otherwise'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'DeliverySummary' });

export const AttemptChaos = z
  .object({
    duplicate: z.boolean().describe('Chaos sent the delivery again after a 2xx (trigger duplicate)'),
    heldMs: z.number().int().describe('How long chaos held the attempt back: delayMs + reorderMs'),
    delayMs: z.number().int(),
    reorderMs: z.number().int(),
  })
  .meta({ id: 'AttemptChaos' });

export const Attempt = z
  .object({
    number: z.number().int(),
    trigger: z
      .enum(['initial', 'retry', 'replay', 'manual', 'check', 'duplicate'])
      .describe("check: a receiver check's request; duplicate: chaos sent the delivery again"),
    url: z.string(),
    startedAt: Timestamp.describe('Sandbox clock'),
    durationMs: z.number().int(),
    signatureHeader: z.string(),
    responseStatus: z.number().int().nullable(),
    responseHeaders: z.record(z.string(), z.string()),
    responseBody: z.string().describe('First 4 KiB'),
    error: z.string().nullable(),
    chaos: AttemptChaos.nullable().describe("The faults the endpoint's chaos injected; null when none"),
    signature: z.array(SigningScheme).describe('The schemes this attempt was signed with'),
    signatureHeaders: z
      .record(z.string(), z.string())
      .describe('Every signing header the attempt carried, by lowercase name'),
    retryAfter: z
      .object({
        value: z.string().describe('As received: seconds or an HTTP date'),
        delaySeconds: z.number().int().describe('What it asked for, from the end of the attempt'),
        capped: z.boolean().describe('It asked for more than 1 h and got 1 h'),
        applied: z.boolean().describe('It moved the next attempt later than the retry schedule'),
      })
      .nullable()
      .describe('The Retry-After of a 429, 502, 503 or 504 answer; null when none counted'),
    disabledEndpoint: z.boolean().describe('The receiver answered 410 Gone and this attempt disabled the endpoint'),
    traceparent: z
      .string()
      .nullable()
      .describe(
        "The W3C traceparent header the attempt carried: the delivery's trace id and this attempt's span id; " +
          "null for a receiver check's request",
      ),
  })
  .meta({ id: 'Attempt' });

export const Delivery = DeliverySummary.extend({
  envelope: z
    .object({
      topic: z.string().optional(),
      deliveryId: z.string().optional(),
      tenantId: z.string().optional(),
      occurredAt: Timestamp.optional(),
      type: z.string().optional(),
      timestamp: Timestamp.optional(),
      data: z.unknown(),
    })
    .describe(
      "The body parsed: Sandbay's envelope (topic, deliveryId, tenantId, occurredAt, data), Standard Webhooks' (type, timestamp, data), or both",
    ),
  rawBody: z.string().describe('The exact bytes sent and signed on every attempt'),
  traceId: z.string().describe("The delivery's W3C trace id: every attempt is a span of this trace"),
  attempts: z.array(Attempt),
  resentFrom: z
    .object({
      id: z.string(),
      edited: z.boolean().describe('Its data was edited before sending ("edited from"), else resent unchanged'),
      traceId: z.string().describe("That delivery's trace id: this one's first attempt span links to it"),
      spanId: z
        .string()
        .nullable()
        .describe("The span linked to: that delivery's last attempt when this one was made (null: none yet)"),
    })
    .nullable()
    .describe('The delivery this one was resent from (POST …/deliveries/{id}/resend); null otherwise'),
  resentAs: z.array(z.string()).describe('The deliveries resent from this one, oldest first'),
  signedAs: z
    .string()
    .nullable()
    .describe("Sent to a bare URL but signed with this endpoint's keys (a replay to another URL); null otherwise"),
}).meta({ id: 'Delivery' });

export const SignedRequest = z
  .object({
    method: z.literal('POST'),
    url: z.string(),
    headers: z.record(z.string(), z.string()).describe('Every header, the signing ones made now'),
    body: z.string().describe('The exact bytes of every attempt'),
    signedAt: z.number().int().describe('The real-clock second the signatures carry'),
    signature: z.array(SigningScheme),
  })
  .meta({ id: 'SignedRequest' });

export const replayStatuses = ['pending', 'failed', 'succeeded', 'dead'] as const;

export const ReplayFilter = z
  .object({
    statuses: z
      .array(z.enum(replayStatuses))
      .describe('failed: pending after at least one failed attempt (in its retry cycle); pending: any pending'),
    topic: z.string().nullable().describe('A topic or a pattern (order.*, *)'),
    endpointId: z.string().nullable(),
    since: Timestamp.nullable().describe('Created at or after, on the sandbox clock'),
    until: Timestamp.nullable().describe('Created before, on the sandbox clock'),
    ids: z.array(z.string()).nullable().describe("Only these deliveries (the inspector's selected rows)"),
    to: z
      .string()
      .nullable()
      .describe(
        "Sent to this URL instead, as new deliveries signed as the original's endpoint; null: each replayed in place",
      ),
  })
  .meta({ id: 'ReplayFilter' });

export const DlqReplayJob = z
  .object({
    id: z.string(),
    state: z
      .enum(['running', 'completed', 'cancelled', 'interrupted'])
      .describe(
        'interrupted: the engine running it stopped (shut down or crashed); what it did not replay is still dead.',
      ),
    topic: z.string().nullable(),
    endpointId: z.string().nullable(),
    filter: ReplayFilter.nullable().describe(
      'What the job selected; null for a DLQ replay made before filters (dead ones)',
    ),
    total: z.number().int().describe('Deliveries matching the filter when the job started.'),
    done: z.number().int().describe('succeeded + failed + skipped'),
    succeeded: z.number().int(),
    failed: z.number().int(),
    skipped: z
      .number()
      .int()
      .describe('No longer dead when their turn came, already in flight, or their endpoint deleted or disabled.'),
    createdAt: Timestamp.describe('Real time, not sandbox time'),
    updatedAt: Timestamp,
    finishedAt: Timestamp.nullable(),
  })
  .meta({ id: 'DlqReplayJob' });

export const TestWebhookResult = z
  .object({ deliveryId: z.string(), topic: z.string(), endpoint: z.string(), status: z.literal('pending') })
  .meta({ id: 'TestWebhookResult' });

export const Clock = z.object({ now: Timestamp, offsetSeconds: z.number() }).meta({ id: 'SandboxClock' });

/** The clock after an advance, with how many due jobs the advance ran. */
export const AdvancedClock = Clock.extend({
  jobsRun: z.number().int().describe('Due jobs the advance ran on the way'),
});
