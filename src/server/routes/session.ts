import type { Context } from 'koa';
import { z } from 'zod';
import { grantTokens } from '../../domain/oauth/grants.ts';
import { OAuthError } from '../../domain/oauth/oauth-error.ts';
import type { AccessGrant } from '../../domain/oauth/token-store.ts';
import { ApiError } from '../../shared/problem.ts';
import { sessionCookieToken, type AuthConfig } from '../auth/authenticate.ts';
import { clearSessionCookie, setSessionCookie } from '../auth/session-cookie.ts';
import { route } from '../route.ts';
import { Session } from '../schemas/sandbox.ts';
import type { Services } from '../services.ts';

const tags = ['Session'];

const SignInRequest = z
  .object({
    clientId: z.string().min(1).max(200).optional(),
    clientSecret: z.string().min(1).max(200).optional(),
    accessToken: z.string().min(1).max(200).optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.accessToken !== undefined) {
      if (body.clientId !== undefined || body.clientSecret !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['accessToken'],
          message: 'Send either accessToken, or clientId and clientSecret, not both.',
        });
      }
      return;
    }
    if (body.clientId === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['clientId'],
        message: 'Required with clientSecret (or send accessToken instead).',
      });
    if (body.clientSecret === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['clientSecret'],
        message: 'Required with clientId (or send accessToken instead).',
      });
  })
  .meta({
    id: 'SignInRequest',
    description: "One sandbox's credentials: its OAuth client id and secret, or an access token.",
  });

type SessionBody = z.infer<typeof Session>;

const signedIn = (grant: AccessGrant): NonNullable<SessionBody['sandbox']> => ({
  id: grant.tenantId,
  scopes: [...grant.scopes].sort(),
  expiresAt: new Date(grant.expiresAtMs).toISOString(),
});

const refused = (detail: string, code = 'invalid_token') =>
  new ApiError(401, code, detail, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });

/** The access token to sign in with: the one given, or one minted with the client credentials grant. */
async function tokenFor(s: Services, body: z.output<typeof SignInRequest>): Promise<string> {
  if (body.accessToken) return body.accessToken;
  try {
    const minted = await grantTokens(s.db, s.tokens, {
      params: { grant_type: 'client_credentials', client_id: body.clientId, client_secret: body.clientSecret },
    });
    return minted.access_token;
  } catch (err) {
    if (err instanceof OAuthError) throw refused('Unknown client ID, or a wrong client secret.', 'invalid_client');
    throw err;
  }
}

/**
 * The inspector's browser session (SPEC §9): sign in with one sandbox's credentials, get an
 * HttpOnly cookie carrying its access token, sign out. No admin key is involved.
 */
export const sessionRoutes = (
  s: Services,
  config: { shared: boolean; auth: () => AuthConfig; openSandboxCreation: boolean },
) => {
  const server = () => ({
    shared: config.shared,
    publicUrl: s.baseUrl(),
    openSandboxCreation: config.openSandboxCreation,
  });
  const current = async (ctx: Context): Promise<SessionBody> => {
    const token = sessionCookieToken(ctx, config.auth());
    const check = token ? await s.tokens.verifyAccess(token) : undefined;
    return { ...server(), sandbox: check?.ok ? signedIn(check.grant) : null };
  };
  return [
    route({
      method: 'get',
      path: '/api/v1/session',
      operationId: 'getSession',
      tags,
      access: 'none',
      summary: 'Whether the server is shared, its public URL, and the sandbox this browser is signed in to (if any).',
      responses: { 200: Session },
      handler: async ({ ctx }) => {
        ctx.set('Cache-Control', 'no-store');
        return { body: await current(ctx) };
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/session',
      operationId: 'signIn',
      tags,
      access: 'none',
      idempotent: false,
      summary:
        'Sign the browser in to one sandbox with its client id and secret (client credentials grant) or an access token; sets an HttpOnly session cookie carrying the token.',
      body: SignInRequest,
      responses: { 200: Session },
      // Credentials that do not sign in: a wrong client id or secret, a token that is unknown, revoked or expired.
      errors: { 401: ['invalid_client', 'invalid_token', 'token_expired'] },
      handler: async ({ ctx, body }) => {
        const token = await tokenFor(s, body);
        const check = await s.tokens.verifyAccess(token);
        if (!check.ok) {
          throw refused(
            check.reason === 'token_expired'
              ? 'The access token has expired; sign in with the client credentials, or use a fresh token.'
              : 'The access token is not valid.',
            check.reason,
          );
        }
        setSessionCookie(ctx, config.auth().session, token, check.grant.expiresAtMs);
        ctx.set('Cache-Control', 'no-store');
        return { body: { ...server(), sandbox: signedIn(check.grant) } };
      },
    }),
    route({
      method: 'delete',
      path: '/api/v1/session',
      operationId: 'signOut',
      tags,
      access: 'none',
      idempotent: false,
      summary: 'Sign the browser out: removes the session cookie (the token itself stays valid until it expires).',
      responses: { 204: { description: 'Signed out' } },
      handler: ({ ctx }) => {
        clearSessionCookie(ctx, config.auth().session);
        return { status: 204 };
      },
    }),
  ];
};
