import type { Queryable } from '../../db/database.ts';

export interface OAuthClient {
  clientId: string;
  tenantId: string;
  clientSecret: string;
  redirectUris: string[];
}

export async function findClient(q: Queryable, clientId: string): Promise<OAuthClient | undefined> {
  const [row] = await q.query<{ client_id: string; tenant_id: string; client_secret: string; redirect_uris: string[] }>(
    'select client_id, tenant_id, client_secret, redirect_uris from oauth_clients where client_id = $1',
    [clientId],
  );
  return row && { clientId: row.client_id, tenantId: row.tenant_id, clientSecret: row.client_secret, redirectUris: row.redirect_uris };
}

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
