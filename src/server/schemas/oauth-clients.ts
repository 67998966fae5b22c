import { z } from 'zod';

// What the API answers about clients and tokens is shared with the inspector; the requests are the server's own.
export { MintedToken, OAuthClient, SandboxCredentials } from '../../shared/schemas/oauth-clients.ts';

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
    public: z
      .boolean()
      .default(false)
      .describe('A public client (a browser or native app) has no secret and must use PKCE (RFC 6749 §2.1, RFC 7636)'),
    redirectUris: z
      .array(redirectUri)
      .max(10)
      .default([])
      .describe('Redirect URIs besides the loopback ones every client may use (RFC 8252)'),
    scope: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .optional()
      .describe(
        "Space-separated scopes the client may be granted, each one the caller has (default: all of the caller's); every grant is capped by them",
      ),
  })
  .strict()
  .meta({ id: 'OAuthClientRequest' });

export const ClientIdParam = z.object({ clientId: z.string().min(1).max(100) });

export const TokenMintRequest = z
  .object({
    scope: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .optional()
      .describe("Space-separated scopes, each one the caller has (default: all of the caller's)"),
    expiresIn: z
      .number()
      .int()
      .min(1)
      .max(3600)
      .optional()
      .describe('Seconds the token lives (default 3600), to rehearse expiry'),
  })
  .strict()
  .meta({ id: 'TokenMintRequest' });
