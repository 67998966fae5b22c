import { z } from 'zod';
import { Timestamp } from './common.ts';

export const httpUrl = z
  .string()
  .max(2048, 'At most 2048 characters.')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && Boolean(url.hostname);
    } catch {
      return false;
    }
  }, 'Must be an absolute http(s) URL.');

const hourMs = 3_600_000;

export const EndpointChaos = z
  .object({
    duplicateRate: z.number().min(0).max(1).optional().describe('Probability (0–1) that a delivery answered 2xx is sent once more: same deliveryId, fresh signature, trigger duplicate'),
    reorderWindowMs: z.number().int().min(0).max(hourMs).optional().describe("Each delivery's first attempt is held back a random 0…window ms, so deliveries within a window arrive shuffled"),
    delayMs: z.number().int().min(0).max(hourMs).optional().describe("Added to each delivery's first attempt"),
    seed: z.number().int().min(0).max(2 ** 31 - 1).optional().describe('The same seed gives the same faults to the same sequence of deliveries (default: random, shown back)'),
  })
  .strict()
  .meta({ id: 'WebhookEndpointChaosRequest' });

export const EndpointRequest = z
  .object({
    url: httpUrl,
    topics: z.array(z.string().max(100)).min(1, 'Subscribe to at least one topic (or "*").').max(100),
    description: z.string().max(500).nullable().optional(),
    enabled: z.boolean().optional(),
    allowInsecureTls: z.boolean().optional().describe('Accept a self-signed certificate on an https receiver.'),
    chaos: EndpointChaos.nullable().optional().describe('Faults real senders cause, injected on purpose (off by default; null turns them off). Every fault is marked on its attempt.'),
  })
  .strict()
  .meta({ id: 'WebhookEndpointRequest' });

export const EndpointPatch = EndpointRequest.partial().strict().meta({ id: 'WebhookEndpointPatch' });

export const Endpoint = z
  .object({
    id: z.string(), url: z.string(), topics: z.array(z.string()), description: z.string().nullable(), enabled: z.boolean(),
    allowInsecureTls: z.boolean(), secret: z.string().describe('In full on create and rotate; masked otherwise.'),
    chaos: z.object({ duplicateRate: z.number(), reorderWindowMs: z.number().int(), delayMs: z.number().int(), seed: z.number().int() }).nullable()
      .describe('The faults injected into deliveries to this endpoint; null when off'),
    createdAt: Timestamp, updatedAt: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

export const LiveSecrets = z
  .object({ data: z.array(z.object({ secret: z.string(), createdAt: Timestamp, expiresAt: Timestamp.nullable() })) })
  .meta({ id: 'WebhookSecrets' });

export const deliveryStatuses = ['pending', 'succeeded', 'dead'] as const;

export const DeliverySummary = z
  .object({
    id: z.string(), eventId: z.string(), topic: z.string(), endpointId: z.string().nullable(), url: z.string().nullable(),
    status: z.enum(deliveryStatuses), attemptCount: z.number().int(), nextAttemptAt: Timestamp.nullable(),
    lastStatus: z.number().int().nullable(), lastError: z.string().nullable(), test: z.boolean(),
    check: z.object({ id: z.string(), case: z.string() }).nullable().describe('The receiver check (run and case) that sent this delivery; null otherwise'),
    createdAt: Timestamp, updatedAt: Timestamp,
  })
  .meta({ id: 'DeliverySummary' });

export const AttemptChaos = z
  .object({
    duplicate: z.boolean().describe('Chaos sent the delivery again after a 2xx (trigger duplicate)'),
    heldMs: z.number().int().describe('How long chaos held the attempt back: delayMs + reorderMs'),
    delayMs: z.number().int(), reorderMs: z.number().int(),
  })
  .meta({ id: 'AttemptChaos' });

export const Attempt = z
  .object({
    number: z.number().int(),
    trigger: z.enum(['initial', 'retry', 'replay', 'manual', 'check', 'duplicate']).describe('check: a receiver check\'s request; duplicate: chaos sent the delivery again'),
    url: z.string(),
    startedAt: Timestamp.describe('Sandbox clock'), durationMs: z.number().int(), signatureHeader: z.string(),
    responseStatus: z.number().int().nullable(), responseHeaders: z.record(z.string(), z.string()),
    responseBody: z.string().describe('First 4 KiB'), error: z.string().nullable(),
    chaos: AttemptChaos.nullable().describe("The faults the endpoint's chaos injected; null when none"),
  })
  .meta({ id: 'Attempt' });

export const Delivery = DeliverySummary.extend({
  envelope: z.object({ topic: z.string(), deliveryId: z.string(), tenantId: z.string(), occurredAt: Timestamp, data: z.unknown() }),
  rawBody: z.string().describe('The exact bytes sent and signed on every attempt'),
  attempts: z.array(Attempt),
}).meta({ id: 'Delivery' });

export const DeliveriesQuery = z.object({
  status: z.enum(deliveryStatuses).optional(),
  topic: z.string().optional(),
  endpointId: z.string().optional(),
  eventId: z.string().optional(),
  search: z.string().max(200).optional().describe('A delivery id, event id or order id'),
});

export const DlqReplayRequest = z
  .object({ topic: z.string().optional(), endpointId: z.string().optional() })
  .strict()
  .meta({ id: 'DlqReplayRequest' });

export const DlqReplayJob = z
  .object({
    id: z.string(),
    state: z.enum(['running', 'completed', 'cancelled', 'interrupted'])
      .describe('interrupted: the engine running it stopped (shut down or crashed); what it did not replay is still dead.'),
    topic: z.string().nullable(), endpointId: z.string().nullable(),
    total: z.number().int().describe('Dead deliveries matching the filters when the job started.'),
    done: z.number().int().describe('succeeded + failed + skipped'),
    succeeded: z.number().int(), failed: z.number().int(),
    skipped: z.number().int().describe('No longer dead when their turn came, already in flight, or their endpoint deleted or disabled.'),
    createdAt: Timestamp.describe('Real time, not sandbox time'), updatedAt: Timestamp, finishedAt: Timestamp.nullable(),
  })
  .meta({ id: 'DlqReplayJob' });

export const TestWebhookRequest = z
  .object({
    topic: z.string().max(100),
    endpoint: z.union([z.string().regex(/^whe_\w+$/), httpUrl]).describe('A registered endpoint id or an http(s) URL'),
  })
  .strict()
  .meta({ id: 'TestWebhookRequest' });

export const TestWebhookResult = z
  .object({ deliveryId: z.string(), topic: z.string(), endpoint: z.string(), status: z.literal('pending') })
  .meta({ id: 'TestWebhookResult' });

export const Event = z
  .object({ id: z.string(), topic: z.string(), occurredAt: Timestamp, data: z.unknown(), deliveryCount: z.number().int(), test: z.boolean() })
  .meta({ id: 'Event' });

export const Clock = z.object({ now: Timestamp, offsetSeconds: z.number() }).meta({ id: 'SandboxClock' });

export const AdvanceRequest = z
  .object({ seconds: z.number().positive().max(366 * 86400, 'At most a year at a time.') })
  .strict()
  .meta({ id: 'ClockAdvanceRequest' });
