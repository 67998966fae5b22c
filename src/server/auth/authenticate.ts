import type { Context } from 'koa';
import { ApiError } from '../../shared/problem.ts';
import type { TokenStore } from '../../domain/oauth/token-store.ts';
import { matchesAdminKey } from '../admin-key.ts';
import type { Access } from '../route.ts';
import { anonymous, can, type Principal } from './principal.ts';
import { sessionTokenOf, type SessionCookie } from './session-cookie.ts';

export interface AuthConfig {
  /** The admin key's SHA-256 (admin-key.ts): an engine on a shared database may not know the key itself. */
  adminKeyHash: string;
  /** The admin cookie's name carries the port so two instances do not collide (SPEC §7). */
  cookieName: string;
  /**
   * Whether the admin cookie is honoured: only on loopback. On a shared server the admin key is
   * the operator's secret, accepted in the Authorization header alone (SPEC §9).
   */
  adminCookie: boolean;
  /** The inspector's sign-in cookie: one sandbox's access token. */
  session: SessionCookie;
  tokens: TokenStore;
  sandboxExists: (id: string) => Promise<boolean>;
}

const bearerOf = (ctx: Context): string | undefined => {
  const header = ctx.get('authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
};

/** True when the request carries the admin key, in the header or in the cookie. */
export function carriesAdminKey(ctx: Context, config: AuthConfig): boolean {
  const bearer = bearerOf(ctx);
  if (bearer) return matchesAdminKey(bearer, config.adminKeyHash);
  if (!config.adminCookie) return false;
  const cookie = ctx.cookies.get(config.cookieName);
  return cookie !== undefined && matchesAdminKey(cookie, config.adminKeyHash);
}

/** The session cookie's token, when it is what authenticates the request (no Authorization header). */
export function sessionCookieToken(ctx: Context, config: AuthConfig): string | undefined {
  return ctx.get('authorization') ? undefined : sessionTokenOf(ctx, config.session);
}

/**
 * The sandbox a request names: the Sandbay-Sandbox header, or a sandbox query parameter (EventSource cannot set
 * headers).
 */
const namedSandbox = (ctx: Context): string =>
  ctx.get('sandbay-sandbox') || (typeof ctx.query.sandbox === 'string' ? ctx.query.sandbox : '');

// SPEC §3 fixes the error challenges verbatim; a request with no credentials gets RFC 6750's bare realm.
export const challenge = (error?: string, extra = '') =>
  error ? `Bearer error="${error}"${extra}` : 'Bearer realm="sandbay"';

/** Resolves the caller for a route's access level, or throws the SPEC §3 401/403. */
export async function authenticate(
  ctx: Context,
  access: Access,
  scope: string | undefined,
  config: AuthConfig,
): Promise<Principal> {
  if (access === 'none') return anonymous;
  if (carriesAdminKey(ctx, config)) {
    if (access === 'admin') return { kind: 'admin', scopes: new Set() };
    const sandbox = namedSandbox(ctx);
    if (!sandbox) {
      throw new ApiError(
        422,
        'sandbox_required',
        'With the admin key, name the sandbox in a Sandbay-Sandbox header (or a sandbox query parameter).',
        {
          errors: [{ path: '/headers/Sandbay-Sandbox', message: 'Required with the admin key.' }],
        },
      );
    }
    if (!(await config.sandboxExists(sandbox))) throw new ApiError(404, 'not_found', 'No such sandbox.');
    return { kind: 'admin', tenantId: sandbox, scopes: new Set() };
  }
  // A session cookie stands for its token, and so for its own sandbox only, as any bearer token does:
  // Sandbay-Sandbox (or ?sandbox=) naming another sandbox is refused, never silently ignored.
  const bearer = bearerOf(ctx) ?? sessionCookieToken(ctx, config);
  if (!bearer) {
    const header = ctx.get('authorization');
    const detail = header
      ? 'The Authorization header must be "Bearer <token>".'
      : 'Send an access token: Authorization: Bearer <token> (POST /oauth/token, or the credentials from POST /api/v1/sandboxes).';
    throw new ApiError(401, 'missing_token', detail, { headers: { 'WWW-Authenticate': challenge() } });
  }
  if (access === 'admin') {
    throw new ApiError(403, 'admin_key_required', 'This operation needs the admin key, not a sandbox token.');
  }
  const check = await config.tokens.verifyAccess(bearer);
  if (!check.ok) {
    const expired = check.reason === 'token_expired';
    throw new ApiError(
      401,
      check.reason,
      expired ? 'The access token has expired; refresh it or request a new one.' : 'The access token is not valid.',
      {
        headers: { 'WWW-Authenticate': challenge('invalid_token') },
      },
    );
  }
  const named = namedSandbox(ctx);
  if (named && named !== check.grant.tenantId) {
    throw new ApiError(
      403,
      'sandbox_mismatch',
      `This token belongs to sandbox ${check.grant.tenantId}, but the request names sandbox ${named} (Sandbay-Sandbox). A token acts on its own sandbox only: drop the header, or use a token of ${named}.`,
    );
  }
  const principal: Principal = { kind: 'token', tenantId: check.grant.tenantId, scopes: check.grant.scopes };
  if (scope && !can(principal, scope)) {
    throw new ApiError(403, 'insufficient_scope', `This operation needs the ${scope} scope.`, {
      headers: { 'WWW-Authenticate': challenge('insufficient_scope', `, scope="${scope}"`) },
    });
  }
  return principal;
}
