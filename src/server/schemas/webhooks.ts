import { z } from 'zod';
import { schemeNames } from '../../shared/schemes.ts';
import { SigningScheme } from '../../shared/schemas/webhooks.ts';
import { Timestamp } from './common.ts';
import { deliveryStatuses, disabledReasons, ReplayFilter, replayStatuses } from '../../shared/schemas/webhooks.ts';

// What the API answers about webhooks is shared with the inspector; the requests are the server's own.
export {
  AdvancedClock,
  Attempt,
  AttemptChaos,
  Clock,
  Delivery,
  deliveryStatuses,
  DeliverySummary,
  DlqReplayJob,
  EnabledEndpoints,
  Endpoint,
  LiveSecrets,
  SignedRequest,
  SigningScheme,
  TestWebhookResult,
} from '../../shared/schemas/webhooks.ts';

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
    duplicateRate: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        'Probability (0–1) that a delivery answered 2xx is sent once more: same deliveryId, fresh signature, trigger duplicate',
      ),
    reorderWindowMs: z
      .number()
      .int()
      .min(0)
      .max(hourMs)
      .optional()
      .describe(
        "Each delivery's first attempt is held back a random 0…window ms, so deliveries within a window arrive shuffled",
      ),
    delayMs: z.number().int().min(0).max(hourMs).optional().describe("Added to each delivery's first attempt"),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .optional()
      .describe('The same seed gives the same faults to the same sequence of deliveries (default: random, shown back)'),
  })
  .strict()
  .meta({ id: 'WebhookEndpointChaosRequest' });

const signatureField = z
  .union([SigningScheme, z.array(SigningScheme).min(1).max(10)], {
    error: `One of ${schemeNames.join(', ')}, or a non-empty list of them.`,
  })
  .describe(
    "The signing scheme, or several at once while receivers migrate: every scheme's headers go on each request " +
      "(the body then carries both envelopes' fields). Default sandbay.",
  );

const endpointFields = z.object({
  url: httpUrl,
  topics: z.array(z.string().max(100)).min(1, 'Subscribe to at least one topic (or "*").').max(100),
  description: z.string().max(500).nullable().optional(),
  enabled: z.boolean().optional(),
  allowInsecureTls: z.boolean().optional().describe('Accept a self-signed certificate on an https receiver.'),
  signature: signatureField.optional(),
  chaos: EndpointChaos.nullable()
    .optional()
    .describe(
      'Faults real senders cause, injected on purpose (off by default; null turns them off). Every fault is marked on its attempt.',
    ),
});

/**
 * A secret of the caller's own (Svix's `secret` on create): `whsec_` and the base64 of 24 to 64 bytes,
 * the Standard Webhooks rule, which Sandbay's own 32-character secrets meet too. `sandbay listen` uses
 * it to keep one secret per sandbox across runs.
 */
const ownSecret = z.string().refine((s) => {
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(s)) return false;
  const bytes = Buffer.from(s.slice('whsec_'.length), 'base64').length;
  return bytes >= 24 && bytes <= 64;
}, 'A secret is whsec_ followed by the base64 of 24 to 64 random bytes.');

export const EndpointRequest = endpointFields
  .extend({
    secret: ownSecret
      .optional()
      .describe('The HMAC secret to sign with, instead of a new random one (whsec_ + base64 of 24–64 bytes)'),
  })
  .strict()
  .meta({ id: 'WebhookEndpointRequest' });

export const EndpointPatch = endpointFields.partial().strict().meta({ id: 'WebhookEndpointPatch' });

export const EnableEndpointsRequest = z
  .object({
    disabledReason: z
      .enum(disabledReasons)
      .describe('Enable every disabled endpoint that is off for this reason (imported: what a sandbox file brought)'),
  })
  .strict()
  .meta({ id: 'EnableWebhookEndpointsRequest' });

export const DeliveriesQuery = z.object({
  status: z.enum(deliveryStatuses).optional(),
  topic: z.string().optional(),
  endpointId: z.string().optional(),
  eventId: z.string().optional(),
  search: z.string().max(200).optional().describe('A delivery id, event id or order id'),
  includeChecks: z
    .enum(['true', 'false'])
    .optional()
    .describe("true: also a receiver check's probes (left out otherwise, unless a search names one)"),
});

/** The deliveries list's filters: DeliveriesQuery's, topic patterns, and a time no sandbox clock advance moves. */
export const DeliveryListQuery = DeliveriesQuery.extend({
  topics: z
    .string()
    .max(2000)
    .optional()
    .describe('Comma-separated topic patterns (order.*, *, a topic): deliveries of any of them'),
  since: z.iso
    .datetime({ offset: true, message: 'An RFC 3339 timestamp, e.g. 2026-11-28T18:00:00Z.' })
    .optional()
    .describe(
      'Only deliveries this server recorded at or after this instant on the real clock (createdAt is on the sandbox clock, which an advance moves)',
    ),
});

export const ReplayRequest = z
  .object({
    statuses: z
      .array(z.enum(replayStatuses))
      .min(1)
      .max(4)
      .describe('failed: pending after at least one failed attempt; pending: any pending; succeeded; dead'),
    topic: z.string().max(100).optional().describe('A topic or a pattern: order.*, *'),
    endpointId: z.string().max(100).optional(),
    since: z.iso.datetime().optional().describe('Created at or after this sandbox time'),
    until: z.iso.datetime().optional().describe('Created before this sandbox time'),
    ids: z.array(z.string().max(100)).min(1).max(1000).optional().describe('Only these deliveries (selected rows)'),
    to: httpUrl
      .optional()
      .describe(
        "Send them to this URL instead (a local receiver): new deliveries made from them, signed as the original's " +
          'endpoint, retried like any resend; checked against the outbound policy like an endpoint URL',
      ),
    dryRun: z.boolean().optional().describe('List what would be replayed; start nothing'),
  })
  .strict()
  .meta({ id: 'ReplayRequest' });

export const ReplayPreview = z
  .object({
    filter: ReplayFilter,
    total: z.number().int(),
    data: z.array(
      z.object({
        id: z.string(),
        topic: z.string(),
        status: z.enum(deliveryStatuses),
        endpointId: z.string().nullable(),
        targetUrl: z
          .string()
          .nullable()
          .describe("Where a delivery with no endpoint goes: a test webhook's URL, or the URL a replay sent it to"),
        createdAt: Timestamp.describe('Sandbox clock'),
      }),
    ),
  })
  .meta({ id: 'ReplayPreview' });

export const DlqReplayRequest = z
  .object({ topic: z.string().optional(), endpointId: z.string().optional() })
  .strict()
  .meta({ id: 'DlqReplayRequest' });

const dataPatch = z
  .array(
    z
      .object({
        op: z
          .enum(['add', 'replace', 'remove'])
          .describe('replace: a field the sample has (--override); add: a new field or array element (--add); remove'),
        path: z.string().max(500).describe('A JSON Pointer into data, e.g. /items/0/quantity'),
        value: z.unknown().optional(),
      })
      .strict(),
  )
  .max(100)
  .optional()
  .describe('JSON Patch (RFC 6902) operations on the data, applied after `data`');

export const TestWebhookRequest = z
  .object({
    topic: z.string().max(100),
    endpoint: z.union([z.string().regex(/^whe_\w+$/), httpUrl]).describe('A registered endpoint id or an http(s) URL'),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "Your own data: a JSON merge patch (RFC 7396) over the topic's sample data (null removes a field). The result must match the topic's schema.",
      ),
    patch: dataPatch,
  })
  .strict()
  .meta({ id: 'TestWebhookRequest' });

export const ResendRequest = z
  .object({
    editedData: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "The whole data, replacing the original's (what the inspector's editor sends); data and patch apply over it",
      ),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("A JSON merge patch (RFC 7396) over the delivery's data (null removes a field)"),
    patch: dataPatch,
    keepDeliveryId: z
      .boolean()
      .optional()
      .describe(
        "Send the original's deliveryId again (envelope, X-Service-Delivery-Id, webhook-id), to test that the receiver dedupes it. Default: a new one",
      ),
  })
  .strict()
  .describe(
    "Without any of editedData, data and patch the data goes unchanged. The result must match the topic's schema.",
  )
  .meta({ id: 'ResendRequest' });

export const Event = z
  .object({
    id: z.string(),
    topic: z.string(),
    occurredAt: Timestamp,
    data: z.unknown(),
    deliveryCount: z.number().int(),
    test: z.boolean(),
  })
  .meta({ id: 'Event' });

export const AdvanceRequest = z
  .object({
    seconds: z
      .number()
      .positive()
      .max(366 * 86400, 'At most a year at a time.'),
  })
  .strict()
  .meta({ id: 'ClockAdvanceRequest' });
