import { z } from 'zod';
import { Timestamp } from './common.ts';

export const Counts = z.record(z.string(), z.number().int()).meta({ id: 'SandboxCounts' });

export const Sandbox = z
  .object({ id: z.string(), name: z.string(), createdAt: Timestamp, counts: Counts, notes: z.string().nullable().optional().describe("What an imported sandbox file said about its scenario") })
  .meta({ id: 'Sandbox', description: 'A sandbox tenant and how many objects it holds.' });

export const Credentials = z
  .object({
    clientId: z.string(), clientSecret: z.string(), accessToken: z.string(), refreshToken: z.string(),
    tokenType: z.literal('Bearer'), expiresIn: z.number().int(), scope: z.string(),
  })
  .meta({ id: 'Credentials' });

export const CreateSandboxRequest = z
  .object({ name: z.string().trim().max(100, 'At most 100 characters.').optional() })
  .strict()
  .meta({ id: 'CreateSandboxRequest' });

export const CreatedSandbox = z
  .object({ sandbox: Sandbox, credentials: Credentials, webhookTestSecret: z.string() })
  .meta({ id: 'CreatedSandbox' });

export const ResetRequest = z
  .object({ scope: z.enum(['data', 'all']).default('data').describe('all also deletes endpoints and revokes every token') })
  .strict()
  .meta({ id: 'ResetRequest' });

export const ResetResult = z
  .object({ counts: Counts, durationMs: z.number(), credentials: Credentials.optional() })
  .meta({ id: 'ResetResult' });
