import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { isKnownScope } from '../../shared/scopes.ts';
import { findClient, secretMatches, type OAuthClient } from './clients.ts';
import { OAuthError } from './oauth-error.ts';
import { accessTokenTtlSeconds, hashToken, type TokenStore } from './token-store.ts';

export interface TokenRequest {
  params: Record<string, string | undefined>;
  /** Credentials from an HTTP Basic Authorization header, if any. */
  basic?: { clientId: string; clientSecret: string };
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

const verifierPattern = /^[A-Za-z0-9\-._~]{43,128}$/;

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** The token endpoint (RFC 6749 §3.2): client_credentials, authorization_code + PKCE, refresh_token. */
export async function grantTokens(db: Db, tokens: TokenStore, request: TokenRequest): Promise<TokenResponse> {
  const { params } = request;
  const grantType = params.grant_type;
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
  const accessTtl = parseExpiresIn(params.expires_in);
  const client = await authenticateClient(db, request);

  const respond = async (
    tenantId: string,
    scope: string,
    refresh: boolean,
    familyId?: string,
  ): Promise<TokenResponse> => {
    const issued = await tokens.issue(db, { tenantId, clientId: client.clientId, scope, accessTtl, refresh, familyId });
    return {
      access_token: issued.accessToken,
      token_type: 'Bearer',
      expires_in: issued.expiresIn,
      ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
      scope: issued.scope,
    };
  };

  switch (grantType) {
    case 'client_credentials': {
      // RFC 6749 §4.4: for confidential clients only.
      if (client.public)
        throw new OAuthError(
          'unauthorized_client',
          'A public client cannot use client_credentials; use authorization_code with PKCE.',
        );
      // RFC 6749 §4.4.3: no refresh token for client credentials.
      return respond(client.tenantId, requestedScope(params.scope, client.scopes), false);
    }
    case 'authorization_code': {
      const code = required(params, 'code');
      const verifier = required(params, 'code_verifier');
      const row = await consumeOnce<{
        tenant_id: string;
        client_id: string;
        redirect_uri: string;
        code_challenge: string;
        scope: string;
      }>(db, tokens, 'oauth_codes', hashToken(code), client.clientId, '');
      if (row === 'reused')
        throw new OAuthError('invalid_grant', 'The authorization code was already used; its tokens are revoked.');
      if (row === 'unknown') throw new OAuthError('invalid_grant', 'Unknown authorization code.');
      if (row.expires_at.getTime() <= Date.now())
        throw new OAuthError('invalid_grant', 'The authorization code expired.');
      if (params.redirect_uri !== row.redirect_uri)
        throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request.');
      if (!verifierPattern.test(verifier) || s256(verifier) !== row.code_challenge) {
        throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (S256).');
      }
      return respond(row.tenant_id, cappedBy(client, row.scope), true, row.family_id);
    }
    case 'refresh_token': {
      const presented = required(params, 'refresh_token');
      const row = await consumeOnce<{ tenant_id: string; client_id: string; scope: string }>(
        db,
        tokens,
        'oauth_tokens',
        hashToken(presented),
        client.clientId,
        `and kind = 'refresh' and revoked_at is null`,
      );
      if (row === 'reused')
        throw new OAuthError(
          'invalid_grant',
          'The refresh token was already used; every token of its family is revoked.',
        );
      if (row === 'unknown') throw new OAuthError('invalid_grant', 'Unknown or revoked refresh token.');
      if (row.expires_at.getTime() <= Date.now()) throw new OAuthError('invalid_grant', 'The refresh token expired.');
      const granted = cappedBy(client, row.scope).split(' ');
      return respond(row.tenant_id, requestedScope(params.scope, granted), true, row.family_id);
    }
    default:
      throw new OAuthError(
        'unsupported_grant_type',
        `grant_type ${grantType} is not supported; use client_credentials, authorization_code or refresh_token.`,
      );
  }
}

/**
 * Marks a single-use credential (authorization code or refresh token) used, atomically.
 * A second presentation revokes the whole token family: RFC 6749 §4.1.2 for codes,
 * the OAuth 2.0 Security BCP §4.14 for refresh tokens. Only the client it was issued to can
 * spend it: another client presenting it (authenticated as itself) finds it unknown and changes
 * nothing, or a client could revoke another's grant with a code or token it got hold of.
 */
async function consumeOnce<T>(
  db: Db,
  tokens: TokenStore,
  table: 'oauth_codes' | 'oauth_tokens',
  hash: string,
  clientId: string,
  filter: string,
) {
  type Row = T & { family_id: string; expires_at: Date };
  const [won] = await db.query<Row>(
    `update ${table} set used_at = now() where hash = $1 and client_id = $2 and used_at is null ${filter} returning *`,
    [hash, clientId],
  );
  if (won) return won;
  const [seen] = await db.query<{ family_id: string }>(
    `select family_id from ${table} where hash = $1 and client_id = $2 ${filter}`,
    [hash, clientId],
  );
  if (!seen) return 'unknown' as const;
  await db.transaction((tx) => tokens.revokeFamily(tx, seen.family_id));
  return 'reused' as const;
}

function required(params: Record<string, string | undefined>, name: string): string {
  const value = params[name];
  if (!value) throw new OAuthError('invalid_request', `${name} is required.`);
  return value;
}

/** Sandbox-only: mint short-lived access tokens to rehearse expiry (1–3600 s). */
function parseExpiresIn(value: string | undefined): number {
  if (value === undefined) return accessTokenTtlSeconds;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > accessTokenTtlSeconds) {
    throw new OAuthError('invalid_request', `expires_in must be an integer from 1 to ${accessTokenTtlSeconds}.`);
  }
  return seconds;
}

/** What was granted, cut down to the client's own scopes (SPEC §3: every grant is capped by them). */
const cappedBy = (client: OAuthClient, granted: string) =>
  granted
    .split(' ')
    .filter((s) => client.scopes.includes(s))
    .join(' ');

/** The requested scopes (all allowed ones when none is asked for); each must be known and allowed. */
export function requestedScope(requested: string | undefined, allowed: readonly string[]): string {
  if (!requested?.trim()) return allowed.join(' ');
  const scopes = [...new Set(requested.trim().split(/\s+/))];
  const bad = scopes.filter((s) => !isKnownScope(s) || !allowed.includes(s));
  if (bad.length) throw new OAuthError('invalid_scope', `Scope not allowed: ${bad.join(' ')}.`);
  return scopes.join(' ');
}

/**
 * RFC 7009 token revocation: the client (authenticated when confidential, RFC 7009 §2.1; a public
 * one naming its client_id) revokes one of its own tokens. The answer is the same whatever the
 * token was, so it tells nothing.
 */
export async function revokeToken(db: Db, tokens: TokenStore, request: TokenRequest): Promise<void> {
  const client = await authenticateClient(db, request);
  const token = required(request.params, 'token');
  await tokens.revoke(client.clientId, token);
}

/**
 * Client authentication (RFC 6749 §2.3.1, client_secret_basic or client_secret_post): a confidential
 * client proves itself with its secret on every request, whatever the grant; a public client names
 * its client_id and has no secret to send. Every failure is 401 invalid_client.
 */
async function authenticateClient(db: Db, { params, basic }: TokenRequest): Promise<OAuthClient> {
  if (basic && params.client_secret !== undefined) {
    throw new OAuthError(
      'invalid_request',
      'Send client credentials either in the Authorization header or in the body, not both.',
    );
  }
  const clientId = basic?.clientId ?? params.client_id;
  const secret = basic?.clientSecret ?? params.client_secret;
  if (!clientId) throw new OAuthError('invalid_client', 'Client authentication failed: client_id is missing.');
  const client = await findClient(db, clientId);
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed: unknown client.');
  if (client.public) {
    if (secret)
      throw new OAuthError('invalid_client', 'Client authentication failed: this client is public and has no secret.');
    return client;
  }
  if (secret === undefined) {
    throw new OAuthError(
      'invalid_client',
      'Client authentication failed: this client is confidential; send its client_secret (HTTP Basic, or in the body).',
    );
  }
  if (!secretMatches(client, secret))
    throw new OAuthError('invalid_client', 'Client authentication failed: wrong client secret.');
  return client;
}
