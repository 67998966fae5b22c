import { z } from 'zod';
import { Timestamp } from './common.ts';

export const catcherModes = ['status', 'timeout', 'redirect'] as const;

export const CatcherName = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'Lowercase letters, digits and dashes, at most 63, starting with a letter or digit.'),
});

/** Where a catcher receives: its sandbox and its name. */
export const CatcherAddress = CatcherName.extend({ sandbox: z.string().min(1).max(100) });

export const CatcherRequest = z
  .object({
    mode: z.enum(catcherModes).optional().describe('status: answer `status`; timeout: never answer; redirect: answer 302'),
    status: z.number().int().min(200, 'A status from 200 to 599.').max(599, 'A status from 200 to 599.').optional(),
    delayMs: z.number().int().min(0).max(30_000, 'At most 30000 ms.').optional().describe('Wait before answering'),
  })
  .strict()
  .meta({ id: 'CatcherRequest' });

export const Catcher = z
  .object({
    name: z.string(), url: z.string(), mode: z.enum(catcherModes), status: z.number().int(), delayMs: z.number().int(),
    requestCount: z.number().int().describe('Requests in the log (the newest 50 are kept)'), createdAt: Timestamp, updatedAt: Timestamp,
  })
  .meta({ id: 'Catcher' });

export const CaughtRequest = z
  .object({
    id: z.string(), receivedAt: Timestamp, method: z.string(), headers: z.record(z.string(), z.string()),
    body: z.string().describe('First 64 KiB'), bytes: z.number().int(),
    verification: z.object({
      verified: z.boolean(),
      reason: z.enum(['ok', 'no_header', 'malformed_header', 'no_matching_signature', 'timestamp_outside_tolerance', 'unknown_delivery']),
      deliveryId: z.string().nullable(),
      secretSource: z.enum(['endpoint', 'test_secret']).nullable(),
    }),
    responseStatus: z.number().int().nullable().describe('null when the catcher let it time out'),
    delayMs: z.number().int(),
  })
  .meta({ id: 'CaughtRequest' });
