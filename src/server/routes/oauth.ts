import type { Context } from 'koa';
import { z } from 'zod';
import { checkAuthorizeRequest, issueCode, redirectBack } from '../../domain/oauth/authorize.ts';
import { grantTokens, revokeToken } from '../../domain/oauth/grants.ts';
import { OAuthError } from '../../domain/oauth/oauth-error.ts';
import { ApiError } from '../../shared/problem.ts';
import { decodeBody, readRawBody } from '../body.ts';
import { refuseUnstorable } from '../validate.ts';
import { redirectMedia, route } from '../route.ts';
import type { Services } from '../services.ts';
import { sessionTokenOf } from '../auth/session-cookie.ts';
import type { AuthConfig } from '../auth/authenticate.ts';
import type { AuthorizeRequest } from '../../domain/oauth/authorize.ts';
import { hasScope } from '../../shared/scopes.ts';
import { consentPage, errorPage, signInFirstPage } from './oauth-pages.ts';

const tags = ['OAuth'];

const TokenRequestSchema = z
  .object({
    grant_type: z.enum(['client_credentials', 'authorization_code', 'refresh_token']),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    scope: z.string().optional(),
    code: z.string().optional(),
    redirect_uri: z.string().optional(),
    code_verifier: z.string().optional(),
    refresh_token: z.string().optional(),
    expires_in: z
      .string()
      .optional()
      .describe('Sandbox-only: access token lifetime in seconds (1–3600), to rehearse expiry.'),
  })
  .meta({ id: 'TokenRequest' });

const RevokeRequestSchema = z
  .object({
    token: z
      .string()
      .describe(
        'The access or refresh token to revoke. A refresh token takes every access token of its grant with it.',
      ),
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
  })
  .meta({ id: 'RevokeRequest' });

/** The RFC 6749 §5.2 error body, the one error shape that is not problem details (SPEC §2). */
const oauthError = (codes: [string, ...string[]]) =>
  z.object({ error: z.enum(codes), error_description: z.string() }).strict();

const TokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    refresh_token: z.string().optional(),
    scope: z.string(),
  })
  .meta({ id: 'TokenResponse' });

function basicCredentials(ctx: Context): { clientId: string; clientSecret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(ctx.get('authorization'));
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials.');
  // RFC 6749 §2.3.1: id and secret are form-urlencoded before Basic encoding.
  const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    const credentials = { clientId: decode(decoded.slice(0, colon)), clientSecret: decode(decoded.slice(colon + 1)) };
    refuseUnstorable(credentials, 'body');
    return credentials;
  } catch {
    throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials.');
  }
}

async function readOAuthParams(
  ctx: Context,
  schema: typeof TokenRequestSchema | typeof RevokeRequestSchema,
): Promise<Record<string, string | undefined>> {
  let body: Record<string, unknown>;
  try {
    body = decodeBody(await readRawBody(ctx.req), ctx.req, ['form', 'json']);
    refuseUnstorable(body, 'body');
  } catch (err) {
    throw new OAuthError('invalid_request', err instanceof ApiError ? err.detail : 'Unreadable request body.');
  }
  const params: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === 'string') params[key] = value;
    else if (typeof value === 'number') params[key] = String(value);
    else throw new OAuthError('invalid_request', `${key} must be a string.`);
  }
  // The schema that documents the request also checks it; failures keep the RFC 6749 shape.
  const checked = schema.safeParse(params);
  if (!checked.success) {
    const field = String(checked.error.issues[0].path[0] ?? 'body');
    if (field === 'grant_type' && params.grant_type) {
      throw new OAuthError(
        'unsupported_grant_type',
        `grant_type ${params.grant_type} is not supported; use client_credentials, authorization_code or refresh_token.`,
      );
    }
    throw new OAuthError(
      'invalid_request',
      field === 'grant_type' ? 'grant_type is required.' : `${field}: ${checked.error.issues[0].message}`,
    );
  }
  return params;
}

function authorizeParams(source: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(source)) out[k] = typeof v === 'string' ? v : undefined;
  return out;
}

/** Shows the error to the user or sends it back to the client, per RFC 6749 §4.1.2.1. */
function authorizeFailure(ctx: Context, params: Record<string, string | undefined>, err: unknown): void {
  if (!(err instanceof OAuthError)) throw err;
  if ((err as OAuthError & { redirect?: boolean }).redirect === false) {
    ctx.status = 400;
    ctx.type = 'html';
    ctx.body = errorPage(err.description);
    return;
  }
  backToClient(
    ctx,
    redirectBack(
      { redirectUri: params.redirect_uri!, state: params.state },
      { error: err.error, error_description: err.description },
    ),
  );
}

/**
 * The redirect to the client: 302 from the GET, 303 See Other from the consent form's POST, so the
 * browser follows it with a GET whatever its habits (RFC 9110 §15.4.4).
 */
function backToClient(ctx: Context, location: string): void {
  if (ctx.method === 'POST') ctx.status = 303;
  ctx.redirect(location);
}

/**
 * Who may approve on the consent page. On a laptop, whoever sees it (the simulated consent is one
 * click). On a shared server only a browser signed in to the client's sandbox (its session cookie),
 * and for no scope beyond the session's own: a client id alone must not be enough to own a sandbox.
 */
async function consentRefusal(
  ctx: Context,
  s: Services,
  config: OAuthRouteConfig,
  request: AuthorizeRequest,
): Promise<string | undefined> {
  if (!config.shared) return undefined;
  const token = sessionTokenOf(ctx, config.auth().session);
  const check = token ? await s.tokens.verifyAccess(token) : undefined;
  if (!check?.ok || check.grant.tenantId !== request.client.tenantId) {
    return 'Only someone signed in to this sandbox can approve: sign in to it in this browser first.';
  }
  const missing = request.scope.split(' ').filter((scope) => !hasScope(check.grant.scopes, scope));
  if (missing.length)
    return `Your session cannot grant ${missing.join(' ')}: sign in with credentials that carry those scopes.`;
  return undefined;
}

/** Refuses the consent with a page (never a redirect: the user, not the client, must act). */
function refuseConsent(ctx: Context, sandboxName: string, reason: string): void {
  ctx.status = 403;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = signInFirstPage({ sandboxName, reason });
}

export interface OAuthRouteConfig {
  /** A shared server: the consent page approves only for a session of the client's sandbox. */
  shared: boolean;
  auth: () => AuthConfig;
}

export const oauthRoutes = (s: Services, config: OAuthRouteConfig) => [
  route({
    method: 'post',
    path: '/oauth/token',
    operationId: 'oauthToken',
    credentials: true,
    tags,
    access: 'none',
    raw: true,
    idempotent: false,
    summary:
      'OAuth 2.0 token endpoint: client_credentials, authorization_code (S256 PKCE), refresh_token (rotating). A confidential client authenticates on every grant (HTTP Basic or client_secret in the body); a public one names its client_id.',
    accepts: ['form', 'json'],
    body: TokenRequestSchema,
    responses: {
      200: TokenResponseSchema,
      400: {
        description: 'RFC 6749 §5.2 error',
        schema: oauthError([
          'invalid_request',
          'invalid_grant',
          'invalid_scope',
          'unsupported_grant_type',
          'unauthorized_client',
        ]),
      },
      401: { description: 'RFC 6749 §5.2 error: client authentication failed', schema: oauthError(['invalid_client']) },
    },
    handler: async ({ ctx }) => {
      const response = await grantTokens(s.db, s.tokens, {
        params: await readOAuthParams(ctx, TokenRequestSchema),
        basic: basicCredentials(ctx),
      });
      ctx.set('Pragma', 'no-cache');
      ctx.body = response;
      return {};
    },
  }),
  route({
    method: 'post',
    path: '/oauth/revoke',
    operationId: 'oauthRevoke',
    tags,
    access: 'none',
    raw: true,
    idempotent: false,
    summary:
      "RFC 7009 revocation of one of the client's own tokens (a confidential client authenticates); 200 whether or not the token was known. Every engine on the database refuses it at once.",
    accepts: ['form', 'json'],
    body: RevokeRequestSchema,
    responses: {
      200: { description: 'Revoked, or nothing to revoke (RFC 7009 §2.2: the answer is the same).' },
      400: { description: 'RFC 6749 §5.2 error', schema: oauthError(['invalid_request']) },
      401: { description: 'RFC 6749 §5.2 error: client authentication failed', schema: oauthError(['invalid_client']) },
    },
    handler: async ({ ctx }) => {
      await revokeToken(s.db, s.tokens, {
        params: await readOAuthParams(ctx, RevokeRequestSchema),
        basic: basicCredentials(ctx),
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 200;
      ctx.body = '';
      return {};
    },
  }),
  route({
    method: 'get',
    path: '/oauth/authorize',
    operationId: 'oauthAuthorize',
    tags,
    access: 'none',
    raw: true,
    summary: 'Authorization endpoint: shows a consent page (Approve / Deny).',
    query: z.object({
      response_type: z.string().optional(),
      client_id: z.string().optional(),
      redirect_uri: z.string().optional(),
      scope: z.string().optional(),
      state: z.string().optional(),
      code_challenge: z.string().optional(),
      code_challenge_method: z.string().optional(),
    }),
    responses: {
      200: { description: 'Consent page', contentType: 'text/html' },
      302: {
        description: 'Back to redirect_uri with error and error_description (RFC 6749 §4.1.2.1)',
        contentType: redirectMedia,
      },
      400: {
        description: 'An error page: the client or redirect_uri cannot be trusted with a redirect',
        contentType: 'text/html',
      },
    },
    handler: async ({ ctx }) => {
      const params = authorizeParams(ctx.query);
      try {
        const request = await checkAuthorizeRequest(s.db, params);
        const sandbox = await s.sandboxes.get(request.client.tenantId);
        ctx.type = 'html';
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'");
        // SameSite=Strict keeps the session cookie off a navigation from the client's site, so the
        // session is checked when Approve is pressed (a same-origin form post), not here.
        ctx.body = consentPage({
          params,
          clientId: request.client.clientId,
          sandboxName: sandbox?.name ?? request.client.tenantId,
          scope: request.scope,
          sessionNeeded: config.shared,
        });
      } catch (err) {
        authorizeFailure(ctx, params, err);
      }
      return {};
    },
  }),
  route({
    method: 'post',
    path: '/oauth/authorize',
    operationId: 'oauthAuthorizeDecision',
    tags,
    access: 'none',
    raw: true,
    idempotent: false,
    summary: "The consent page's Approve / Deny; redirects to redirect_uri with a code or access_denied.",
    accepts: ['form'],
    responses: {
      303: {
        description: 'Back to redirect_uri (See Other: a GET) with a code, or with error=access_denied',
        contentType: redirectMedia,
      },
      400: {
        description: 'An error page: the client or redirect_uri cannot be trusted with a redirect',
        contentType: 'text/html',
      },
      403: {
        description: 'Shared server: only a session of the sandbox approves (Deny needs none)',
        contentType: 'text/html',
      },
    },
    // The handler reads the form itself (decodeBody): its refusals are problem details.
    errors: {
      400: ['malformed_json'],
      413: ['payload_too_large'],
      415: ['unsupported_media_type'],
      422: ['validation_failed'],
    },
    handler: async ({ ctx }) => {
      const params = authorizeParams(decodeBody(await readRawBody(ctx.req), ctx.req, ['form']));
      try {
        const request = await checkAuthorizeRequest(s.db, params);
        if (params.decision !== 'approve') throw new OAuthError('access_denied', 'The user denied the request.');
        const refusal = await consentRefusal(ctx, s, config, request);
        if (refusal) {
          refuseConsent(
            ctx,
            (await s.sandboxes.get(request.client.tenantId))?.name ?? request.client.tenantId,
            refusal,
          );
          return {};
        }
        backToClient(ctx, redirectBack(request, { code: await issueCode(s.db, request) }));
      } catch (err) {
        authorizeFailure(ctx, params, err);
      }
      return {};
    },
  }),
];
