import { z } from 'zod';
import { Timestamp } from './common.ts';
import { SigningScheme } from './webhooks.ts';

export const catcherModes = ['status', 'timeout', 'redirect'] as const;

export const Catcher = z
  .object({
    name: z.string(),
    url: z.string(),
    mode: z.enum(catcherModes),
    status: z.number().int(),
    delayMs: z.number().int(),
    requestCount: z.number().int().describe('Requests in the log (the newest 50 are kept)'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Catcher' });

export const CaughtRequest = z
  .object({
    id: z.string(),
    receivedAt: Timestamp.describe('Real time the request arrived'),
    method: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().describe('First 64 KiB'),
    bytes: z.number().int(),
    verification: z.object({
      verified: z.boolean(),
      reason: z
        .enum([
          'ok',
          'no_header',
          'malformed_header',
          'no_matching_signature',
          'timestamp_outside_tolerance',
          'unknown_delivery',
        ])
        .describe("ok, or why not: the receiver toolkit's reasons plus unknown_delivery"),
      deliveryId: z.string().nullable(),
      secretSource: z
        .enum(['endpoint', 'test_secret'])
        .nullable()
        .describe(
          "Which secret verified it: the endpoint's, or the sandbox's webhookTestSecret for a test webhook to a bare URL",
        ),
      signature: z
        .array(SigningScheme)
        .describe('The schemes it was verified with: every one its endpoint signs with must verify'),
    }),
    responseStatus: z.number().int().nullable().describe('null when the catcher let it time out'),
    delayMs: z.number().int(),
  })
  .meta({ id: 'CaughtRequest' });
