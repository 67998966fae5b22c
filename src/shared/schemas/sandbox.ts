import { z } from 'zod';
import { Timestamp } from './common.ts';

const Counts = z.record(z.string(), z.number().int()).meta({ id: 'SandboxCounts' });

export const Sandbox = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: Timestamp,
    counts: Counts,
    notes: z.string().nullable().optional().describe('What an imported sandbox file said about its scenario'),
  })
  .meta({ id: 'Sandbox', description: 'A sandbox tenant and how many objects it holds.' });

/** A sandbox in the admin's list of them all, without its counts. */
export const SandboxSummary = Sandbox.omit({ counts: true });

export const Credentials = z
  .object({
    clientId: z.string(),
    clientSecret: z.string(),
    accessToken: z.string(),
    refreshToken: z.string(),
    tokenType: z.literal('Bearer'),
    expiresIn: z.number().int(),
    scope: z.string(),
  })
  .meta({ id: 'Credentials' });

export const CreatedSandbox = z
  .object({ sandbox: Sandbox, credentials: Credentials, webhookTestSecret: z.string() })
  .meta({ id: 'CreatedSandbox' });

export const ResetResult = z
  .object({ counts: Counts, durationMs: z.number(), credentials: Credentials.optional() })
  .meta({ id: 'ResetResult' });

export const Session = z
  .object({
    shared: z
      .boolean()
      .describe("The server is shared beyond loopback: the inspector signs in with a sandbox's credentials."),
    publicUrl: z.string().describe("The URL users and receivers see (--public-url, else the server's own address)."),
    openSandboxCreation: z
      .boolean()
      .describe(
        'Anyone may create a sandbox here (always on a laptop); false: the operator creates them with the admin key.',
      ),
    sandbox: z
      .object({
        id: z.string(),
        scopes: z.array(z.string()),
        expiresAt: Timestamp.describe("When the session's access token expires (real clock)"),
      })
      .nullable()
      .describe('The sandbox this browser is signed in to, or null.'),
  })
  .meta({ id: 'Session', description: "The inspector's sign-in state." });
