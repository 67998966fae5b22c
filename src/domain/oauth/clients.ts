import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import { constantTimeEqual } from '../../shared/hmac.ts';
import { randomString } from '../../shared/ids.ts';

export interface OAuthClient {
  clientId: string;
  tenantId: string;
  /** Registered as public (a browser or native app): no secret, PKCE required (RFC 6749 §2.1). */
  public: boolean;
  /** The sandbox's own credentials client (created with it); always confidential. */
  sandboxClient: boolean;
  name: string | null;
  redirectUris: string[];
  /** The scopes the client may be granted (SPEC §3: its creator's at most); every grant is capped by them. */
  scopes: string[];
  /** The secret's SHA-256 (confidential clients); the secret itself is never stored. */
  secretHash: string | null;
  /** What is shown of the secret after creation: its prefix and last four characters. */
  secretHint: string | null;
  createdAt: Date;
}

export interface ClientRow {
  client_id: string;
  tenant_id: string;
  public: boolean;
  sandbox_client: boolean;
  name: string | null;
  redirect_uris: string[];
  scope: string;
  secret_hash: string | null;
  secret_hint: string | null;
  created_at: Date;
}

export const clientColumns =
  'client_id, tenant_id, public, sandbox_client, name, redirect_uris, scope, secret_hash, secret_hint, created_at';

export const toClient = (r: ClientRow): OAuthClient => ({
  clientId: r.client_id,
  tenantId: r.tenant_id,
  public: r.public,
  sandboxClient: r.sandbox_client,
  name: r.name,
  redirectUris: r.redirect_uris,
  scopes: r.scope.split(' '),
  secretHash: r.secret_hash,
  secretHint: r.secret_hint,
  createdAt: r.created_at,
});

export async function findClient(q: Queryable, clientId: string): Promise<OAuthClient | undefined> {
  const [row] = await q.query<ClientRow>(`select ${clientColumns} from oauth_clients where client_id = $1`, [clientId]);
  return row && toClient(row);
}

/** A new client secret: 40 random characters, so a plain SHA-256 of it cannot be brute-forced. */
export function newClientSecret(): { secret: string; hash: string; hint: string } {
  const secret = `cs_${randomString(40)}`;
  return { secret, hash: hashClientSecret(secret), hint: `cs_…${secret.slice(-4)}` };
}

const hashClientSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Whether `secret` is the confidential client's secret (compared as hashes, in constant time). */
export function secretMatches(client: OAuthClient, secret: string): boolean {
  return client.secretHash !== null && constantTimeEqual(hashClientSecret(secret), client.secretHash);
}

export const newClientId = () => `cli_${randomString(20)}`;

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** RFC 8252 §7.3: any port on a loopback http redirect is fine; otherwise it must be registered. */
export function redirectAllowed(client: OAuthClient, redirectUri: string): boolean {
  if (client.redirectUris.includes(redirectUri)) return true;
  try {
    const url = new URL(redirectUri);
    return url.protocol === 'http:' && loopbackHosts.has(url.hostname) && !url.hash;
  } catch {
    return false;
  }
}
