import type { Db } from '../../db/database.ts';
import { randomString } from '../../shared/ids.ts';
import { findClient, redirectAllowed, type OAuthClient } from './clients.ts';
import { OAuthError } from './oauth-error.ts';
import { requestedScope } from './grants.ts';
import { hashToken } from './token-store.ts';

const codeTtlMs = 10 * 60_000;

export interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  scope: string;
  state?: string;
  codeChallenge: string;
}

/**
 * Validates /oauth/authorize parameters. Per RFC 6749 §4.1.2.1, problems with the client or
 * redirect_uri are shown to the user (`redirect: false`); everything else goes back to the
 * client through the redirect.
 */
export async function checkAuthorizeRequest(
  db: Db,
  params: Record<string, string | undefined>,
): Promise<AuthorizeRequest> {
  const client = params.client_id ? await findClient(db, params.client_id) : undefined;
  if (!client)
    throw Object.assign(new OAuthError('invalid_request', 'Unknown or missing client_id.'), { redirect: false });
  const redirectUri = params.redirect_uri ?? '';
  if (!redirectAllowed(client, redirectUri)) {
    throw Object.assign(
      new OAuthError(
        'invalid_request',
        'redirect_uri must be a loopback http URL (RFC 8252) or one registered on the client.',
      ),
      { redirect: false },
    );
  }
  if (params.response_type !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be code.');
  if (!params.code_challenge || !/^[A-Za-z0-9\-._~]{43,128}$/.test(params.code_challenge)) {
    throw new OAuthError('invalid_request', 'code_challenge is required (PKCE, RFC 7636).');
  }
  if (params.code_challenge_method !== 'S256')
    throw new OAuthError('invalid_request', 'code_challenge_method must be S256.');
  return {
    client,
    redirectUri,
    state: params.state,
    codeChallenge: params.code_challenge,
    scope: requestedScope(params.scope, client.scopes),
  };
}

/** Issues a single-use authorization code after the user approves. */
export async function issueCode(db: Db, request: AuthorizeRequest): Promise<string> {
  const code = `sac_${randomString(32)}`;
  await db.query(
    `insert into oauth_codes (hash, tenant_id, client_id, redirect_uri, code_challenge, scope, family_id, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      hashToken(code),
      request.client.tenantId,
      request.client.clientId,
      request.redirectUri,
      request.codeChallenge,
      request.scope,
      `fam_${randomString(20)}`,
      new Date(Date.now() + codeTtlMs),
    ],
  );
  return code;
}

/** The redirect back to the client, with either the code or an RFC error. */
export function redirectBack(request: { redirectUri: string; state?: string }, query: Record<string, string>): string {
  const url = new URL(request.redirectUri);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  if (request.state !== undefined) url.searchParams.set('state', request.state);
  return url.toString();
}
