import { z } from 'zod';
import { Timestamp } from './common.ts';

const redirectUri = z
  .string()
  .max(2000)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && !url.hash;
    } catch {
      return false;
    }
  }, 'Must be an absolute http(s) URL without a fragment.');

export const ClientRequest = z
  .object({
    name: z.string().trim().min(1).max(100).optional().describe('What the client is, for you (e.g. "storefront SPA")'),
    public: z.boolean().default(false).describe('A public client (a browser or native app) has no secret and must use PKCE (RFC 6749 §2.1, RFC 7636)'),
    redirectUris: z.array(redirectUri).max(10).default([]).describe('Redirect URIs besides the loopback ones every client may use (RFC 8252)'),
  })
  .strict()
  .meta({ id: 'OAuthClientRequest' });

export const OAuthClient = z
  .object({
    clientId: z.string(),
    name: z.string().nullable(),
    public: z.boolean(),
    sandboxClient: z.boolean().describe("The sandbox's own credentials client, created with it (confidential; cannot be deleted)"),
    redirectUris: z.array(z.string()),
    clientSecretHint: z.string().nullable().describe('The secret\'s prefix and last four characters (null for a public client): the secret itself is stored hashed'),
    createdAt: Timestamp,
    clientSecret: z.string().optional().describe('The secret in full: only in the answer to the creation or rotation, never again'),
  })
  .meta({ id: 'OAuthClient', description: 'An OAuth client of the sandbox.' });

export const ClientIdParam = z.object({ clientId: z.string().min(1).max(100) });

export const TokenMintRequest = z
  .object({
    scope: z.string().trim().min(1).max(1000).optional().describe('Space-separated scopes, each one the caller has (default: all of the caller\'s)'),
    expiresIn: z.number().int().min(1).max(3600).optional().describe('Seconds the token lives (default 3600), to rehearse expiry'),
  })
  .strict()
  .meta({ id: 'TokenMintRequest' });

export const MintedToken = z
  .object({ accessToken: z.string(), tokenType: z.literal('Bearer'), expiresIn: z.number().int(), scope: z.string() })
  .meta({ id: 'MintedToken', description: "An access token of the sandbox's own client, shown once." });

export const SandboxCredentials = z
  .object({
    clientId: z.string().describe("The sandbox's own client"),
    clientSecretHint: z.string().describe('The client secret was shown once, at creation or rotation; this is its prefix and last four'),
    webhookTestSecret: z.string().describe('Signs test webhooks sent to a URL with no registered endpoint'),
  })
  .meta({ id: 'SandboxCredentials' });
