import { z } from 'zod';
import { Timestamp } from './common.ts';

export const OAuthClient = z
  .object({
    clientId: z.string(),
    name: z.string().nullable(),
    public: z.boolean(),
    sandboxClient: z
      .boolean()
      .describe("The sandbox's own credentials client, created with it (confidential; cannot be deleted)"),
    redirectUris: z.array(z.string()),
    scope: z
      .string()
      .describe("The scopes the client may be granted, space-separated: at most its creator's (scopes never grow)"),
    clientSecretHint: z
      .string()
      .nullable()
      .describe(
        "The secret's prefix and last four characters (null for a public client): the secret itself is stored hashed",
      ),
    createdAt: Timestamp,
    clientSecret: z
      .string()
      .optional()
      .describe('The secret in full: only in the answer to the creation or rotation, never again'),
  })
  .meta({ id: 'OAuthClient', description: 'An OAuth client of the sandbox.' });

export const MintedToken = z
  .object({ accessToken: z.string(), tokenType: z.literal('Bearer'), expiresIn: z.number().int(), scope: z.string() })
  .meta({ id: 'MintedToken', description: "An access token of the sandbox's own client, shown once." });

export const SandboxCredentials = z
  .object({
    clientId: z.string().describe("The sandbox's own client"),
    clientSecretHint: z
      .string()
      .describe('The client secret was shown once, at creation or rotation; this is its prefix and last four'),
    webhookTestSecret: z.string().describe('Signs test webhooks sent to a URL with no registered endpoint'),
  })
  .meta({ id: 'SandboxCredentials' });
