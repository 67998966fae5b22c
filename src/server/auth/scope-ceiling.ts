import { ApiError } from '../../shared/problem.ts';
import { allScopes, isKnownScope } from '../../shared/scopes.ts';
import { challenge } from './authenticate.ts';
import { can, type Principal } from './principal.ts';

// Scopes never grow (SPEC §3): whatever a caller creates (a token, an OAuth client) or takes hold of
// (a client's new secret, a reset's fresh credentials) carries no scope the caller lacks.

/** Every scope the caller holds, a :write's implied :read included (all of them for the admin key). */
const scopesOf = (principal: Principal): string[] => allScopes.filter((s) => can(principal, s));

/**
 * The scopes a token or client the caller creates will carry: those asked for (default: all the
 * caller's), each one the caller holds; anything else is 422 scope_not_allowed at `path`.
 */
export function grantableScope(principal: Principal, requested: string | undefined, path = '/scope'): string {
  if (!requested) return scopesOf(principal).join(' ');
  const scopes = [...new Set(requested.split(/\s+/))];
  const bad = scopes.filter((s) => !isKnownScope(s) || !can(principal, s));
  if (bad.length) {
    const message = `Not a scope this token can give: ${bad.join(' ')}.`;
    throw new ApiError(422, 'scope_not_allowed', message, { errors: [{ path, message }] });
  }
  return scopes.join(' ');
}

/** Refuses (403 insufficient_scope) a caller that lacks any of `scopes`, which `what` would hand it. */
export function assertHolds(principal: Principal, scopes: readonly string[], what: string): void {
  const missing = scopes.filter((s) => !can(principal, s));
  if (missing.length === 0) return;
  throw new ApiError(
    403,
    'insufficient_scope',
    `${what} needs every scope it grants; this token lacks ${missing.join(' ')}.`,
    {
      headers: { 'WWW-Authenticate': challenge('insufficient_scope', `, scope="${missing.join(' ')}"`) },
    },
  );
}
