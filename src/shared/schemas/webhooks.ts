import { z } from 'zod';
import { Timestamp } from './common.ts';

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

export const TestWebhookResult = z
  .object({ deliveryId: z.string(), topic: z.string(), endpoint: z.string(), status: z.literal('pending') })
  .meta({ id: 'TestWebhookResult' });

export const Clock = z.object({ now: Timestamp, offsetSeconds: z.number() }).meta({ id: 'SandboxClock' });

/** The clock after an advance, with how many due jobs the advance ran. */
export const AdvancedClock = Clock.extend({ jobsRun: z.number().int().describe('Due jobs the advance ran on the way') });
